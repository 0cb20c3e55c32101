#!/usr/bin/env python3
"""torch_gemm_sum_graph: gpuopt from Python on PyTorch tensors.

A GEMM on PyTorch tensors (row-major, and a transposed view) compared with torch.matmul, a sum
compared with torch.sum, an axpy + GEMM captured into a gpuopt graph and replayed, and a
deliberate error. Exits 77 (skipped) without PyTorch or a GPU.

    PYTHONPATH=bindings/python GPUOPT_LIBRARY=build/src/libgpuopt.so \\
        python3 examples/python/torch_gemm_sum_graph.py [--time]

--time runs the binding timing protocol of docs/integration-c.md (f64 2048^3 GEMM through
gpuopt.matmul on torch tensors) and prints "gpuopt-binding-time lang=python ...".
"""
import sys
import time

try:
    import torch
except ImportError:
    print("PyTorch is not installed: nothing to run")
    sys.exit(77)
if not torch.cuda.is_available():
    print("PyTorch sees no CUDA device: nothing to run")
    sys.exit(77)

import gpuopt  # noqa: E402


def check_gemm(ctx, s):
    m, n, k = 257, 129, 193
    a = torch.randn(m, k, dtype=torch.float64, device="cuda")
    b = torch.randn(k, n, dtype=torch.float64, device="cuda")
    at = torch.randn(k, m, dtype=torch.float64, device="cuda")  # used as at.T: column-major
    c = torch.empty(m, n, dtype=torch.float64, device="cuda")
    c2 = torch.empty(m, n, dtype=torch.float64, device="cuda")
    gpuopt.matmul(s, a, b, c)
    gpuopt.matmul(s, at.T, b, c2)
    s.synchronize()
    ok = True
    for name, got, want in (("a @ b", c, a @ b), ("at.T @ b", c2, at.T @ b)):
        err = ((got - want).norm() / want.norm()).item()
        ok &= err < 1e-12
        print(f"dgemm {m} x {n} x {k} ({name}, variant {ctx.last_variant(gpuopt.GPUOPT_OP_GEMM)}):"
              f" relative error against torch.matmul {err:.2e}")
    return ok


def check_sum(ctx, s):
    ok = True
    for dtype, tol in ((torch.float64, 1e-12), (torch.float32, 1e-6)):
        x = torch.randn(1_000_003, dtype=dtype, device="cuda")
        out = torch.empty(1, dtype=dtype, device="cuda")
        gpuopt.sum(s, x, out)
        s.synchronize()
        want = torch.sum(x.double()).item()
        bound = tol * torch.sum(x.double().abs()).item()
        good = abs(out.item() - want) <= bound
        ok &= good
        print(f"sum of {x.numel()} {str(dtype)[6:]}: {out.item():.10g} (torch.sum {want:.10g}, "
              f"{'ok' if good else 'WRONG'}; variant {ctx.last_variant(gpuopt.GPUOPT_OP_REDUCE)})")
    return ok


def check_graph(ctx, s):
    n, reps = 1 << 20, 5
    x = torch.rand(n, dtype=torch.float32, device="cuda")
    y = torch.ones(n, dtype=torch.float32, device="cuda")
    a = torch.randn(64, 32, dtype=torch.float64, device="cuda")
    b = torch.randn(32, 48, dtype=torch.float64, device="cuda")
    c = torch.empty(64, 48, dtype=torch.float64, device="cuda")
    torch.cuda.synchronize()  # the inputs are ready before the capture (no waits are captured)
    with s.capture() as cap:
        gpuopt.axpy(s, 0.5, x, y)
        gpuopt.matmul(s, a, b, c)
    for _ in range(reps):
        cap.graph.launch(s)
    s.synchronize()
    want = 1 + reps * 0.5 * x
    err_y = ((y - want).abs().max()).item()
    err_c = ((c - a @ b).norm() / (a @ b).norm()).item()
    print(f"graph of axpy + dgemm replayed {reps} times: axpy max error {err_y:.1e}, "
          f"gemm relative error {err_c:.1e}")
    cap.graph.close()
    return err_y <= 1e-5 * want.abs().max().item() and err_c < 1e-12


def deliberate_error(ctx, s):
    try:
        gpuopt.axpy(s, 1.0, 0, 0, n=-5, dtype="f32")
    except gpuopt.GpuoptError as e:
        print(f"deliberate error (n = -5): {e.status_name}\n  {e.message}")
        return e.status == gpuopt.GPUOPT_ERROR_INVALID_ARGUMENT and "gpuopt_axpy" in e.message
    print("deliberate error: no exception raised")
    return False


def time_dgemm(ctx):
    """The binding timing protocol (docs/integration-c.md)."""
    n, warmup, repeats, calls = 2048, 3, 5, 20
    i = torch.arange(n, dtype=torch.float64, device="cuda")
    # The same values as the C and Fortran programs: element (i, j) = ((i+1 + 3(j+1)) % 17 - 8)/8
    # in column-major order, that is the transpose of this row-major tensor.
    a = ((((i[None, :] + 1) + 3 * (i[:, None] + 1)) % 17) - 8) / 8
    b = a.clone()
    c = torch.empty(n, n, dtype=torch.float64, device="cuda")
    with ctx.wrap_stream(torch.cuda.current_stream().cuda_stream) as s:
        # A hot loop reads the tensors' layout once (as_device_array); matmul then only plans
        # the descriptor and calls the library (a few microseconds per call).
        a_, b_, c_ = (gpuopt.as_device_array(t, s) for t in (a, b, c))
        for _ in range(warmup):
            gpuopt.matmul(s, a_, b_, c_)
        s.synchronize()
        ms = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(calls):
                gpuopt.matmul(s, a_, b_, c_)
            s.synchronize()
            ms.append((time.perf_counter() - t0) * 1e3 / calls)
    ms.sort()
    print(f"gpuopt-binding-time lang=python op=dgemm n={n} ms_per_call={ms[repeats // 2]:.4f}")
    return True


def main():
    timing = "--time" in sys.argv[1:]
    print(f"gpuopt {gpuopt.version_string()} ({gpuopt.library_path}), torch {torch.__version__}")
    try:
        ctx = gpuopt.Context(0)
    except gpuopt.NoDeviceError as e:
        print(f"no CUDA device, nothing to run: {e.status_name}\n  {e.message}")
        return 77
    with ctx:
        if timing:
            return 0 if time_dgemm(ctx) else 1
        info = ctx.device_info()
        print(f"device {info.device}: {info.name.decode()}, cc {info.cc_major}.{info.cc_minor}, "
              f"{info.sm_count} SMs")
        torch.manual_seed(1)
        with ctx.create_stream() as s:
            ok = check_gemm(ctx, s)
            ok &= check_sum(ctx, s)
            ok &= check_graph(ctx, s)
            ok &= deliberate_error(ctx, s)
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
