"""SVG charts of one gpuopt-bench JSON: a ladder chart per op and one roofline chart.

chart_files() names the charts without drawing them (so the page can link charts that exist);
write_charts() draws them with matplotlib (Debian: python3-matplotlib), deterministically: fixed
SVG hash salt, no date, text kept as text (no embedded glyphs), simplified paths.
"""

import io
import os
import re

import perf_data as pd

ROOFLINE = "roofline"

OWN_COLOR = "#9ecae1"
AUTO_COLOR = "#3182bd"
VENDOR_COLOR = "#e6550d"
PEER_COLOR = "#bdbdbd"  # another library's row (torch.matmul)
ROOF_COLOR = "#222222"
OP_COLORS = {"axpy": "#1f77b4", "gemm": "#d62728", "reduce": "#2ca02c", "stencil": "#9467bd",
             "gdn": "#8c564b", "transpose": "#e377c2", "segmented_sort": "#7f7f7f"}
OP_MARKERS = {"axpy": "o", "gemm": "s", "reduce": "^", "stencil": "D", "gdn": "P"}


def matplotlib_pyplot():
    """matplotlib.pyplot set up for reproducible SVG, or None when matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    matplotlib.rcParams.update({
        "svg.hashsalt": "gpuopt-performance",
        "svg.fonttype": "none",
        "path.simplify": True,
        "font.family": "sans-serif",
        "font.sans-serif": ["DejaVu Sans"],
        "font.size": 8,
        "axes.titlesize": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
    })
    return plt


def ladder_panels(doc):
    """{op: [(dtype, rows)]}: the headline ladder of each dtype, grouped by op."""
    panels = {}
    for op, dtype, rows in pd.headline_groups(doc):
        panels.setdefault(op, []).append((dtype, rows))
    return panels


def chart_files(doc):
    """[(name, caption)] of the charts of doc, roofline first; file = <name>.svg."""
    out = [(ROOFLINE, "Roofline: every correct row of the run, arithmetic intensity against "
            "achieved TFLOP/s, with the copy roof and the fastest cuBLAS GEMM of each type")]
    for op, panels in ladder_panels(doc).items():
        out.append((op, "{} ladder ({})".format(op, ", ".join(d for d, _ in panels))))
    return out


def _shape_title(rows):
    first = rows[0]
    title = "{} {} {}".format(first.get("op"), first.get("dtype"), first.get("shape"))
    extra = [str(first[k]) for k in ("memory", "data")
             if first.get(k) and first[k] not in ("device", "random")]
    return title + (" (" + ", ".join(extra) + ")" if extra else "")


def _bar_label(r, value, tflops):
    if r.get("skipped"):
        return "skipped"
    if r.get("error") or value is None:
        return "ERROR"
    text = format(value, ".1f" if tflops else ".0f")
    if not r.get("correct"):
        text += " (WRONG)"
    if r.get("variant") == "auto" and r.get("ran_variant"):
        text += "  ran " + r["ran_variant"]
    return text


def _ladder_chart(plt, op, panels, doc):
    heights = [0.55 + 0.24 * len(rows) for _, rows in panels]
    fig, axes = plt.subplots(len(panels), 1, figsize=(7.2, sum(heights) + 0.3), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    copy_gbs = doc.get("roofs", {}).get("copy_gbs")
    for ax, (_, rows) in zip(axes[:, 0], panels):
        tflops = pd.uses_tflops(rows)
        values = [pd.rate(r, tflops) for r in rows]
        colors = [VENDOR_COLOR if r.get("is_vendor") else PEER_COLOR if r.get("is_peer") else
                  AUTO_COLOR if r.get("variant") == "auto" else OWN_COLOR for r in rows]
        ys = list(range(len(rows)))
        ax.barh(ys, [v or 0 for v in values], color=colors, height=0.72)
        ax.set_yticks(ys, [r.get("variant", "?") for r in rows])
        ax.invert_yaxis()
        top = max([v for v in values if v] + [1e-9])
        vendor = pd.vendor_row(rows)
        if tflops and vendor and pd.rate(vendor, True):
            ref, ref_text = pd.rate(vendor, True), "{} {:.1f} TFLOP/s".format(
                vendor.get("variant"), pd.rate(vendor, True))
        elif not tflops and pd.is_num(copy_gbs):
            ref, ref_text = copy_gbs, "copy roof {:.0f} GB/s".format(copy_gbs)
        else:
            ref = None
        if ref:
            ax.axvline(ref, color=ROOF_COLOR, linestyle="--", linewidth=0.9)
            ax.text(ref, -0.9, " " + ref_text, fontsize=7, va="bottom", ha="left")
            top = max(top, ref)
        for y, r, v in zip(ys, rows, values):
            ax.text((v or 0) + top * 0.01, y, _bar_label(r, v, tflops), va="center", fontsize=7)
        ax.set_xlim(0, top * 1.45)
        ax.set_ylim(len(rows) - 0.5, -1.3)
        ax.set_title(_shape_title(rows), loc="left")
        ax.set_xlabel("TFLOP/s" if tflops else "GB/s")
        ax.tick_params(axis="y", length=0)
    fig.tight_layout()
    return fig


def _roofline_chart(plt, doc):
    fig, ax = plt.subplots(figsize=(7.2, 4.8))
    points = {}
    for r in doc.get("results", []):
        p = pd.roofline_point(r)
        if p:
            points.setdefault(r.get("op"), []).append((p, bool(r.get("is_vendor"))))
    xs = [p[0] for pts in points.values() for p, _ in pts] or [1.0]
    ys = [p[1] for pts in points.values() for p, _ in pts] or [1.0]
    ceilings = pd.compute_ceilings(doc)
    x_lo, x_hi = min(xs) / 3, max(xs) * 3
    copy_gbs = doc.get("roofs", {}).get("copy_gbs")
    if pd.is_num(copy_gbs):
        bw = copy_gbs / 1000.0  # TFLOP/s per flop/byte
        top = max(list(ceilings.values()) + [max(ys)])
        ax.plot([x_lo, top / bw], [bw * x_lo, top], color=ROOF_COLOR, linestyle="--",
                linewidth=0.9)
        ax.text(x_lo * 1.1, bw * x_lo * 1.25, "copy roof {:.0f} GB/s".format(copy_gbs),
                rotation=0, fontsize=7)
    label_y = 0.0
    for dtype, peak in sorted(ceilings.items(), key=lambda kv: kv[1]):
        start = peak / (copy_gbs / 1000.0) if pd.is_num(copy_gbs) else x_lo
        ax.plot([start, x_hi], [peak, peak], color=ROOF_COLOR, linewidth=0.7, linestyle=":")
        label_y = max(peak, label_y * 1.2)  # close ceilings: labels stacked, not overlaid
        ax.text(x_hi, label_y, " cuBLAS {} {:.0f}".format(dtype, peak), fontsize=7, va="center")
    for op in sorted(points, key=pd.op_rank):
        own = [p for p, vendor in points[op] if not vendor]
        vendor = [p for p, vendor in points[op] if vendor]
        color, marker = OP_COLORS.get(op, "#555555"), OP_MARKERS.get(op, "o")
        if own:
            ax.scatter([p[0] for p in own], [p[1] for p in own], s=14, color=color,
                       marker=marker, label=op, linewidths=0)
        if vendor:
            ax.scatter([p[0] for p in vendor], [p[1] for p in vendor], s=22, marker=marker,
                       facecolors="none", edgecolors=color, linewidths=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi * 6)
    ax.minorticks_off()
    ax.set_xlabel("arithmetic intensity (flop / byte moved)")
    ax.set_ylabel("TFLOP/s")
    dev = " ".join(str(doc.get("device", {}).get("name", "")).split())
    ax.set_title("{}: every correct row (hollow: the vendor's rows)".format(dev), loc="left")
    ax.legend(loc="upper left", fontsize=7, frameon=False)
    ax.grid(True, which="major", linewidth=0.3, color="#cccccc")
    fig.tight_layout()
    return fig


def compact_svg(text):
    """matplotlib's SVG without indentation and with coordinates to 1/100 of a point."""
    text = re.sub(r"\n[ \t]+", "\n", text)
    return re.sub(r"(\d\.\d\d)\d+", r"\1", text)


def write_charts(plt, doc, out_dir):
    """Draws every chart of chart_files(doc) into out_dir; returns the paths written."""
    os.makedirs(out_dir, exist_ok=True)
    panels = ladder_panels(doc)
    written = []
    for name, _ in chart_files(doc):
        fig = _roofline_chart(plt, doc) if name == ROOFLINE else _ladder_chart(
            plt, name, panels[name], doc)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
        plt.close(fig)
        path = os.path.join(out_dir, name + ".svg")
        with open(path, "w", encoding="utf-8") as f:
            f.write(compact_svg(buf.getvalue()))
        written.append(path)
    return written
