#!/usr/bin/env python3
"""Times torch.matmul on the gemm rows' problems for gpuopt-bench (its torch.matmul peer rows),
interleaved in this one process with gpuopt's auto GEMM on the same tensors.

gpuopt-bench runs this with the Python of GPUOPT_BENCH_PYTHON (default python3), passing the
gpuopt binding's directory (--gpuopt-python) and the libgpuopt it runs itself (--gpuopt-library),
and merges what it prints: one JSON object on stdout,

    {"torch": "2.5.1", "cuda": "12.4", "device": "NVIDIA H100 80GB HBM3",
     "gpuopt": "0.1.0 ...", "gpuopt_library": "/.../libgpuopt.so.0",
     "cases": [{"case": "f64:4096:4096:4096:1:f64:f64:f64", "method": "interleaved",
                "ms": 2.47, "ms_min": 2.46, "ms_max": 2.49, "repeats": 20, "inner": 1,
                "gpuopt_ms": 2.45, "gpuopt_ms_min": 2.44, "gpuopt_ms_max": 2.47,
                "gpuopt_variant": "cublas", "gpuopt_rel_err": 1e-16, "gpuopt_rel_bound": 1e-10,
                "note": "..."}, ...]}

or {"error": "..."} (torch not importable, no CUDA device), exit status 0 either way; a case
torch cannot run carries "error" instead of the times. A case is
name:m:n:k:batch:a_type:c_type:compute (a_type, c_type: f64 f32 bf16 f16; compute: f64 f32
tf32): C = A B, column-major in gpuopt, which torch computes as the row-major C^T = B^T A^T: the
same cuBLAS call (NN, m and n swapped), on contiguous tensors and a preallocated output.

Why in one process: the bench used to divide this script's torch time by its own auto row, timed
in another process seconds to minutes earlier; on an H100 two such timings drift 5-8 % apart
(clocks, power state, the f64 tensor cores' data-dependent clocks) even where auto runs the very
cuBLAS call torch does. So each case runs gpuopt_gemm (the bench's auto row: same descriptor,
types and compute mode, automatic dispatch, the bench's tuning cache if --tune-cache) through
the gpuopt Python binding on torch.cuda.current_stream(), on torch's own input tensors, and the
two are timed in alternation ("method": "interleaved", time_interleaved). gpuopt's result is
checked against torch's first (max|C_gpuopt - C_torch| / max|C_torch| within tolerance()): a
wrong result is reported ("gpuopt_wrong": true, "gpuopt_error") and never timed. Where the
binding cannot be imported or gpuopt fails on a case, torch is timed alone as before ("method":
"standalone", "gpuopt_error" says why, per case or for the whole run).

The settings are torch's defaults for the type: f32 exact with
torch.backends.cuda.matmul.allow_tf32 = False (torch's default) and gpuopt's GPUOPT_COMPUTE_F32,
tf32 with True and GPUOPT_COMPUTE_TF32; bf16 with reduced-precision reductions allowed (torch's
default). bf16 in, f32 out needs torch.mm's out_dtype (torch >= 2.8); older torch times bf16 out
and says so in the note (gpuopt still writes the case's f32 out).

Timing follows gpuopt-bench's for a gemm row (bench/suite_gemm.cpp time_row, bench/timer.cpp),
and interleaved, its re-timing's warm-up of at least 100 ms at each turn (PAIR_WARM_MS):
one untimed call, a probe call t1, min(warmup - 1, 100 ms / t1) warm-up calls, then samples of
inner = clamp(ceil(0.5 ms / t1), 1, 64) back-to-back calls each between two CUDA events, as
many as fit one second (at most --repeats), the median per call reported. Interleaved, t1 is the
slower side's, and each round holds one sample of each side, the side going first alternating
(torch, gpuopt; gpuopt, torch; ...), at least 2 rounds. Inputs are sign * [1, 2), like the
bench's, drawn in the operand's own precision (f64 inputs with full 52-bit mantissas, as the
bench's: the f64 tensor cores draw less power on f32-rounded values and, power-capped, ran them
faster, 17.8 vs 19.6-22.5 ms at 8192^3 on an H100); no L2 flush (the bench does none: A and B of
the default shapes exceed L2).
"""

import argparse
import json
import math
import os
import sys

TYPES = ("f64", "f32", "bf16", "f16")
COMPUTES = ("f64", "f32", "tf32")
ONCE_MS = 2000.0
ROW_BUDGET_MS = 1000.0
WARM_BUDGET_MS = 100.0
MIN_SAMPLE_MS = 0.5
MAX_INNER = 64
# Each side's turn in the interleave starts with untimed calls lasting at least PAIR_WARM_MS (at
# least one, at most MAX_PAIR_WARMUP), as gpuopt-bench's gemm re-timing (kPairWarmMs): large GEMMs
# run at the board's power cap, and after a switch the clock takes 25-50 ms to follow the new
# kernel's power, so without it each side was timed at the clock the other left.
PAIR_WARM_MS = 100.0
MAX_PAIR_WARMUP = 4096


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


def tolerance(a_type, c_type, compute):
    """Bound on max|C_gpuopt - C_torch| / max|C_torch| for a case: both compute the same product
    of the same inputs, so they differ by accumulation order (and, in tf32, input rounding) and
    the output's rounding; a wrong result (a transposed operand, garbage) is off by ~1."""
    if c_type in ("bf16", "f16"):
        return 1e-2  # an ulp of the output is 2^-8 (bf16) of the element
    if compute == "f64":
        return 1e-10
    if compute == "tf32":
        return 1e-2  # inputs rounded to 10-bit mantissas, maybe differently by each side
    if a_type in ("bf16", "f16"):
        return 1e-3  # exact products, f32 sums in different orders
    return 1e-4  # f32 exact


def setup_case(torch, case):
    """The case's operands and torch's call: (call, at, bt, ct, out type name, notes)."""
    name, m, n, k, batch, a_type, c_type, compute = case
    dtype = {"f64": torch.float64, "f32": torch.float32, "bf16": torch.bfloat16,
             "f16": torch.float16}
    note = []
    torch.backends.cuda.matmul.allow_tf32 = compute == "tf32"
    out_type = c_type
    mixed = a_type != c_type
    if mixed:
        try:  # the call below, on a small problem
            small = torch.ones((2, 2, 2) if batch > 1 else (2, 2), device="cuda",
                               dtype=dtype[a_type])
            mm = torch.bmm if batch > 1 else torch.mm
            mm(small, small, out_dtype=dtype[c_type],
               out=torch.empty(small.shape, device="cuda", dtype=dtype[c_type]))
        except (TypeError, RuntimeError) as e:
            out_type = a_type
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
    ct = torch.empty((batch, n, m) if batch > 1 else (n, m), device="cuda",
                     dtype=dtype[out_type])
    if mixed:
        mm = torch.bmm if batch > 1 else torch.mm
        out_dtype = dtype[c_type]

        def call():
            mm(bt, at, out_dtype=out_dtype, out=ct)
        note.append("torch.{}(out_dtype={})".format(mm.__name__, c_type))
    else:
        def call():
            torch.matmul(bt, at, out=ct)
    note.append("allow_tf32={}".format(torch.backends.cuda.matmul.allow_tf32))
    return call, at, bt, ct, out_type, note


def gemm_desc(gpuopt, case):
    """The GemmDesc of the bench's auto row of the case (bench/suite_gemm.cpp make_desc)."""
    name, m, n, k, batch, a_type, c_type, compute = case
    code = {"f64": gpuopt.GPUOPT_DTYPE_F64, "f32": gpuopt.GPUOPT_DTYPE_F32,
            "bf16": gpuopt.GPUOPT_DTYPE_BF16, "f16": gpuopt.GPUOPT_DTYPE_F16}
    comp = {"f64": gpuopt.GPUOPT_COMPUTE_F64, "f32": gpuopt.GPUOPT_COMPUTE_F32,
            "tf32": gpuopt.GPUOPT_COMPUTE_TF32}
    return gpuopt.GemmDesc(trans_a=gpuopt.GPUOPT_TRANS_N, trans_b=gpuopt.GPUOPT_TRANS_N, m=m, n=n,
                           k=k, alpha=1.0, beta=0.0, a_type=code[a_type], c_type=code[c_type],
                           compute=comp[compute], lda=m, ldb=k, ldc=m, batch_count=batch,
                           stride_a=m * k, stride_b=k * n, stride_c=m * n)


def events_ms(events, inner):
    return [a.elapsed_time(b) / inner for a, b in events]


def summary(per_call, inner):
    return {"ms": median(per_call), "ms_min": min(per_call), "ms_max": max(per_call),
            "repeats": len(per_call), "inner": inner}


def timed_once(torch, call):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    call()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop)


def time_alone(torch, call, warmup, repeats):
    """torch alone: gpuopt-bench's time_row rule (the module's docstring)."""
    first = timed_once(torch, call)
    if first > ONCE_MS:
        return dict(summary([first], 1), note="timed once (over 2 s)")
    extra, inner, samples = schedule(timed_once(torch, call), warmup, repeats)
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
    return summary(events_ms(events, inner), inner)


def calls_lasting(span_ms, ms_per_call, max_calls):
    """Calls of ms_per_call each that last at least span_ms: ceil(span / per call), at least 1
    and at most max_calls (bench/call_count.hpp's rule)."""
    n = math.ceil(span_ms / max(ms_per_call, 1e-4))
    return int(min(max(n, 1), max(max_calls, 1)))


def interleave_order(rounds, sides=2):
    """The sides' order in each round: 0 1, 1 0, 0 1, ... (which goes first alternates)."""
    return [tuple(range(sides)) if r % 2 == 0 else tuple(reversed(range(sides)))
            for r in range(rounds)]


def time_interleaved(torch, calls, warmup, repeats):
    """[summary] per call of calls (torch's, gpuopt's), timed in alternation on one stream: the
    schedule of the slower one's probe call (time_row's rule), then rounds in which each side
    runs untimed calls lasting PAIR_WARM_MS and then `inner` back-to-back calls between two CUDA
    events, the side going first alternating, all rounds queued before one synchronization (no
    idle gap between them). At least 2 rounds (both orders) unless a call takes over 2 s (each
    then timed once)."""
    first = [timed_once(torch, c) for c in calls]
    if max(first) > ONCE_MS:
        return [dict(summary([t], 1), note="timed once (over 2 s)") for t in first]
    t1 = max(timed_once(torch, c) for c in calls)
    extra, inner, rounds = schedule(t1, warmup, repeats)
    rounds = max(rounds, 2)
    turn_warm = calls_lasting(PAIR_WARM_MS, t1, MAX_PAIR_WARMUP)
    for _ in range(extra):
        for c in calls:
            c()
    torch.cuda.synchronize()
    events = [[] for _ in calls]
    for order in interleave_order(rounds, len(calls)):
        for side in order:
            for _ in range(turn_warm):
                calls[side]()
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(inner):
                calls[side]()
            stop.record()
            events[side].append((start, stop))
    torch.cuda.synchronize()
    return [summary(events_ms(ev, inner), inner) for ev in events]


def rel_err(torch, got, want):
    """max|got - want| / max|want|, in f64."""
    g, w = got.to(torch.float64), want.to(torch.float64)
    scale = w.abs().max().item()
    return (g - w).abs().max().item() / (scale if scale > 0 else 1.0)


def time_case(torch, case, warmup, repeats, gp=None):
    """The case's entry: torch.matmul timed interleaved with gpuopt's auto GEMM on the same
    tensors when gp (a GpuoptPeer) is given and gpuopt's result matches torch's, else alone."""
    call, at, bt, ct, out_type, note = setup_case(torch, case)
    entry = {}
    if gp is not None:
        try:
            gcall, cg = gp.prepare(torch, case, at, bt)
            call()
            gcall()
            torch.cuda.synchronize()
            variant = gp.last_variant()
            err = rel_err(torch, cg, ct)
            bound = tolerance(case[5], out_type, case[7])
            entry.update(gpuopt_variant=variant, gpuopt_rel_err=err, gpuopt_rel_bound=bound)
            if not err <= bound:  # NaN too
                entry.update(gpuopt_wrong=True, gpuopt_error="gpuopt's result differs from "
                             "torch's: max rel err {:.3g} > {:.0e}".format(err, bound))
            else:
                t, g = time_interleaved(torch, [call, gcall], warmup, repeats)
                entry.update(t)
                entry.update({"gpuopt_" + key: g[key] for key in ("ms", "ms_min", "ms_max")})
                entry["method"] = "interleaved"
                note.append("interleaved with gpuopt auto ({}) in this process".format(variant))
                entry["note"] = "; ".join(note + ([t["note"]] if "note" in t else []))
                return entry
        except Exception as e:  # gpuopt refused the problem, out of memory: torch alone
            entry["gpuopt_error"] = "gpuopt: {}: {}".format(type(e).__name__,
                                                            str(e).splitlines()[0][:200])
    t = time_alone(torch, call, warmup, repeats)
    entry.update(t)
    entry["method"] = "standalone"
    entry["note"] = "; ".join(note + ([t["note"]] if "note" in t else []))
    return entry


class GpuoptPeer:
    """gpuopt's auto GEMM through its Python binding, on torch's current stream of the device."""

    def __init__(self, gpuopt, torch, device, tune_cache=None):
        self.gpuopt = gpuopt
        self.ctx = gpuopt.Context(device)
        if tune_cache:
            self.ctx.set_tune_cache(tune_cache)
        self.stream = self.ctx.wrap_stream(torch.cuda.current_stream(device).cuda_stream)

    def prepare(self, torch, case, at, bt):
        """(call, C): gpuopt_gemm of the bench's auto row of case on at, bt into a new C."""
        c_type = case[6]
        dtype = {"f64": torch.float64, "f32": torch.float32, "bf16": torch.bfloat16,
                 "f16": torch.float16}[c_type]
        name, m, n, k, batch = case[:5]
        cg = torch.empty((batch, n, m) if batch > 1 else (n, m), device=at.device, dtype=dtype)
        desc = gemm_desc(self.gpuopt, case)
        a, b, c = at.data_ptr(), bt.data_ptr(), cg.data_ptr()
        gemm, stream = self.gpuopt.gemm, self.stream

        def call():
            gemm(stream, desc, a, b, c)
        return call, cg

    def last_variant(self):
        return self.ctx.last_variant(self.gpuopt.GPUOPT_OP_GEMM) or "?"

    def close(self):
        self.stream.close()
        self.ctx.close()


def load_gpuopt(python_dir, library):
    """(the gpuopt module, "") or (None, why not): the binding in python_dir (else wherever
    Python finds it) with libgpuopt at library (else where the binding looks: _lib.py)."""
    if library:
        os.environ["GPUOPT_LIBRARY"] = library
    if python_dir:
        sys.path.insert(0, python_dir)
    try:
        import gpuopt
        gpuopt.version()
        return gpuopt, ""
    except Exception as e:  # ImportError, the library not loadable
        return None, "the gpuopt binding is not importable ({}: {})".format(
            type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--gpuopt-python", default="",
                    help="directory holding the gpuopt package (bindings/python)")
    ap.add_argument("--gpuopt-library", default="", help="libgpuopt to load (GPUOPT_LIBRARY)")
    ap.add_argument("--tune-cache", default="", help="tuning cache gpuopt's auto follows")
    ap.add_argument("--no-gpuopt", action="store_true",
                    help="time torch alone (no interleaved gpuopt auto)")
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
    gp = None
    if args.no_gpuopt:
        out["gpuopt_error"] = "--no-gpuopt"
    else:
        gpuopt, why = load_gpuopt(args.gpuopt_python, args.gpuopt_library)
        try:
            if gpuopt is not None:
                gp = GpuoptPeer(gpuopt, torch, args.device, args.tune_cache)
                out["gpuopt"] = gpuopt.version_string()
                out["gpuopt_library"] = gpuopt.library_path
        except Exception as e:  # no context on this device
            why = "gpuopt: {}: {}".format(type(e).__name__, str(e).splitlines()[0][:200])
        if gp is None:
            out["gpuopt_error"] = why
    for text, case in cases:
        entry = {"case": text}
        try:
            entry.update(time_case(torch, case, args.warmup, args.repeats, gp))
        except Exception as e:  # out of memory, unsupported type: the row records it
            entry["error"] = "{}: {}".format(type(e).__name__, str(e).splitlines()[0][:200])
        torch.cuda.empty_cache()
        out["cases"].append(entry)
    if gp is not None:
        gp.close()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
