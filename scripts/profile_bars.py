#!/usr/bin/env python3
"""The summary of scripts/profile-bars.sh: Nsight Compute figures of the missed bars (issue 19).

profile-bars.sh runs gpuopt-bench under `ncu` once per job (a few rows of one suite), profiling the
first launch of every distinct kernel (demangled name) of the job (--kernel-id :::1), and converts
each report to `ncu --csv --page raw --print-units base`. This script (python3, standard library
only):

  metrics --query FILE   prints the --metrics list for ncu: the wanted metrics whose base name
                         `ncu --query-metrics` lists (FILE), plus every stall reason it lists;
                         prints nothing when FILE lists none (the caller then uses sections)
  summarize --work DIR [--results JSON]
                         prints the Markdown summary: one table per missed bar, the best own
                         variant's kernel(s) beside the vendor's (or the roof's), then every
                         kernel each job profiled. DIR holds <job>.csv and jobs.tsv (name, status,
                         seconds, metrics or sections, bench arguments; tab-separated).
  selftest               summarizes synthetic CSVs of every job and checks the tables

Attribution. A job's kernels come in launch order (the ncu result ID); bench helpers (namespace
bench::) are left out. gemm: the own kernel matches the rung's kernel name; the other kernels are
the vendor's, in order: the row of the own variant calls cuBLAS f64 for the reference right after
the own call, so the cublas row's kernel is the first other kernel for f64 (the reference is the
same call) and the second for the other types. gdn: composed's kernels (its elementwise kernels
and cuBLAS) and the fused variant's come group by group (forward f32, forward tf32, backward f32,
backward tf32; composed first in each); a segment starts where a composed kernel follows an own
one. ncu profiles only a kernel's first launch, so a later group shows only its new kernels.
"""
import argparse
import csv
import json
import os
import re
import sys
import tempfile

# (metric, label, kind): the compact set; kinds format the value (see fmt_value).
METRICS = [
    ("gpu__time_duration.sum", "duration", "time"),
    ("sm__cycles_elapsed.avg.per_second", "SM clock", "hz"),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM throughput %", "pct"),
    ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "memory throughput %",
     "pct"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput %", "pct"),
    ("dram__bytes_read.sum", "DRAM read", "bytes"),
    ("dram__bytes_write.sum", "DRAM written", "bytes"),
    ("lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 throughput %", "pct"),
    ("l1tex__throughput.avg.pct_of_peak_sustained_active", "L1/shared throughput %", "pct"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy %", "pct"),
    ("sm__maximum_warps_per_active_cycle_pct", "theoretical occupancy %", "pct"),
    ("launch__registers_per_thread", "registers / thread", "int"),
    ("launch__shared_mem_per_block_static", "static smem / block", "bytes"),
    ("launch__shared_mem_per_block_dynamic", "dynamic smem / block", "bytes"),
    ("launch__block_size", "block size", "int"),
    ("launch__grid_size", "grid size", "int"),
    ("launch__waves_per_multiprocessor", "waves / SM", "float"),
    ("sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
     "tensor pipe GMMA (wgmma) %", "pct"),
    ("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
     "tensor pipe HMMA %", "pct"),
    ("sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active",
     "tensor pipe DMMA %", "pct"),
    ("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "tensor pipes (all) %",
     "pct"),
    ("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "FMA pipe %", "pct"),
    ("sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", "FP64 pipe %", "pct"),
    ("sm__inst_issued.avg.pct_of_peak_sustained_active", "issue slots busy %", "pct"),
    ("smsp__issue_active.avg.pct_of_peak_sustained_active", "issue active / scheduler %", "pct"),
    ("smsp__average_warp_latency_per_inst_issued.ratio", "warp cycles / issued inst.", "float"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "smem bank conflicts (ld)",
     "int"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smem bank conflicts (st)",
     "int"),
]
# Launch attributes: not always listed by --query-metrics, known to every ncu since 2020.
ALWAYS = ("launch__", "gpu__time_duration")
# Stall reasons: the breakdown of warp cycles per issued instruction (WarpStateStats).
STALL_BASE = re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active$")
STALL_COL = [
    re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$"),
    re.compile(r"^smsp__average_warp_latency_issue_stalled_(\w+?)\.ratio$"),
]
NOT_STALLS = {"selected", "not_issued"}
TOP_STALLS = 4
MAX_PER_SIDE = 4  # kernels shown per side of a bar table (the longest ones)

COMPOSED_NAMES = ("square_kernel", "forward_epilogue_kernel", "gradient_terms_kernel",
                  "dx_finish_kernel", "fill_kernel")


class Bar:
    """A missed bar: the job that profiles it and how its own and vendor kernels are picked."""

    def __init__(self, title, job, json_bar, own, vendor, vendor_label, own_job=None):
        self.title, self.job, self.json_bar = title, job, json_bar
        self.own, self.vendor, self.vendor_label = own, vendor, vendor_label
        self.own_job = own_job or job


def gemm_bar(dtype, n, kernel, vendor_index):
    shape = "%dx%dx%d" % (n, n, n)
    return Bar("gemm %s %s: best own / cublas" % (dtype, shape), "gemm-%s-%d" % (dtype, n),
               "gemm %s %s: best own / cublas" % (dtype, shape), ("re", kernel),
               ("other", vendor_index), "cublas")


GDN_JSON = "gdn %s %s N=32 C=256: composed ms / fused ms"
BARS = [
    gemm_bar("f64", 4096, "f64_mma_kernel", 0),
    gemm_bar("f32", 4096, "gemm_warptiled_cpasync_kernel", 1),
    gemm_bar("bf16", 4096, "gemm_sm90_tma_wgmma_kernel", 1),
    Bar("stencil f32 3D 512^3 r=4: GB/s / copy roof", "stencil-3d",
        "stencil f32 3D 512x512x512 r=4: auto GB/s (1 read + 1 write) / copy roof",
        ("re", "stencil_sm90_zmarch_fwd_kernel"),
        ("job", "roof-axpy", "axpy_vec4_blocktile_kernel"),
        "roof: axpy vec4_blocktile f32 2^27 (a streaming kernel at 1.00 of the copy roof)"),
    Bar("gdn forward f32: composed / fused (sm90_wgmma_fused)", "gdn-sm90_wgmma_fused",
        GDN_JSON % ("forward", "f32"), ("gdn", "fwd_f32"), ("composed",), "composed"),
    Bar("gdn forward tf32: composed / fused (sm80_mma_fused)", "gdn-sm80_mma_fused",
        GDN_JSON % ("forward", "tf32"), ("gdn", "fwd_tf32"), ("composed",), "composed"),
    Bar("gdn backward f32: composed / fused (sm90_wgmma_fused)", "gdn-sm90_wgmma_fused",
        GDN_JSON % ("backward", "f32"), ("gdn", "bwd_f32"), ("composed",), "composed"),
    Bar("gdn backward tf32: composed / fused (sm90_onepass_fused)", "gdn-sm90_onepass_fused",
        GDN_JSON % ("backward", "tf32"), ("gdn", "bwd_tf32"), ("composed",),
        "composed (the rung runs only this group: composed's kernels of every group come "
        "before it, in one segment)"),
    Bar("segmented_sort i32 fixed 4194304 x 128: GB/s", "sort",
        "segmented_sort i32 fixed 4194304 x 128: GB/s (read + write)",
        ("re", "warp_bitonic_kernel"), ("other", None), "cub (every other kernel of the job)"),
    gemm_bar("f64", 8192, "f64_mma_kernel", 0),
    gemm_bar("f32", 8192, "gemm_warptiled_cpasync_kernel", 1),
]


# ---------------------------------------------------------------- metrics list for ncu


def query_bases(text):
    """Base metric names in `ncu --query-metrics` output (plain or CSV)."""
    names = set()
    for line in text.splitlines():
        m = re.match(r'^\s*"?([a-z0-9]+__[A-Za-z0-9_.]+)', line)
        if m:
            names.add(m.group(1).split(".")[0])
    return names


def metrics_for(bases):
    """The --metrics list: wanted metrics that exist, then every stall reason."""
    if not bases:
        return []
    out = [m for m, _, _ in METRICS if m.startswith(ALWAYS) or m.split(".")[0] in bases]
    out += sorted(b + ".ratio" for b in bases if STALL_BASE.match(b))
    return out


# ---------------------------------------------------------------- reading the CSVs


class Kernel:
    def __init__(self, kid, name, values):
        self.id, self.name, self.values = kid, name, values
        self.cls, self.segment = "", 0

    def get(self, metric):
        return self.values.get(metric)


SCALE = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3,
         "second": 1.0, "s": 1.0, "byte": 1.0, "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9,
         "tbyte": 1e12, "hz": 1.0, "khz": 1e3, "mhz": 1e6, "ghz": 1e9, "cycle/second": 1.0,
         "cycle/usecond": 1e6, "cycle/nsecond": 1e9}


def to_number(text, unit):
    text = (text or "").strip().replace(",", "")
    try:
        v = float(text)
    except ValueError:
        return None
    return v * SCALE.get((unit or "").strip().lower(), 1.0)


def read_raw_csv(path):
    """Kernels of an `ncu --csv --page raw` export, in ID order (values in base units)."""
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        return []
    rows = list(csv.reader(lines[start:]))
    header, data = rows[0], rows[1:]
    units = [""] * len(header)
    if data and data[0] and data[0][0] == "":
        units, data = data[0], data[1:]
    kernels = []
    for r in data:
        if len(r) != len(header) or not r[0].strip().isdigit():
            continue
        values = {}
        for h, u, v in zip(header, units, r):
            if "__" in h:
                values[h] = to_number(v, u)
        named = dict(zip(header, r))
        kernels.append(Kernel(int(r[0]), named.get("Kernel Name", "?"), values))
    kernels.sort(key=lambda k: k.id)
    return kernels


def short_name(name, width=48):
    """`void ns::f<T, ...>(args)` -> `f<T, ...>`, cut to width."""
    s = re.sub(r"^void\s+", "", name.strip()).replace("(anonymous namespace)::", "")
    depth = 0
    for i, c in enumerate(s):
        depth += c == "<"
        depth -= c == ">"
        if c == "(" and depth == 0:
            s = s[:i]
            break
    depth, cut = 0, 0
    for i, c in enumerate(s):  # last '::' outside template brackets
        depth += c == "<"
        depth -= c == ">"
        if depth == 0 and s.startswith("::", i):
            cut = i + 2
    s = s[cut:]
    return s if len(s) <= width else s[:width - 3] + "..."


def base_name(name):
    return short_name(name, 10 ** 6).split("<")[0]


BENCH_NAMES = ("fill_f64", "fill_f32", "fill_bf16", "upcast_f32", "upcast_bf16", "compare_kernel",
               "stencil_fill_kernel", "fill_keys_kernel", "reduce_fill_kernel", "fill_bits_kernel",
               "check_kernel", "empty_kernel")


def is_bench(k):
    """The bench's own kernels (fills, upcasts, checks): namespace bench::, or by name where the
    names come without namespaces (the bench's fill_kernel is a template, composed's is not)."""
    if "bench::" in k.name:
        return True
    if "::" in k.name:
        return False
    return base_name(k.name) in BENCH_NAMES or short_name(k.name).startswith("fill_kernel<")


def is_composed(k):
    gpuopt = "gpuopt::" in k.name
    return (gpuopt and base_name(k.name) in COMPOSED_NAMES) or (not gpuopt and not is_bench(k))


def classify_gdn(kernels):
    """cls own / composed and the group segment of each kernel (bench helpers dropped)."""
    out, seg, last = [], -1, None
    for k in kernels:
        if is_bench(k):
            continue
        k.cls = "composed" if is_composed(k) else "own"
        if seg < 0 or (k.cls == "composed" and last == "own"):
            seg += 1
        k.segment, last = seg, k.cls
        out.append(k)
    return out


def gdn_segment(ks, group):
    """The segment of a gdn group: forward f32 is the first; backward f32 the first with
    composed's backward-only kernels; forward tf32 the one between; backward tf32 the one after
    backward f32, or the last one when there is none (a rung that runs only that group)."""
    segs = sorted({k.segment for k in ks})
    if not segs:
        return None
    bwd = next((k.segment for k in ks if k.cls == "composed" and base_name(k.name) in
                ("gradient_terms_kernel", "dx_finish_kernel")), None)
    if group == "fwd_f32":
        return segs[0]
    if group == "bwd_f32":
        return bwd
    if group == "fwd_tf32":
        return 1 if 1 in segs and (bwd is None or bwd > 1) else None
    return bwd + 1 if bwd is not None and bwd + 1 in segs else segs[-1]


def pick(bar, jobs):
    """(own kernels, vendor kernels, notes) of a bar."""
    notes = []
    kernels = [k for k in jobs.get(bar.own_job, []) if not is_bench(k)]
    if bar.own[0] == "gdn":
        ks = classify_gdn(kernels)
        want = gdn_segment(ks, bar.own[1])
        if want is None:
            notes.append("no segment of group %s among the job's kernels" % bar.own[1])
        own = [k for k in ks if k.cls == "own" and k.segment == want]
        vendor = [k for k in ks if k.cls == "composed" and k.segment == want]
        return own, vendor, notes
    rx = re.compile(bar.own[1])
    own = [k for k in kernels if rx.search(k.name)][:1]
    others = [k for k in kernels if not rx.search(k.name)]
    for k in kernels:
        k.cls = "own" if rx.search(k.name) else "vendor"
    if bar.vendor[0] == "job":
        vx = re.compile(bar.vendor[2])
        vendor = [k for k in jobs.get(bar.vendor[1], []) if vx.search(k.name)][:1]
    elif bar.vendor[1] is None:
        vendor = others
    else:
        for k in others[:bar.vendor[1]]:
            k.cls = "reference (cuBLAS f64)"
        vendor = others[bar.vendor[1]:bar.vendor[1] + 1]
        if len(others) > bar.vendor[1] + 1:
            notes.append("other vendor kernels of the job (reference, cublaslt, other shapes): " +
                         ", ".join(short_name(k.name, 40) for k in others[bar.vendor[1] + 1:]))
    return own, vendor, notes


# ---------------------------------------------------------------- formatting


def fmt_value(v, kind):
    if v is None:
        return "-"
    if kind == "time":
        return "%.1f us" % (v * 1e6) if v < 1e-3 else "%.3f ms" % (v * 1e3)
    if kind == "bytes":
        return "%.0f" % v if v < 1e4 else ("%.1f KB" % (v / 1e3) if v < 1e6 else
                                           ("%.1f MB" % (v / 1e6) if v < 1e9 else
                                            "%.2f GB" % (v / 1e9)))
    if kind == "hz":
        return "%.2f GHz" % (v / 1e9)
    if kind == "pct":
        return "%.1f" % v
    if kind == "int":
        return "%.0f" % v
    return "%.2f" % v


def stalls(k, top=TOP_STALLS):
    found = {}
    for rx in STALL_COL:
        for name, v in k.values.items():
            m = rx.match(name)
            if m and v is not None and m.group(1) not in NOT_STALLS:
                found.setdefault(m.group(1), v)
        if found:
            break
    best = sorted(found.items(), key=lambda kv: -kv[1])[:top]
    return ", ".join("%s %.2f" % kv for kv in best) or "-"


def longest(ks, n=MAX_PER_SIDE):
    key = lambda k: -(k.get("gpu__time_duration.sum") or 0)
    shown = sorted(sorted(ks, key=key)[:n], key=lambda k: k.id)
    return shown, len(ks) - len(shown)


def total(ks, metric):
    vals = [k.get(metric) for k in ks if k.get(metric) is not None]
    return sum(vals) if vals else None


def bar_table(bar, own, vendor):
    own_shown, own_left = longest(own)
    ven_shown, ven_left = longest(vendor)
    cols = [("own: " + short_name(k.name), k) for k in own_shown]
    if len(own) > 1:
        cols.append(("own: all %d kernels" % len(own), own))
    cols += [("%s: %s" % ("vendor" if bar.vendor[0] != "job" else "roof", short_name(k.name)), k)
             for k in ven_shown]
    if len(vendor) > 1:
        cols.append(("vendor: all %d kernels" % len(vendor), vendor))
    if not cols:
        return ["(no kernel of this bar was profiled: see the job's log in the tarball)"]
    lines = ["| metric | " + " | ".join(c for c, _ in cols) + " |",
             "| --- |" + " ---: |" * len(cols)]
    summed = {"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum"}
    for metric, label, kind in METRICS:
        cells = []
        for _, k in cols:
            if isinstance(k, list):
                cells.append(fmt_value(total(k, metric), kind) if metric in summed else "")
            else:
                cells.append(fmt_value(k.get(metric), kind))
        if any(c not in ("-", "") for c in cells):
            lines.append("| %s | %s |" % (label, " | ".join(cells)))
    lines.append("| top stalls (warps per issue) | %s |" %
                 " | ".join("" if isinstance(k, list) else stalls(k) for _, k in cols))
    if own_left or ven_left:
        lines.append("")
        lines.append("(%d own and %d vendor kernels not shown: the shortest; see the job list)" %
                     (own_left, ven_left))
    return lines


def bar_value(results, name):
    for b in (results or {}).get("bars", []):
        if b.get("name") == name:
            return b
    return None


def read_jobs(work):
    jobs = []
    try:
        with open(os.path.join(work, "jobs.tsv")) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 5:
                    jobs.append(dict(name=parts[0], status=parts[1], seconds=parts[2],
                                     mode=parts[3], args=parts[4]))
    except OSError:
        pass
    return jobs


def summarize(work, results_path):
    results = None
    if results_path:
        try:
            with open(results_path) as f:
                results = json.load(f)
        except (OSError, ValueError):
            results = None
    jobs = read_jobs(work)
    kernels = {j["name"]: read_raw_csv(os.path.join(work, j["name"] + ".csv")) for j in jobs}
    out = ["# ncu profiles of the missed bars", ""]
    for name in ("device.txt", "ncu-version.txt"):
        try:
            with open(os.path.join(work, name)) as f:
                out.append("- " + " ".join(f.read().split())[:200])
        except OSError:
            pass
    out.append("- `ncu --clock-control none`; each kernel's first launch in the job (demangled "
               "name), replayed per metric pass with caches flushed; values in base units")
    out.append("- stalls: the top %d reasons, average warps stalled per issued instruction "
               "(their sum is the warp cycles per issued instruction)" % TOP_STALLS)
    out.append("")
    out.append("| job | status | s | metrics | gpuopt-bench arguments |")
    out.append("| --- | --- | ---: | --- | --- |")
    for j in jobs:
        out.append("| %s | %s | %s | %s | `%s` |" % (j["name"], j["status"], j["seconds"],
                                                     j["mode"], j["args"]))
    for bar in BARS:
        if bar.job not in kernels:
            continue
        own, vendor, notes = pick(bar, kernels)
        b = bar_value(results, bar.json_bar)
        out += ["", "## " + bar.title, ""]
        if b:
            out.append("bench: %s = %.3f (target %s); %s" %
                       (b["name"], b["value"], b.get("target", ""), b.get("note", "")))
            out.append("")
        out.append("job `%s`, vendor side: %s" % (bar.job, bar.vendor_label))
        if bar.own[0] == "gdn":
            out += ["", "(the kernels first launched in this group: one seen in an earlier group "
                    "is not profiled again, and a group without a new fused kernel merges with "
                    "the next; the job's list below has them all)"]
        out.append("")
        out += bar_table(bar, own, vendor)
        for n in notes:
            out += ["", "- " + n]
    out += ["", "## Every profiled kernel, per job (bench helpers left out)"]
    for j in jobs:
        ks = [k for k in kernels.get(j["name"], []) if not is_bench(k)]
        if j["name"].startswith("gdn-"):
            classify_gdn(ks)
        out += ["", "### " + j["name"], "", "| ID | class | seg | kernel | duration | SM % | "
                "DRAM % | grid |", "| ---: | --- | ---: | --- | ---: | ---: | ---: | ---: |"]
        for k in ks:
            out.append("| %d | %s | %d | `%s` | %s | %s | %s | %s |" % (
                k.id, k.cls or "-", k.segment, short_name(k.name, 90),
                fmt_value(k.get("gpu__time_duration.sum"), "time"),
                fmt_value(k.get("sm__throughput.avg.pct_of_peak_sustained_elapsed"), "pct"),
                fmt_value(k.get("dram__throughput.avg.pct_of_peak_sustained_elapsed"), "pct"),
                fmt_value(k.get("launch__grid_size"), "int")))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- self-test


def synthetic_csv(path, names):
    metrics = [m for m, _, _ in METRICS] + [
        "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio" % r
        for r in ("long_scoreboard", "barrier", "wait", "selected", "math_pipe_throttle")]
    units = {"gpu__time_duration.sum": "nsecond", "dram__bytes_read.sum": "byte",
             "sm__cycles_elapsed.avg.per_second": "cycle/second"}
    with open(path, "w", newline="") as f:
        f.write("==PROF== a line before the table\n")
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(["ID", "Process ID", "Kernel Name"] + metrics)
        w.writerow(["", "", ""] + [units.get(m, "%") for m in metrics])
        for i, n in enumerate(names):
            vals = ["{:,}".format(1000 * (i + 1)) if m == "gpu__time_duration.sum" else
                    "%.2f" % (10.0 + i + metrics.index(m) / 100.0) for m in metrics]
            w.writerow([str(i), "42", n] + vals)


def selftest():
    cub = "void cub::CUB_300000_SM_900::DeviceSegmentedSortKernelLarge<int, long>(int const*)"
    fill = "void bench::(anonymous namespace)::fill_kernel<float>(float*, long)"
    dgemm = "sm90_xmma_gemm_f64f64_f64f64_f64_nn_n_tilesize128x128x16_cublas"
    jobs = {
        "gemm-f64-4096": [fill, "void gpuopt::(anonymous namespace)::f64_mma_kernel<Cfg<2>>("
                          "gpuopt::Params)", dgemm,
                          "void bench::(anonymous namespace)::compare_kernel<double>(double*)"],
        "gemm-f32-4096": [fill, "void gpuopt::gemm_warptiled_cpasync_kernel<float, C>(A<float>)",
                          dgemm, "compare_kernel<float>(float const*, double const*, long)",
                          "ampere_sgemm_128x64_nn", "cutlass_80_simt_sgemm_x"],
        "stencil-3d": ["void gpuopt::stencil_sm90_zmarch_fwd_kernel<float, 4, C>(CUtensorMap)"],
        "roof-axpy": ["void gpuopt::axpy_vec4_blocktile_kernel<float>(long, float)",
                      "void axpy_kernel_val<float, float, 0>(cublasAxpyParamsVal<float>)"],
        "gdn-sm90_wgmma_fused": [
            fill, "void gpuopt::(anonymous namespace)::square_kernel(float const*, float*, long)",
            "nvjet_sgemm_f32_nn", "void gpuopt::(anonymous namespace)::forward_epilogue_kernel()",
            "void gpuopt::gemm_sm90_tma_wgmma_kernel<Fwd32>(CUtensorMap)",
            "void gpuopt::gdn_split_gamma_kernel(float const*)", "nvjet_tf32_nn",
            "void gpuopt::(anonymous namespace)::gradient_terms_kernel(float const*)",
            "void gpuopt::gemm_sm90_tma_wgmma_kernel<Bwd32>(CUtensorMap)",
            "void gpuopt::gemm_sm90_tma_wgmma_kernel<BwdDx32>(CUtensorMap)"],
        "gdn-sm80_mma_fused": [
            "void gpuopt::(anonymous namespace)::square_kernel(float const*, float*, long)",
            "nvjet_sgemm_f32_nn", "void gpuopt::gdn::gdn_resident_mix_kernel<F32>(A)",
            "nvjet_tf32_nn", "void gpuopt::gdn::gdn_mma_kernel<Tf32>(A)",
            "void gpuopt::(anonymous namespace)::gradient_terms_kernel(float const*)",
            "void gpuopt::gdn::gdn_mma_pair_kernel<Bwd>(A)"],
        "gdn-sm90_onepass_fused": [
            "void gpuopt::(anonymous namespace)::square_kernel(float const*, float*, long)",
            "nvjet_sgemm_f32_nn", "nvjet_tf32_nn",
            "void gpuopt::(anonymous namespace)::gradient_terms_kernel(float const*)",
            "void gpuopt::(anonymous namespace)::dx_finish_kernel(float const*)",
            "void gpuopt::gdn_onepass::gdn_onepass_bwd_kernel<false>(CUtensorMap)"],
        "sort": ["void bench::(anonymous namespace)::fill_keys_kernel(int*, long long)",
                 "void gpuopt::warp_bitonic_kernel<4, 32, 0>(gpuopt::sort::SortArgs)",
                 "void gpuopt::(anonymous namespace)::map_kernel<unsigned>(unsigned const*)", cub],
    }
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "jobs.tsv"), "w") as f:
            for name, names in jobs.items():
                synthetic_csv(os.path.join(work, name + ".csv"), names)
                f.write("%s\tok\t3\tmetrics\t--op x\n" % name)
        # A bench JSON of its own: the committed device results change with every run.
        bench_json = os.path.join(work, "bench.json")
        with open(bench_json, "w") as f:
            json.dump({"bars": [{"name": "gemm f64 4096x4096x4096: best own / cublas",
                                 "value": 0.909, "target": ">= 1.00", "pass": False,
                                 "note": "synthetic"}]}, f)
        md = summarize(work, bench_json)
    checks = [
        ("f64 own", "| metric | own: f64_mma_kernel<Cfg<2>> | vendor: sm90_xmma_gemm_f64f64"),
        ("f32 vendor after the reference", "| own: gemm_warptiled_cpasync_kernel<float, C> | "
         "vendor: ampere_sgemm_128x64_nn |"),
        ("bar value", "= 0.909 (target >= 1.00)"),
        ("stencil roof", "| own: stencil_sm90_zmarch_fwd_kernel<float, 4, C> | roof: "
         "axpy_vec4_blocktile_kernel<float> |"),
        ("gdn fwd f32", "| own: gemm_sm90_tma_wgmma_kernel<Fwd32> | own: gdn_split_gamma_kernel |"
         " own: all 2 kernels | vendor: square_kernel | vendor: nvjet_sgemm_f32_nn | vendor: "
         "forward_epilogue_kernel | vendor: all 3 kernels |"),
        ("gdn bwd f32 segment (forward tf32 had no new fused kernel: merged)",
         "| own: gemm_sm90_tma_wgmma_kernel<Bwd32> | own: gemm_sm90_tma_wgmma_kernel<BwdDx32> | "
         "own: all 2 kernels | vendor: nvjet_tf32_nn | vendor: gradient_terms_kernel |"),
        ("gdn fwd tf32 segment", "| own: gdn_mma_kernel<Tf32> | vendor: nvjet_tf32_nn |"),
        ("gdn bwd tf32: one segment, the 4 longest", "| own: gdn_onepass_bwd_kernel<false> | "
         "vendor: nvjet_sgemm_f32_nn | vendor: nvjet_tf32_nn | vendor: gradient_terms_kernel | "
         "vendor: dx_finish_kernel | vendor: all 5 kernels |"),
        ("sort vendor", "| own: warp_bitonic_kernel<4, 32, 0> | vendor: map_kernel<unsigned> | "
         "vendor: DeviceSegmentedSortKernelLarge<int, long> | vendor: all 2 kernels |"),
        ("duration in base units", "| duration | 2.0 us |"),
        ("stalls sorted, selected left out",
         "| math_pipe_throttle 11.32, wait 11.30, barrier 11.29, long_scoreboard 11.28 |"),
        ("helpers dropped", "fill_kernel<float>` |" not in md),
    ]
    bad = [name for name, want in checks if not (want is True or (want is not False and
                                                                  want in md))]
    if bad:
        sys.stdout.write(md)
        print("selftest FAILED: " + ", ".join(bad))
        return 1
    query = ('"dram__bytes_read","# of bytes"\nsm__throughput  x\n'
             "smsp__average_warps_issue_stalled_wait_per_issue_active  y\n")
    assert metrics_for(query_bases(query)) == [
            "gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
            "dram__bytes_read.sum", "launch__registers_per_thread",
            "launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic",
            "launch__block_size", "launch__grid_size", "launch__waves_per_multiprocessor",
            "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"]
    assert metrics_for(query_bases("no metrics here\n")) == []
    print("selftest passed: %d checks" % (len(checks) + 2))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("metrics")
    m.add_argument("--query", required=True)
    s = sub.add_parser("summarize")
    s.add_argument("--work", required=True)
    s.add_argument("--results")
    sub.add_parser("selftest")
    a = ap.parse_args()
    if a.cmd == "metrics":
        try:
            with open(a.query, errors="replace") as f:
                text = f.read()
        except OSError:
            text = ""
        print(",".join(metrics_for(query_bases(text))))
        return 0
    if a.cmd == "summarize":
        sys.stdout.write(summarize(a.work, a.results))
        return 0
    return selftest()


if __name__ == "__main__":
    sys.exit(main())
