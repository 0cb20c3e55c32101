#!/usr/bin/env python3
"""Build figures for the bench JSON: library size per architecture and build times.

  build_info.py size LIB [--json OUT]
      Sizes of a built libgpuopt: the file, its fatbin section, and each architecture's share
      of it (SASS per sm_XX, PTX per compute_XX; bytes as stored, compressed, and uncompressed),
      read from the .nv_fatbin section's entry headers (needs readelf, binutils).

  build_info.py merge BENCH_JSON [--size FILE] [--bench-preset-seconds S --cores N]
                                 [--ci FILE]
      Adds a "build" object and the issue's bar entries to a bench JSON (in place):
        "build from scratch, bench preset, <N> cores: s"   (<= 180)
        "build from scratch, test workflow, 2 cores: s"     (<= 480, from --ci: a JSON written
                                                             by .ci/run: build/ci-build.json)
        "library size, portable build: MB"                  (<= 40, from --size of the portable
                                                             library: MB = 10^6 bytes)
      A figure not given leaves its bar out; nothing is invented.
      --bars-from FILE (repeatable): also copies the "bars" (and keeps the "results" under
      "extra_results") of another program's JSON measured in the same run, such as
      gpuopt-blas-bench's blas-bench.json.
      --tuned-from FILE: a gpuopt-bench JSON of the same device run with a tuning cache
      (`--tune-cache`): its "auto ran the fastest" bars are added as "... auto ran the
      fastest, with a tuning cache" (target >= 0.98), beside the default run's own.
"""
import argparse
import json
import os
import struct
import subprocess
import sys


def fatbin_section(lib):
    """(offset, size) of the .nv_fatbin section (readelf -S), or None."""
    out = subprocess.run(["readelf", "-SW", lib], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        if ".nv_fatbin" in line:
            fields = line.split()
            i = fields.index(".nv_fatbin")
            return int(fields[i + 3], 16), int(fields[i + 4], 16)  # Name Type Addr Off Size
    return None


FATBIN_MAGIC = 0xBA55ED50


def fatbin_entries(blob):
    """Yields (kind, arch, stored bytes, uncompressed bytes) of each fatbin entry.

    The layout (as the CUDA toolkit writes it): a fatbin is a header {u32 magic, u16 version,
    u16 header size, u64 payload size} followed by entries {u16 kind (1 PTX, 2 SASS), u16
    version, u32 header size, u64 stored (padded) size, ..., u32 arch at +28, ..., u64 flags at
    +40, u64 uncompressed size at +56 (0 when stored uncompressed)}."""
    pos = 0
    while pos + 16 <= len(blob):
        magic, _, hsize, fsize = struct.unpack_from("<IHHQ", blob, pos)
        if magic != FATBIN_MAGIC:
            pos += 8  # fatbins are 8-byte aligned in the section
            continue
        e, end = pos + hsize, pos + hsize + fsize
        while e + 32 <= end:
            kind, _, ehsize, stored = struct.unpack_from("<HHIQ", blob, e)
            arch = struct.unpack_from("<I", blob, e + 28)[0]
            full = struct.unpack_from("<Q", blob, e + 56)[0] if ehsize >= 64 else 0
            yield kind, arch, stored, full or stored
            e += ehsize + stored
        pos = end


def size(lib):
    per_arch = {}
    section = fatbin_section(lib)
    if section:
        off, length = section
        with open(lib, "rb") as f:
            f.seek(off)
            blob = f.read(length)
        for kind, arch, stored, full in fatbin_entries(blob):
            # The header's arch field has no room for the "a" of sm_90a: gpuopt's only sm_90
            # SASS is sm_90a (cmake/GpuoptArchitectures.cmake), so it is named so.
            key = ("sm_%d" if kind == 2 else "compute_%d" if kind == 1 else "kind%d_%%d" % kind) % arch
            key = "sm_90a" if key == "sm_90" else key
            a = per_arch.setdefault(key, {"bytes": 0, "uncompressed_bytes": 0, "entries": 0})
            a["bytes"] += stored
            a["uncompressed_bytes"] += full
            a["entries"] += 1
    return {
        "library": os.path.basename(os.path.realpath(lib)),
        "file_bytes": os.path.getsize(lib),
        "fatbin_bytes": section[1] if section else 0,
        "device_code": dict(sorted(per_arch.items())),
    }


def add_bar(bars, name, value, limit, note):
    bars[:] = [b for b in bars if b.get("name") != name]
    bars.append({"name": name, "value": value, "target": "<= %g" % limit, "min": None,
                 "max": limit, "pass": value <= limit, "note": note})


def merge(args):
    with open(args.bench_json) as f:
        doc = json.load(f)
    build = doc.setdefault("build", {})
    bars = doc.setdefault("bars", [])
    seconds = build.setdefault("build_seconds", {})
    if args.bench_preset_seconds is not None:
        key = "bench preset from scratch, %d cores" % args.cores
        seconds[key] = round(args.bench_preset_seconds, 1)
        add_bar(bars, "build from scratch, bench preset, %d cores: s" % args.cores,
                round(args.bench_preset_seconds, 1), 180,
                "cmake --preset bench && cmake --build --preset bench, no compiler cache")
    if args.ci:
        with open(args.ci) as f:
            ci = json.load(f)
        seconds["test workflow from scratch, %d cores" % ci["cores"]] = ci["seconds"]
        add_bar(bars, "build from scratch, test workflow, %d cores: s" % ci["cores"],
                ci["seconds"], 480, "cmake --workflow --preset test on a fresh clone, %s" %
                ci.get("note", ""))
    if args.size:
        with open(args.size) as f:
            sz = json.load(f)
        build["library_bytes"] = {k: v["bytes"] for k, v in sz["device_code"].items()}
        build["library_bytes"]["host code and data"] = sz["file_bytes"] - sz["fatbin_bytes"]
        build["library_file_bytes"] = sz["file_bytes"]
        build["note"] = ("library_bytes: %s (%.1f MB), each architecture's device code as stored "
                         "(compressed; %.1f MB uncompressed in all), and the rest of the file"
                         % (sz["library"], sz["file_bytes"] / 1e6,
                            sum(v["uncompressed_bytes"] for v in sz["device_code"].values()) / 1e6))
        add_bar(bars, "library size, portable build: MB", round(sz["file_bytes"] / 1e6, 2), 40,
                "%s (sm_80, sm_90a SASS; PTX for newer GPUs)" % sz["library"])
    for extra in args.bars_from or []:
        with open(extra) as f:
            other = json.load(f)
        for bar in other.get("bars", []):
            bars[:] = [b for b in bars if b.get("name") != bar.get("name")]
            bars.append(bar)
        if other.get("results"):
            doc.setdefault("extra_results", {})[os.path.basename(extra)] = other["results"]
    if args.tuned_from:
        with open(args.tuned_from) as f:
            tuned = json.load(f)
        tuning = tuned.get("tuning", {})
        if tuning.get("mode") != "used" or not tuning.get("entries"):
            sys.exit("build_info: %s ran without a tuning cache (tuning: %s)"
                     % (args.tuned_from, tuning))
        for bar in tuned.get("bars", []):
            if not bar.get("name", "").endswith("auto ran the fastest"):
                continue
            bar = dict(bar, name=bar["name"] + ", with a tuning cache")
            bar["note"] = "%s; cache %s, %d classes" % (bar.get("note", ""),
                                                       os.path.basename(tuning.get("file", "")),
                                                       tuning["entries"])
            bars[:] = [b for b in bars if b.get("name") != bar["name"]]
            bars.append(bar)
        doc["tuning"] = dict(tuning, note="the 'with a tuning cache' bars come from a second "
                             "run with this cache attached; every other figure is the default run's")
    with open(args.bench_json, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("size")
    s.add_argument("lib")
    s.add_argument("--json")
    m = sub.add_parser("merge")
    m.add_argument("bench_json")
    m.add_argument("--size")
    m.add_argument("--bench-preset-seconds", type=float)
    m.add_argument("--cores", type=int, default=os.cpu_count())
    m.add_argument("--ci")
    m.add_argument("--bars-from", action="append")
    m.add_argument("--tuned-from")
    args = ap.parse_args()
    if args.cmd == "size":
        out = json.dumps(size(args.lib), indent=1)
        if args.json:
            with open(args.json, "w") as f:
                f.write(out + "\n")
        print(out)
    else:
        merge(args)


if __name__ == "__main__":
    main()
