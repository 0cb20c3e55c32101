#!/usr/bin/env python3
"""Times torch.matmul on the gemm rows' problems for gpuopt-bench (its torch.matmul peer rows).

gpuopt-bench runs this with the Python of GPUOPT_BENCH_PYTHON (default python3) and merges what
it prints: one JSON object on stdout,

    {"torch": "2.5.1", "cuda": "12.4", "device": "NVIDIA H100 80GB HBM3",
     "cases": [{"case": "f64:4096:4096:4096:1:f64:f64:f64", "ms": 2.47, "ms_min": 2.46,
                "ms_max": 2.49, "repeats": 20, "inner": 1, "note": "..."}, ...]}

or {"error": "..."} (torch not importable, no CUDA device), exit status 0 either way; a case
torch cannot run carries "error" instead of the times. A case is
name:m:n:k:batch:a_type:c_type:compute (a_type, c_type: f64 f32 bf16 f16; compute: f64 f32
tf32): C = A B, column-major in gpuopt, which torch computes as the row-major C^T = B^T A^T: the
same cuBLAS call (NN, m and n swapped), on contiguous tensors and a preallocated output.

The settings are torch's defaults for the type: f32 exact with
torch.backends.cuda.matmul.allow_tf32 = False (torch's default), tf32 with True; bf16 with
reduced-precision reductions allowed (torch's default). bf16 in, f32 out needs torch.mm's
out_dtype (torch >= 2.8); older torch times bf16 out and says so in the note.

Timing is gpuopt-bench's for a gemm row (bench/suite_gemm.cpp time_row, bench/timer.cpp): one
untimed call, a probe call t1, min(warmup - 1, 100 ms / t1) warm-up calls, then back-to-back
samples of inner = clamp(ceil(0.5 ms / t1), 1, 64) calls each between two CUDA events, as many
as fit one second (at most --repeats), the median per call reported. Inputs are sign * [1, 2),
like the bench's, drawn in the operand's own precision (f64 inputs with full 52-bit mantissas,
as the bench's: the f64 tensor cores draw less power on f32-rounded values and, power-capped,
ran them faster, 17.8 vs 19.6-22.5 ms at 8192^3 on an H100); no L2 flush (the bench does none:
A and B of the default shapes exceed L2).
"""

import argparse
import json
import math
import sys

TYPES = ("f64", "f32", "bf16", "f16")
COMPUTES = ("f64", "f32", "tf32")
ONCE_MS = 2000.0
ROW_BUDGET_MS = 1000.0
WARM_BUDGET_MS = 100.0
MIN_SAMPLE_MS = 0.5
MAX_INNER = 64


def parse_case(text):
    """(name, m, n, k, batch, a_type, c_type, compute) of a case string; ValueError if malformed."""
    parts = text.split(":")
    if len(parts) != 8:
        raise ValueError("case {!r}: expected name:m:n:k:batch:a_type:c_type:compute".format(text))
    name, dims, (a_type, c_type, compute) = parts[0], parts[1:5], parts[5:]
    m, n, k, batch = (int(x) for x in dims)
    if min(m, n, k, batch) < 1:
        raise ValueError("case {!r}: m, n, k and batch must be >= 1".format(text))
    if a_type not in TYPES or c_type not in TYPES or compute not in COMPUTES:
        raise ValueError("case {!r}: unknown type or compute".format(text))
    return name, m, n, k, batch, a_type, c_type, compute


def schedule(t1_ms, warmup, repeats):
    """(warm-up calls, calls per sample, samples) after a probe call of t1_ms (time_row's rule)."""
    t1 = max(t1_ms, 1e-3)
    extra = min(max(0, warmup - 1), int(WARM_BUDGET_MS / t1))
    inner = min(max(int(math.ceil(MIN_SAMPLE_MS / t1)), 1), MAX_INNER)
    fit = math.floor(ROW_BUDGET_MS / (t1 * inner))
    samples = int(min(max(fit, 1), max(1, repeats)))
    return extra, inner, samples


def median(values):
    v = sorted(values)
    mid = len(v) // 2
    return v[mid] if len(v) % 2 else 0.5 * (v[mid - 1] + v[mid])


def time_case(torch, case, warmup, repeats):
    name, m, n, k, batch, a_type, c_type, compute = case
    dtype = {"f64": torch.float64, "f32": torch.float32, "bf16": torch.bfloat16,
             "f16": torch.float16}
    note = []
    torch.backends.cuda.matmul.allow_tf32 = compute == "tf32"
    out_dtype = dtype[c_type]
    mixed = a_type != c_type
    if mixed:
        try:  # the call below, on a small problem
            small = torch.ones((2, 2, 2) if batch > 1 else (2, 2), device="cuda",
                               dtype=dtype[a_type])
            mm = torch.bmm if batch > 1 else torch.mm
            mm(small, small, out_dtype=out_dtype,
               out=torch.empty(small.shape, device="cuda", dtype=out_dtype))
        except (TypeError, RuntimeError) as e:
            out_dtype = dtype[a_type]
            mixed = False
            note.append("{} out: this torch has no torch.mm out_dtype ({})".format(
                a_type, str(e).splitlines()[0][:80]))

    def operand(rows, cols):
        shape = (batch, rows, cols) if batch > 1 else (rows, cols)
        draw = torch.float64 if a_type == "f64" else torch.float32  # full mantissas
        x = torch.empty(shape, device="cuda", dtype=draw).uniform_(1.0, 2.0)
        sign = torch.randint(0, 2, shape, device="cuda", dtype=torch.int8).to(draw) * 2 - 1
        return (x * sign).to(dtype[a_type]).contiguous()

    # gpuopt's column-major A (m x k), B (k x n), C (m x n) are torch's row-major A^T, B^T, C^T.
    at, bt = operand(k, m), operand(n, k)
    ct = torch.empty((batch, n, m) if batch > 1 else (n, m), device="cuda", dtype=out_dtype)
    if mixed:
        mm = torch.bmm if batch > 1 else torch.mm
        def call():
            mm(bt, at, out_dtype=out_dtype, out=ct)
        note.append("torch.{}(out_dtype={})".format(mm.__name__, c_type))
    else:
        def call():
            torch.matmul(bt, at, out=ct)
    note.append("allow_tf32={}".format(torch.backends.cuda.matmul.allow_tf32))

    def timed(calls):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            call()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) / calls

    first = timed(1)
    if first > ONCE_MS:
        return {"ms": first, "ms_min": first, "ms_max": first, "repeats": 1, "inner": 1,
                "note": "; ".join(note + ["timed once (over 2 s)"])}
    t1 = timed(1)
    extra, inner, samples = schedule(t1, warmup, repeats)
    for _ in range(extra):
        call()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(samples)]
    for start, stop in events:
        start.record()
        for _ in range(inner):
            call()
        stop.record()
    torch.cuda.synchronize()
    per_call = [a.elapsed_time(b) / inner for a, b in events]
    return {"ms": median(per_call), "ms_min": min(per_call), "ms_max": max(per_call),
            "repeats": samples, "inner": inner, "note": "; ".join(note)}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args(argv)
    try:
        cases = [(text, parse_case(text)) for text in args.cases]
    except ValueError as e:
        print(json.dumps({"error": str(e)}))
        return 0
    try:
        import torch
    except Exception as e:  # ImportError, or a broken install
        print(json.dumps({"error": "torch is not importable: {}".format(e)}))
        return 0
    if not torch.cuda.is_available():
        print(json.dumps({"error": "torch {} sees no CUDA device".format(torch.__version__)}))
        return 0
    torch.cuda.set_device(args.device)
    torch.manual_seed(0x5eed)
    out = {"torch": torch.__version__, "cuda": torch.version.cuda or "",
           "device": torch.cuda.get_device_name(args.device), "cases": []}
    for text, case in cases:
        entry = {"case": text}
        try:
            entry.update(time_case(torch, case, args.warmup, args.repeats))
        except Exception as e:  # out of memory, unsupported type: the row records it
            entry["error"] = "{}: {}".format(type(e).__name__, str(e).splitlines()[0][:200])
        torch.cuda.empty_cache()
        out["cases"].append(entry)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
