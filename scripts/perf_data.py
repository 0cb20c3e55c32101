"""The figures docs/performance.md and its charts are made of, read from one gpuopt-bench JSON.

Standard library only; used by gen_performance.py (the tables) and perf_charts.py (the charts).
"""

import math
import os
import re

# ops whose rows are not a ladder of one problem (launch-bound: us per call, no roof)
NOT_LADDERS = ("axpy_x1000", "latency")

# Order of the ops on the page and in the charts (others follow, alphabetically).
OP_ORDER = ("axpy", "gemm", "reduce", "stencil", "gdn", "transpose", "segmented_sort")

# Bytes per element of the type names the bench writes.
TYPE_BYTES = {"f64": 8, "f32": 4, "tf32": 4, "bf16": 2, "f16": 2, "i32": 4, "i64": 8}


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def device_slug(path):
    """docs/images/<slug>/: the JSON file's name without .json ("nvidia-h100")."""
    return re.sub(r"[^a-z0-9_.-]+", "-", os.path.splitext(os.path.basename(path))[0].lower())


def group_key(r):
    return (r.get("op"), r.get("dtype"), r.get("shape"), r.get("memory"), r.get("data"))


def groups_of(doc):
    """The rows of doc grouped by (op, dtype, shape, memory, data), in the order of the run."""
    groups = {}
    for r in doc.get("results", []):
        groups.setdefault(group_key(r), []).append(r)
    return groups


def op_rank(op):
    return (OP_ORDER.index(op), "") if op in OP_ORDER else (len(OP_ORDER), str(op))


def uses_tflops(rows):
    return any(is_num(r.get("tflops")) for r in rows)


def rate(r, tflops):
    """The row's TFLOP/s (tflops) or GB/s, or None when it has none (skipped, failed)."""
    v = r.get("tflops" if tflops else "gbs")
    return v if is_num(v) and v > 0 else None


def measured(rows, tflops):
    return [r for r in rows if rate(r, tflops) is not None and not r.get("skipped")]


def work(rows):
    """Size of a group's problem: its flops, else its bytes (to rank groups of one op)."""
    r = rows[0]
    flops = r.get("flops")
    return flops if is_num(flops) and flops > 0 else (r.get("bytes") or 0)


def headline_groups(doc):
    """One group per (op, dtype): the ladder to chart and summarize.

    Plain device memory and random data where the op has them; among those, the group with the
    most measured rungs (the full ladder), then the largest problem, then the first run.
    Returns [(op, dtype, rows)] in page order.
    """
    best = {}
    for order, (key, rows) in enumerate(groups_of(doc).items()):
        op, dtype, _, memory, data = key
        if op in NOT_LADDERS:
            continue
        tflops = uses_tflops(rows)
        score = (memory in (None, "device"), data in (None, "random"),
                 len(measured(rows, tflops)), work(rows), -order)
        if (op, dtype) not in best or score > best[(op, dtype)][0]:
            best[(op, dtype)] = (score, rows)
    keys = sorted(best, key=lambda k: (op_rank(k[0]), k[1]))
    return [(op, dtype, best[(op, dtype)][1]) for op, dtype in keys]


def vendor_row(rows):
    """The group's vendor: its fastest correct vendor row (gemm has two, cublas and cublaslt),
    else its first vendor row, or None."""
    vendors = [r for r in rows if r.get("is_vendor")]
    timed = [r for r in vendors
             if r.get("correct") and not r.get("error") and is_num(r.get("ms")) and r["ms"] > 0]
    if timed:
        return min(timed, key=lambda r: r["ms"])
    return vendors[0] if vendors else None


def auto_row(rows):
    return next((r for r in rows if r.get("variant") == "auto"), None)


def best_own(rows, tflops):
    """The fastest correct forced row that is neither the vendor's nor a peer's, or None."""
    own = [r for r in measured(rows, tflops)
           if not r.get("is_vendor") and not r.get("is_peer") and r.get("variant") != "auto"
           and r.get("correct")]
    return max(own, key=lambda r: rate(r, tflops)) if own else None


# Floating-point operations per element of the ops whose rows carry no flop count, as the
# roofline chart counts them: axpy a multiply and an add, reduce one add (or compare), a star
# stencil a multiply and an add per point. transpose and segmented_sort do no arithmetic.
def _stencil_flops_per_cell(shape):
    m = re.match(r"\s*(\d+(?:x\d+)+)\s+r=(\d+)", shape or "")
    if not m:
        return None
    dims = len(m.group(1).split("x"))
    return 2 * (2 * dims * int(m.group(2)) + 1)


def row_flops(r):
    """Floating-point operations of one operation of the row, or None (no arithmetic)."""
    if is_num(r.get("flops")) and r["flops"] > 0:
        return r["flops"]
    if is_num(r.get("tflops")) and is_num(r.get("ms")):
        return r["tflops"] * 1e9 * r["ms"]
    n, op = r.get("n"), r.get("op")
    if not is_num(n):
        return None
    if op == "axpy":
        return 2.0 * n
    if op == "reduce":
        return float(n)
    if op == "stencil":
        per_cell = _stencil_flops_per_cell(r.get("shape"))
        return per_cell * n if per_cell else None
    return None


def row_bytes(r):
    """Bytes one operation must move: the row's count, or for gemm A and B read and C written."""
    if is_num(r.get("bytes")) and r["bytes"] > 0:
        return r["bytes"]
    if r.get("op") == "gemm":
        m, n, k, batch = (r.get(x) for x in ("m", "n", "k", "batch"))
        sa, sc = TYPE_BYTES.get(r.get("a_type")), TYPE_BYTES.get(r.get("c_type"))
        if all(is_num(v) and v > 0 for v in (m, n, k)) and sa and sc:
            batch = batch if is_num(batch) and batch > 0 else 1
            return float(batch) * ((m * k + k * n) * sa + m * n * sc)
    return None


def roofline_point(r):
    """(arithmetic intensity in flop/byte, achieved TFLOP/s) of a measured row, or None."""
    if r.get("skipped") or not r.get("correct") or not is_num(r.get("ms")) or r["ms"] <= 0:
        return None
    if r.get("is_peer"):  # another library (torch.matmul): not a point of gpuopt's
        return None
    if r.get("op") in NOT_LADDERS:
        return None
    flops, nbytes = row_flops(r), row_bytes(r)
    if not flops or not nbytes:
        return None
    return flops / nbytes, flops / (r["ms"] * 1e9)


def compute_ceilings(doc):
    """{compute type: best vendor GEMM TFLOP/s of the run}: the measured compute ceilings."""
    out = {}
    for r in doc.get("results", []):
        if r.get("op") == "gemm" and r.get("is_vendor") and is_num(r.get("tflops")):
            out[r.get("dtype")] = max(out.get(r.get("dtype"), 0.0), r["tflops"])
    return out
