#!/usr/bin/env python3
"""Generates docs/performance.md and its charts from the gpuopt-bench JSON files in bench/results/.

One part per file (one device each), first the overview: the device, the roofs, a summary of
each op's headline ladder, the bars, the charts (docs/images/<device>/*.svg: the roofline of
every row and one ladder chart per op), the library size and build time when the JSON has a
"build" object; then every row: a ladder table per op / dtype / shape (and memory / data where
they vary). The tables need the standard library only; the charts need matplotlib (Debian:
python3-matplotlib, under /usr/bin/python3). Without it the page is written with the charts
that already exist, and a note says that none were drawn.

    scripts/gen_performance.py                    # bench/results/*.json -> docs/performance.md
    scripts/gen_performance.py --results DIR --out FILE [--images DIR] [--no-charts]
    scripts/gen_performance.py --check            # exit 1 if docs/performance.md is out of date
"""

import argparse
import glob
import json
import os
import sys

import perf_charts
from perf_data import (auto_row, best_own, device_slug, group_key, headline_groups, is_num,
                       rate, uses_tflops, vendor_row)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fmt(v, spec, suffix=""):
    return format(v, spec) + suffix if is_num(v) else "-"


def cell(text):
    """Markdown table cell: no pipes or newlines."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return out


def correct_cell(r):
    if r.get("skipped"):
        return "skipped"
    if r.get("error"):
        return "ERROR"
    return "yes" if r.get("correct") else "**NO**"


def note_cell(r):
    notes = []
    if r.get("ran_variant") and (r.get("variant") == "auto" or r.get("calls", 1) > 1):
        notes.append("ran " + r["ran_variant"])
    if r.get("memory") == "compressible":
        notes.append("compressed" if r.get("compressed") else "NOT compressed")
    for key in ("mismatch", "error", "note"):
        if r.get(key):
            text = r[key]
            notes.append(text if len(text) <= 120 else text[:117] + "...")
    return "; ".join(notes)


def ladder(rows):
    """Markdown lines for one group of rows."""
    first = rows[0]
    title = "{} {} {}".format(first.get("op"), first.get("dtype"), first.get("shape"))
    extra = [k + " " + str(first[k]) for k in ("memory", "data") if first.get(k)]
    if extra:
        title += " (" + ", ".join(extra) + ")"
    lines = ["#### " + title, ""]
    if any(r.get("calls", 1) > 1 for r in rows):
        header = ["variant", "ms per sample", "us per call", "speedup", "correct", "rel_err", "note"]
        body = [[r.get("variant"), fmt(r.get("ms"), ".4f"), fmt(r.get("us_per_call"), ".3f"),
                 fmt(r.get("speedup_vs_stream"), ".2f", "x"), correct_cell(r),
                 fmt(r.get("rel_err"), ".1e"), note_cell(r)] for r in rows]
    else:
        use_tflops = any(is_num(r.get("tflops")) for r in rows)
        header = ["variant", "ms", "TFLOP/s" if use_tflops else "GB/s", "share of roof",
                  "vs vendor", "correct", "rel_err", "note"]
        body = []
        for r in rows:
            rate = fmt(r.get("tflops"), ".1f") if use_tflops else fmt(r.get("gbs"), ".0f")
            share = r.get("share_of_roof")
            body.append([r.get("variant"), fmt(r.get("ms"), ".4f"), rate,
                         fmt(share * 100 if is_num(share) else None, ".1f", "%"),
                         fmt(r.get("ratio_to_vendor"), ".2f", "x"), correct_cell(r),
                         fmt(r.get("rel_err"), ".1e"), note_cell(r)])
        vendors = {(r.get("vendor"), r.get("vendor_ms")) for r in rows if r.get("vendor")}
        if vendors:
            name, ms = sorted(vendors, key=str)[0]
            lines += ["Vendor: {} at {} ms in the same run.".format(name, fmt(ms, ".4f")), ""]
    return lines + table(header, body) + [""]


def gemm_ladder(rows):
    """Markdown lines for one GEMM table: TFLOP/s and the ratio to the vendor (the faster of
    cublas and cublaslt; torch.matmul rows are a peer's, not gpuopt's)."""
    first = rows[0]
    lines = ["#### gemm {} {} ({} in, {} out, compute {})".format(
        first.get("dtype"), first.get("shape"), first.get("a_type", "?"), first.get("c_type", "?"),
        first.get("compute", "?")), ""]
    vendors = {(r.get("vendor"), r.get("vendor_ms")) for r in rows if r.get("vendor")}
    if vendors:
        name, ms = sorted(vendors, key=str)[0]
        lines += ["Vendor: {} at {} ms in the same run.".format(name, fmt(ms, ".4f")), ""]
    header = ["variant", "ms", "TFLOP/s", "vs vendor", "correct", "rel_err", "note"]
    body = [[r.get("variant"), fmt(r.get("ms"), ".4f"), fmt(r.get("tflops"), ".1f"),
             fmt(r.get("ratio_to_vendor"), ".2f", "x"), correct_cell(r), fmt(r.get("rel_err"), ".1e"),
             note_cell(r)] for r in rows]
    return lines + table(header, body) + [""]


def stencil_ladder(rows):
    """Markdown lines for one stencil table: GB/s (one read + one write), MCells/s, roof share."""
    first = rows[0]
    lines = ["#### stencil {} {} ({}, {})".format(first.get("dtype"), first.get("shape"),
                                                  first.get("memory"), first.get("data")), ""]
    header = ["variant", "ms", "GB/s", "MCells/s", "share of copy roof", "correct", "note"]
    body = []
    for r in rows:
        ms, n = r.get("ms"), r.get("n")
        mcells = n / (ms * 1e3) if is_num(ms) and is_num(n) and ms > 0 else None
        share = r.get("share_of_roof")
        notes = [x for x in note_cell(r).split("; ") if x and not x.endswith("MCells/s")]
        body.append([r.get("variant"), fmt(ms, ".4f"), fmt(r.get("gbs"), ".0f"), fmt(mcells, ".0f"),
                     fmt(share * 100 if is_num(share) else None, ".1f", "%"), correct_cell(r),
                     "; ".join(notes)])
    return lines + table(header, body) + [""]


def gdn_section(rows):
    """Markdown lines for the GDN rows: one table, pass x mode x variant, ratio to composed."""
    lines = ["### GDN", "",
             "gpuopt_gdn_forward / gpuopt_gdn_backward, NCHW f32. composed = elementwise kernels + "
             "cuBLAS (the baseline); sm80_mma_fused (fused in results before its rename) = gpuopt's "
             "mma.sync tensor-core GEMM with the GDN arithmetic in "
             "the operand load and the epilogue (f32 mode: 3xTF32); sm90_wgmma_fused = the same "
             "fused forward pass on the sm_90a TMA + wgmma GEMM kernel; sm90_onepass_fused = the "
             "backward pass in one TMA + wgmma kernel per pixel tile, then the dgamma GEMM (the "
             "bar takes the fused-family variant auto runs). vs composed = composed ms / "
             "ms (the bar: >= 2.5). Each row is checked before timing against a host f64 reference "
             "over every element (tolerance 1e-5 f32, 5e-3 tf32, relative to each element's "
             "magnitude scale).", ""]
    header = ["pass and shape", "mode", "variant", "ms", "TFLOP/s", "GB/s", "vs composed",
              "correct", "rel_err", "note"]
    body = [[r.get("shape"), r.get("dtype"), r.get("variant"), fmt(r.get("ms"), ".4f"),
             fmt(r.get("tflops"), ".1f"), fmt(r.get("gbs"), ".0f"),
             fmt(r.get("ratio_to_vendor"), ".2f", "x"), correct_cell(r),
             fmt(r.get("rel_err"), ".1e"), note_cell(r)] for r in rows]
    return lines + table(header, body) + [""]


def transpose_ladder(rows):
    """Markdown lines for one transpose table: GB/s (read + write), copy roof share, vs cuBLAS."""
    first = rows[0]
    lines = ["#### transpose {} {}".format(first.get("dtype"), first.get("shape")), ""]
    vendors = {(r.get("vendor"), r.get("vendor_ms")) for r in rows if r.get("vendor")}
    if vendors:
        name, ms = sorted(vendors, key=str)[0]
        lines += ["Vendor: {} (geam) at {} ms in the same run.".format(name, fmt(ms, ".4f")), ""]
    header = ["variant", "ms", "GB/s", "of copy roof", "vs cuBLAS", "correct", "note"]
    body = []
    for r in rows:
        share = r.get("share_of_roof")
        body.append([r.get("variant"), fmt(r.get("ms"), ".4f"), fmt(r.get("gbs"), ".0f"),
                     fmt(share * 100 if is_num(share) else None, ".1f", "%"),
                     fmt(r.get("ratio_to_vendor"), ".2f", "x"), correct_cell(r), note_cell(r)])
    return lines + table(header, body) + [""]


def device_name(doc):
    return " ".join(str(doc.get("device", {}).get("name", "unknown device")).split())


def overview(path, doc, charts):
    """The device part: device, roofs, summary, bars, charts [(file, caption)], build."""
    rel = os.path.relpath(path, ROOT)
    dev = doc.get("device", {})
    command = doc.get("command", "")
    args = command.split(" ", 1)[1] if " " in command else ""
    kind = "partial run" if "--op" in command else "full run"
    lines = ["## {}: {} (git {})".format(device_name(doc), kind, doc.get("git", "?")), ""]
    lines.append("From `{}` (gpuopt {}, git {}, {}), command `gpuopt-bench {}`.".format(
        rel, doc.get("gpuopt_version", "?"), doc.get("git", "?"), doc.get("timestamp", "?"),
        args))
    lines.append("")
    mem = dev.get("memory")
    l2 = dev.get("l2")
    lines += table(["device", "cc", "SMs", "memory", "L2", "theoretical bandwidth", "driver",
                    "runtime"],
                   [[dev.get("name", "?"), dev.get("cc", "?"), dev.get("sm_count", "?"),
                     fmt(mem / 2**30 if is_num(mem) else None, ".1f", " GiB"),
                     fmt(l2 / 2**20 if is_num(l2) else None, ".0f", " MiB"),
                     fmt(dev.get("theoretical_bandwidth_gbs"), ".0f", " GB/s"),
                     dev.get("driver_version", "?"), dev.get("runtime_version", "?")]])
    lines.append("")

    roofs = doc.get("roofs", {})
    lines += ["### Roofs", ""]
    roof_rows = [["copy (device to device, read + write)", fmt(roofs.get("copy_gbs"), ".0f", " GB/s"),
                  roofs.get("copy_error") or ""]]
    for key, value in sorted(roofs.items()):
        if key.endswith("_gbs") and key != "copy_gbs":
            roof_rows.append([key[:-4], fmt(value, ".0f", " GB/s"), ""])
        elif key.endswith("_tflops"):
            roof_rows.append([key[:-7], fmt(value, ".1f", " TFLOP/s"), ""])
    lines += table(["roof", "measured", "note"], roof_rows) + [""]
    lines += summary(doc)
    lines += bars_table(doc.get("bars", []))
    lines += chart_links(charts)
    lines += build_sections(doc.get("build"))
    return lines


def summary(doc):
    """One row per op and type: its headline ladder's best own rung, the vendor, auto."""
    heads = headline_groups(doc)
    if not heads:
        return []
    copy_gbs = doc.get("roofs", {}).get("copy_gbs")
    lines = ["### Summary", "",
             "One ladder per op and type: the shape with the most rungs measured, on plain device "
             "memory and random data. best own = the fastest correct rung of gpuopt's own; own / "
             "vendor = its rate over the vendor's in the same run (above 1 is faster); of copy "
             "roof = its GB/s over the copy roof (GB/s ladders); auto ran = what automatic "
             "dispatch chose, at its rate. Every row is in the tables further down.", ""]
    body = []
    for op, dtype, rows in heads:
        tflops = uses_tflops(rows)
        unit, spec = ("TFLOP/s", ".1f") if tflops else ("GB/s", ".0f")
        own, vendor, auto = best_own(rows, tflops), vendor_row(rows), auto_row(rows)
        own_rate = rate(own, tflops) if own else None
        vendor_rate = rate(vendor, tflops) if vendor else None
        ratio = own_rate / vendor_rate if own_rate and vendor_rate else None
        share = (own.get("gbs") / copy_gbs if not tflops and own and is_num(own.get("gbs"))
                 and is_num(copy_gbs) and copy_gbs > 0 else None)
        auto_text = "-"
        if auto and (auto.get("ran_variant") or rate(auto, tflops)):
            auto_text = "{} ({})".format(auto.get("ran_variant") or "?",
                                         fmt(rate(auto, tflops), spec))
        body.append([op, dtype, rows[0].get("shape"), unit,
                     "{} ({})".format(own.get("variant"), fmt(own_rate, spec)) if own else "-",
                     "{} ({})".format(vendor.get("variant"), fmt(vendor_rate, spec))
                     if vendor else "-",
                     fmt(ratio, ".2f", "x"),
                     fmt(share * 100 if share is not None else None, ".0f", "%"), auto_text])
    return lines + table(["op", "type", "shape", "unit", "best own", "vendor", "own / vendor",
                          "of copy roof", "auto ran"], body) + [""]


def bars_table(bars):
    if not bars:
        return []
    passed = sum(1 for b in bars if b.get("pass"))
    lines = ["### Bars", "", "{} of {} bars pass.".format(passed, len(bars)), ""]
    lines += table(["bar", "value", "target", "pass", "note"],
                   [[b.get("name"), fmt(b.get("value"), ".3f"), b.get("target", ""),
                     "PASS" if b.get("pass") else "**FAIL**", b.get("note") or ""]
                    for b in bars])
    return lines + [""]


def chart_links(charts):
    """Markdown of the charts [(relative file, caption)] that exist."""
    if not charts:
        return []
    lines = ["### Charts", "",
             "Ladder charts: each rung's rate on the ladder of the summary; the vendor's bar in "
             "orange, auto's in dark blue, the dashed line the copy roof (GB/s) or the vendor's "
             "rate (TFLOP/s). Roofline: flops counted as the bench does for gemm and GDN, and as "
             "one multiply and one add per element (axpy), per point (stencil) or one operation "
             "per element (reduce); bytes are those the operation must move (gemm: A and B read, "
             "C written once). transpose and segmented_sort do no arithmetic and appear in their "
             "ladder charts only.", ""]
    for rel, caption in charts:
        lines += ["![{}]({})".format(caption, rel), ""]
    return lines


def build_sections(build):
    """Library size per architecture and build time, from the JSON's optional "build" object:
    {"library_bytes": {arch: bytes}, "build_seconds": {build: s}, "note": text}."""
    if not isinstance(build, dict):
        return []
    lines = []
    sizes = build.get("library_bytes")
    if isinstance(sizes, dict) and sizes:
        lines += ["### Library size per architecture", ""]
        lines += table(["GPUOPT_CUDA_ARCHITECTURES", "libgpuopt.so", "bytes"],
                       [[arch, fmt(b / 2**20 if is_num(b) else None, ".1f", " MiB"),
                         fmt(b, ".0f")] for arch, b in sizes.items()])
        lines.append("")
    seconds = build.get("build_seconds")
    if isinstance(seconds, dict) and seconds:
        lines += ["### Build time", ""]
        lines += table(["build", "time", "seconds"],
                       [[what, "{}:{:02d}".format(int(t) // 60, int(t) % 60) if is_num(t) else "-",
                         fmt(t, ".0f")] for what, t in seconds.items()])
        lines.append("")
    if lines and build.get("note"):
        lines += [str(build["note"]), ""]
    return lines


def every_row(doc):
    """The complete tables of one file."""
    lines = ["## {} (git {}): every row".format(device_name(doc), doc.get("git", "?")), ""]
    groups = {}
    gemm_groups = {}
    stencil_groups = {}
    transpose_groups = {}
    sort_groups = {}
    by_op = {"gemm": gemm_groups, "stencil": stencil_groups, "transpose": transpose_groups,
             "segmented_sort": sort_groups}
    gdn_rows = [r for r in doc.get("results", []) if r.get("op") == "gdn"]
    for r in doc.get("results", []):
        if r.get("op") == "gdn":
            continue
        by_op.get(r.get("op"), groups).setdefault(group_key(r), []).append(r)
    if groups:
        lines += ["### Ladders", "",
                  "ms is the median of the timed samples (CUDA events, after warm-up); GB/s counts "
                  "the bytes an operation must move; share of roof is GB/s over the copy roof "
                  "of the device (its Roofs); vs vendor is vendor ms / ms (above 1 is faster "
                  "than the vendor).", ""]
        for rows in groups.values():
            lines += ladder(rows)
    if gemm_groups:
        lines += ["### GEMM ladders", "",
                  "C = A B, column-major, NN, beta = 0 on NaN-poisoned C. ms is the median of the "
                  "timed samples (CUDA events, after warm-up); TFLOP/s = 2 m n k batch / time; vs "
                  "vendor is the vendor's ms / ms in the same run (above 1 is faster), the vendor "
                  "being the faster of the cublas and cublaslt rows where both ran. Each row is "
                  "checked before timing on fresh inputs against cuBLAS in f64 on the same inputs: "
                  "relative Frobenius error under 1e-12 (f64), 1e-5 (f32), 5e-3 (tf32), 2e-2 "
                  "(bf16), no NaN. A torch.matmul row, where torch was importable on the machine, "
                  "is PyTorch timed the same way by bench/torch_matmul.py (not checked).", ""]
        for rows in gemm_groups.values():
            lines += gemm_ladder(rows)
    if stencil_groups:
        lines += ["### Stencil ladders", "",
                  "Star stencils, f32, zero boundary. GB/s counts one read and one write of the "
                  "grid; MCells/s = cells / time; share of roof is GB/s over the copy roof of "
                  "the device. Each row is checked before timing at 20000 random points and the corners "
                  "against an f64 host reference.", ""]
        for rows in stencil_groups.values():
            lines += stencil_ladder(rows)
    if gdn_rows:
        lines += gdn_section(gdn_rows)
    if transpose_groups:
        lines += ["### Transpose ladders", "",
                  "B = A^T, column-major, out of place, random normal-number bit patterns; every "
                  "row is checked bit for bit on the device before timing. GB/s counts read + "
                  "write (2 x the operand); of copy roof is GB/s over the copy roof of the device; "
                  "vs cuBLAS is cublasSgeam / cublasDgeam ms / ms in the same run (above 1 is faster; bf16 has no vendor "
                  "row).", ""]
        for rows in transpose_groups.values():
            lines += transpose_ladder(rows)
    if sort_groups:
        lines += ["### Segmented sort", "",
                  "Stable sort of every segment (i32 keys, ascending). GB/s counts the keys read "
                  "and written (8 bytes a key); vs cub is cub ms / ms in the same run. Each row is "
                  "checked on 64 segments against std::sort before timing.", ""]
        for rows in sort_groups.values():
            lines += ladder(rows)
    return lines


def load(paths):
    """[(path, doc)]: full runs (no --op) first, then partial reruns; newest first within each
    kind (ISO timestamps sort as text; the stable sort keeps that order inside each kind)."""
    docs = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            docs.append((path, json.load(f)))
    docs.sort(key=lambda pd: pd[1].get("timestamp", ""), reverse=True)
    docs.sort(key=lambda pd: "--op" in pd[1].get("command", ""))
    return docs


def render(docs, charts):
    """The page; charts: {path: [(file relative to the page, caption)]}."""
    lines = ["# Performance", "",
             "<!-- Generated by scripts/gen_performance.py from bench/results/*.json; do not edit. "
             "Regenerate with: /usr/bin/python3 scripts/gen_performance.py -->", ""]
    if not docs:
        lines += ["No results yet: run `gpuopt-bench --json bench/results/<device>.json` on a GPU "
                  "and regenerate this page.", ""]
        return "\n".join(lines)
    lines += ["Every rung of every operation, timed by `gpuopt-bench` against the vendor routine "
              "and the copy roof measured in the same run on one GPU (bench/README.md). First, "
              "per device: the device and its roofs, a summary, the bars and the charts; then "
              "every row, one table per ladder.", ""]
    for path, doc in docs:
        lines += overview(path, doc, charts.get(path, []))
    for _, doc in docs:
        lines += every_row(doc)
    return "\n".join(lines).rstrip("\n") + "\n"


def charts_of(docs, out, images, plt):
    """Draws the charts (when plt) and returns {path: [(file relative to out, caption)]} of
    those that exist. Charts of a device that are no longer made are removed."""
    result = {}
    for path, doc in docs:
        folder = os.path.join(images, device_slug(path))
        planned = perf_charts.chart_files(doc)
        if plt:
            perf_charts.write_charts(plt, doc, folder)
            names = {name + ".svg" for name, _ in planned}
            for old in glob.glob(os.path.join(folder, "*.svg")):
                if os.path.basename(old) not in names:
                    os.remove(old)
        page_dir = os.path.dirname(os.path.abspath(out))
        result[path] = [(os.path.relpath(os.path.join(folder, name + ".svg"),
                                         page_dir).replace(os.sep, "/"), caption)
                        for name, caption in planned
                        if os.path.exists(os.path.join(folder, name + ".svg"))]
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=os.path.join(ROOT, "bench", "results"),
                    help="directory of gpuopt-bench JSON files (default bench/results)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"),
                    help="Markdown file to write (default docs/performance.md)")
    ap.add_argument("--images", default=os.path.join(ROOT, "docs", "images"),
                    help="folder of the charts, one subfolder per device (default docs/images)")
    ap.add_argument("--no-charts", action="store_true",
                    help="draw no charts (link those that exist)")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 when the page differs from what would be written")
    args = ap.parse_args()

    paths = sorted(glob.glob(os.path.join(args.results, "*.json")))
    plt = None
    if not args.check and not args.no_charts:
        plt = perf_charts.matplotlib_pyplot()
        if plt is None:
            print("gen_performance: matplotlib not found (Debian: apt-get install "
                  "python3-matplotlib, then run /usr/bin/python3): charts skipped, the page "
                  "links those that exist", file=sys.stderr)
    try:
        docs = load(paths)
        text = render(docs, charts_of(docs, args.out, args.images, plt))
    except (OSError, ValueError) as e:
        print("gen_performance: " + str(e), file=sys.stderr)
        return 1
    if args.check:
        try:
            with open(args.out, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            print("gen_performance: {} is out of date; run scripts/gen_performance.py".format(
                args.out), file=sys.stderr)
            return 1
        return 0
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print("gen_performance: wrote {} from {} file(s){}".format(
        args.out, len(paths), ", charts in " + args.images if plt else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
