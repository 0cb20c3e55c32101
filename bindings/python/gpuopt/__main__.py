"""``python -m gpuopt`` (also the ``gpuopt-info`` command): what this installation is.

Prints the binding's and the library's versions, where the library was loaded from and how it
was built (as far as the wheel recorded it), the CUDA devices (or why there are none), and each
operation's variants on a device: names, what each needs, whether it can run there, its dtypes
and technique. Listing variants takes a gpuopt context (gpuopt_variant_count() and
gpuopt_variant_info() are questions to a context), so without a device it says why not.

    python -m gpuopt [--device N] [--json]
"""
import argparse
import json
import os
import sys

import gpuopt
from . import _constants as k

_OPS = sorted(v for n, v in vars(k).items() if n.startswith("GPUOPT_OP_"))


def _dtypes(mask):
    return [gpuopt.dtype_name(d) for d in sorted(k.DTYPE_BYTES) if mask & (1 << d)]


def _device(info):
    return {"device": info.device, "name": info.name.decode(errors="replace"),
            "compute_capability": f"{info.cc_major}.{info.cc_minor}", "sm_count": info.sm_count,
            "total_memory_bytes": info.total_memory, "l2_cache_bytes": info.l2_cache_bytes,
            "shared_memory_per_block_optin": info.shared_memory_per_block_optin,
            "supports_clusters": bool(info.supports_clusters),
            "supports_tma": bool(info.supports_tma),
            "supports_compression": bool(info.supports_compression),
            "theoretical_bandwidth_gbs": round(info.theoretical_bandwidth_gbs, 1),
            "driver_version": info.driver_version, "runtime_version": info.runtime_version}


def _variants(ctx):
    out = {}
    for op in _OPS:
        out[gpuopt.op_name(op)] = [
            {"name": v.name.decode(), "min_cc": v.min_cc, "exact_cc": v.exact_cc,
             "is_vendor": bool(v.is_vendor), "available": bool(v.available),
             "dtypes": _dtypes(v.dtype_mask), "technique": (v.technique or b"").decode()}
            for v in ctx.variants(op)]
    return out


def collect(device=0):
    """Everything ``python -m gpuopt`` reports, as a dict (what --json prints)."""
    report = {"binding_version": gpuopt.__version__,
              "library_version": gpuopt.version_string(),
              "header_version": "%d.%d.%d" % (k.GPUOPT_VERSION_MAJOR, k.GPUOPT_VERSION_MINOR,
                                              k.GPUOPT_VERSION_PATCH),
              "library": gpuopt.library_path, "package": gpuopt.__path__[0],
              "build": gpuopt.build_info()}
    count = gpuopt.device_count()
    report["device_count"] = count
    report["devices"] = [_device(gpuopt.device_info(d)) for d in range(count)]
    report["variants_device"] = device
    try:
        with gpuopt.Context(device) as ctx:
            report["variants"] = _variants(ctx)
    except gpuopt.GpuoptError as e:
        report["variants"] = None
        report["no_variants_reason"] = (
            f"listing variants needs a gpuopt context on device {device} "
            f"(gpuopt_variant_count() takes one); gpuopt_context_create said {e.status_name}: "
            f"{e.message}")
    return report


def _cc(v):
    if v["exact_cc"]:
        return "sm_%da only" % v["exact_cc"]
    return "sm_%d+" % v["min_cc"] if v["min_cc"] else "any"


def _cuda_version(v):
    return f"{v // 1000}.{v % 1000 // 10}" if v else "none"


def _print(r, out):
    w = out.write
    w(f"gpuopt {r['binding_version']} (library {r['library_version']}, header "
      f"{r['header_version']})\n")
    w(f"library: {r['library']}\npackage: {r['package']}\n")
    b = r["build"]
    if b:
        parts = [f"{key.replace('_', ' ')} {b[key]}" for key in
                 ("build_type", "cuda_architectures", "cuda_compiler_version", "git_revision")
                 if b.get(key)]
        w(f"build: {', '.join(parts) or 'no CMake cache recorded'} (packaged {b['packaged']} "
          f"from {b['library_source']}, found through {b['found_by']})\n")
    else:
        w("build: not recorded (a package that pip did not install: see "
          "docs/integration-python.md)\n")
    w(f"devices: {r['device_count']}\n")
    for d in r["devices"]:
        feats = [f for f, on in (("clusters", d["supports_clusters"]), ("TMA", d["supports_tma"]),
                                 ("compression", d["supports_compression"])) if on]
        w(f"  device {d['device']}: {d['name']}, cc {d['compute_capability']}, {d['sm_count']} "
          f"SMs, {d['total_memory_bytes'] / 2**30:.1f} GiB, L2 {d['l2_cache_bytes'] >> 20} MiB, "
          f"{d['theoretical_bandwidth_gbs']} GB/s, {' '.join(feats) or 'no clusters/TMA'}; "
          f"driver {_cuda_version(d['driver_version'])}, runtime "
          f"{_cuda_version(d['runtime_version'])}\n")
    if r["variants"] is None:
        w(f"variants: not listed: {r['no_variants_reason']}\n")
        return
    w(f"variants (device {r['variants_device']}; '-' marks one that cannot run there):\n")
    for op, variants in r["variants"].items():
        w(f"  {op}:\n")
        for v in variants:
            w(f"    {'+' if v['available'] else '-'} {v['name']:<24} {_cc(v):<13} "
              f"{'vendor ' if v['is_vendor'] else ''}{','.join(v['dtypes'])}: {v['technique']}\n")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m gpuopt", description=__doc__.split("\n")[0])
    p.add_argument("--device", type=int, default=0, help="device whose variants to list")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    args = p.parse_args(argv)
    report = collect(args.device)
    try:
        if args.json:
            json.dump(report, sys.stdout, indent=1)
            sys.stdout.write("\n")
        else:
            _print(report, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. | head: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
