#!/usr/bin/env python3
"""Host checks of bench/torch_matmul.py (ctest bench_torch_helper): the case syntax, the timing
schedule (gpuopt-bench's time_row rule), the interleaving of torch and gpuopt (on a fake torch
whose CUDA events read a virtual clock that each call advances), the choice between interleaved
and standalone timing and the result check, and the JSON it prints when torch cannot run. No
GPU; torch is not needed (where it is importable but sees no device, the error names that)."""

import contextlib
import io
import json
import os
import sys
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_matmul as tm  # noqa: E402


class FakeClock:
    """A fake torch: CUDA events read a virtual clock; each call of a side advances it."""

    def __init__(self):
        self.now = 0.0
        self.log = []
        clock = self

        class Event:
            def __init__(self, enable_timing=False):
                self.t = None

            def record(self):
                self.t = clock.now

            def synchronize(self):
                pass

            def elapsed_time(self, end):
                return end.t - self.t

        self.torch = types.SimpleNamespace(cuda=types.SimpleNamespace(
            Event=Event, synchronize=lambda: None, empty_cache=lambda: None))

    def call(self, name, ms):
        def run():
            self.now += ms
            self.log.append(name)
        return run


class FakePeer:
    def __init__(self, call):
        self.call = call

    def prepare(self, torch, case, at, bt):
        return self.call, "C_gpuopt"

    def last_variant(self):
        return "cublas"


class FakeTensor:
    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.device = shape, dtype, "cuda:0"

    def data_ptr(self):
        return id(self)


def fake_torch_module(clock):
    """clock.torch grown into an importable 'torch' that sees one CUDA device."""
    t = types.ModuleType("torch")
    t.__version__ = "2.99.0"
    t.version = types.SimpleNamespace(cuda="13.0")
    t.float64, t.float32, t.bfloat16, t.float16 = "f64", "f32", "bf16", "f16"
    t.backends = types.SimpleNamespace(cuda=types.SimpleNamespace(
        matmul=types.SimpleNamespace(allow_tf32=False)))
    t.manual_seed = lambda seed: None
    t.empty = lambda shape, device=None, dtype=None: FakeTensor(shape, dtype)
    cuda = clock.torch.cuda
    cuda.is_available = lambda: True
    cuda.set_device = lambda d: None
    cuda.get_device_name = lambda d: "Fake GPU"
    cuda.current_stream = lambda d=None: types.SimpleNamespace(cuda_stream=0)
    t.cuda = cuda
    return t


def fake_gpuopt(clock, calls):
    """The gpuopt binding's surface the helper uses; gemm advances the clock by 1 ms."""
    g = types.SimpleNamespace(GPUOPT_OP_GEMM=1, GPUOPT_TRANS_N=0, GPUOPT_DTYPE_F32=0,
                              GPUOPT_DTYPE_F64=1, GPUOPT_DTYPE_BF16=3, GPUOPT_DTYPE_F16=2,
                              GPUOPT_COMPUTE_F32=1, GPUOPT_COMPUTE_TF32=2,
                              GPUOPT_COMPUTE_F64=3, library_path="/fake/libgpuopt.so.0")
    g.version_string = lambda: "0.1.0"
    g.GemmDesc = lambda **fields: types.SimpleNamespace(**fields)

    class Stream:
        def close(self):
            calls.append("stream.close")

    class Context:
        def __init__(self, device):
            calls.append("context {}".format(device))

        def set_tune_cache(self, path):
            calls.append("tune_cache " + path)

        def wrap_stream(self, native):
            calls.append("wrap {}".format(native))
            return Stream()

        def last_variant(self, op):
            return "cublas"

        def close(self):
            calls.append("context.close")

    def gemm(stream, desc, a, b, c):
        assert isinstance(stream, Stream) and all(isinstance(p, int) for p in (a, b, c))
        assert (desc.m, desc.n, desc.k, desc.lda, desc.ldb, desc.ldc) == (64, 32, 16, 64, 16, 64)
        clock.now += 1.0
        clock.log.append("g")

    g.Context, g.gemm = Context, gemm
    return g


class TorchMatmulHelper(unittest.TestCase):
    def _main(self, args, binding=True):
        """(JSON printed, gpuopt calls) of main(args) on a fake torch (and gpuopt if binding)."""
        f, calls = FakeClock(), []
        saved = (sys.modules.get("torch"), tm.setup_case, tm.rel_err, tm.load_gpuopt)
        sys.modules["torch"] = fake_torch_module(f)
        tm.setup_case = lambda torch, case: (f.call("t", 2.0), FakeTensor((16, 64), "f32"),
                                             FakeTensor((32, 16), "f32"), None, "f32", [])
        tm.rel_err = lambda torch, got, want: 0.0
        tm.load_gpuopt = lambda d, lib: ((fake_gpuopt(f, calls), "") if binding else
                                         (None, "the gpuopt binding is not importable (x)"))
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                self.assertEqual(tm.main(args), 0)
        finally:
            if saved[0] is None:
                sys.modules.pop("torch", None)
            else:
                sys.modules["torch"] = saved[0]
            tm.setup_case, tm.rel_err, tm.load_gpuopt = saved[1:]
        return json.loads(out.getvalue()), calls

    def test_main_interleaves_through_the_binding(self):
        doc, calls = self._main(["--tune-cache", "t.cache", "f32:64:32:16:1:f32:f32:f32"])
        self.assertEqual((doc["gpuopt"], doc["gpuopt_library"]), ("0.1.0", "/fake/libgpuopt.so.0"))
        self.assertNotIn("gpuopt_error", doc)
        (c,) = doc["cases"]
        self.assertEqual((c["method"], c["ms"], c["gpuopt_ms"]), ("interleaved", 2.0, 1.0))
        self.assertEqual(calls, ["context 0", "tune_cache t.cache", "wrap 0", "stream.close",
                                 "context.close"])

    def test_main_times_alone_without_the_binding(self):
        doc, calls = self._main(["f32:64:32:16:1:f32:f32:f32"], binding=False)
        self.assertIn("not importable", doc["gpuopt_error"])
        (c,) = doc["cases"]
        self.assertEqual((c["method"], c["ms"]), ("standalone", 2.0))
        self.assertNotIn("gpuopt_ms", c)
        doc, calls = self._main(["--no-gpuopt", "f32:64:32:16:1:f32:f32:f32"])
        self.assertEqual(doc["gpuopt_error"], "--no-gpuopt")
        self.assertEqual((doc["cases"][0]["method"], calls), ("standalone", []))

    def test_parse_case(self):
        self.assertEqual(tm.parse_case("bf16:8192:8192:1024:1:bf16:f32:f32"),
                         ("bf16", 8192, 8192, 1024, 1, "bf16", "f32", "f32"))
        self.assertEqual(tm.parse_case("f32:256:256:256:512:f32:f32:tf32")[4], 512)
        for bad in ("f64:1:1:1:1:f64:f64", "f64:1:1:0:1:f64:f64:f64", "f64:a:1:1:1:f64:f64:f64",
                    "f64:1:1:1:1:i32:f64:f64", "f64:1:1:1:1:f64:f64:fp8"):
            with self.assertRaises(ValueError, msg=bad):
                tm.parse_case(bad)

    def test_schedule_is_the_benchs(self):
        # A 2.5 ms call: 3 - 1 warm-up calls, 1 call per sample, min(20, 400) samples.
        self.assertEqual(tm.schedule(2.5, 3, 20), (2, 1, 20))
        # A 0.1 ms call: 5 calls per sample (0.5 ms), 1000 / 0.5 = 2000 fit, capped at repeats.
        self.assertEqual(tm.schedule(0.1, 3, 20), (2, 5, 20))
        # A 600 ms call: no extra warm-up (100 ms budget), one sample fits.
        self.assertEqual(tm.schedule(600.0, 3, 20), (0, 1, 1))
        # A very short call: at most 64 calls per sample.
        self.assertEqual(tm.schedule(0.001, 0, 5)[1:], (64, 5))

    def test_median(self):
        self.assertEqual(tm.median([3.0, 1.0, 2.0]), 2.0)
        self.assertEqual(tm.median([4.0, 1.0, 2.0, 3.0]), 2.5)

    def test_calls_lasting_is_the_benchs(self):
        self.assertEqual(tm.calls_lasting(100.0, 2.0, 4096), 50)
        self.assertEqual(tm.calls_lasting(100.0, 900.0, 4096), 1)
        self.assertEqual(tm.calls_lasting(100.0, 0.0, 4096), 4096)
        self.assertEqual(tm.calls_lasting(100.0, 0.03, 4096), 3334)

    def test_interleave_order_alternates(self):
        self.assertEqual(tm.interleave_order(4), [(0, 1), (1, 0), (0, 1), (1, 0)])

    def test_time_interleaved_alternates_and_times_each_side(self):
        f = FakeClock()
        t, g = tm.time_interleaved(f.torch, [f.call("t", 2.0), f.call("g", 1.0)], 3, 20)
        self.assertEqual((t["ms"], g["ms"]), (2.0, 1.0))
        self.assertEqual((t["inner"], t["repeats"], g["repeats"]), (1, 20, 20))
        # first call and probe of each, 2 warm-up rounds, then rounds t g, g t, ..., each turn
        # 100 ms of untimed calls at the slower side's 2 ms (50) before its timed call
        self.assertEqual(f.log[:8], ["t", "g", "t", "g", "t", "g", "t", "g"])
        turns = [f.log[8 + 51 * i:8 + 51 * (i + 1)] for i in range(4)]
        self.assertEqual(turns, [["t"] * 51, ["g"] * 51, ["g"] * 51, ["t"] * 51])
        self.assertEqual(len(f.log), 8 + 40 * 51)
        # a call over 2 s: each side timed once
        f = FakeClock()
        t, g = tm.time_interleaved(f.torch, [f.call("t", 2500.0), f.call("g", 10.0)], 3, 20)
        self.assertEqual((t["ms"], g["ms"], t["repeats"]), (2500.0, 10.0, 1))
        # a slow pair still gets both orders
        f = FakeClock()
        t, g = tm.time_interleaved(f.torch, [f.call("t", 900.0), f.call("g", 900.0)], 3, 20)
        self.assertEqual(t["repeats"], 2)

    def test_tolerance_per_type(self):
        self.assertEqual(tm.tolerance("f64", "f64", "f64"), 1e-10)
        self.assertEqual(tm.tolerance("f32", "f32", "f32"), 1e-4)
        self.assertEqual(tm.tolerance("f32", "f32", "tf32"), 1e-2)
        self.assertEqual(tm.tolerance("bf16", "f32", "f32"), 1e-3)
        self.assertEqual(tm.tolerance("bf16", "bf16", "f32"), 1e-2)

    def _time_case(self, err):
        f = FakeClock()
        saved = tm.setup_case, tm.rel_err
        tm.setup_case = lambda torch, case: (f.call("t", 2.0), "A", "B", "C_torch", "f32", ["x"])
        tm.rel_err = lambda torch, got, want: err
        try:
            case = tm.parse_case("f32:64:64:64:1:f32:f32:f32")
            return f, tm.time_case(f.torch, case, 3, 20, FakePeer(f.call("g", 1.0)))
        finally:
            tm.setup_case, tm.rel_err = saved

    def test_time_case_interleaves_when_gpuopt_is_right(self):
        f, e = self._time_case(1e-6)
        self.assertEqual(e["method"], "interleaved")
        self.assertEqual((e["ms"], e["gpuopt_ms"], e["gpuopt_variant"]), (2.0, 1.0, "cublas"))
        self.assertEqual(e["gpuopt_rel_bound"], 1e-4)
        self.assertNotIn("gpuopt_error", e)
        self.assertIn("interleaved with gpuopt auto (cublas)", e["note"])

    def test_time_case_never_times_a_wrong_gpuopt(self):
        for err in (0.5, float("nan")):
            f, e = self._time_case(err)
            self.assertEqual(e["method"], "standalone")
            self.assertTrue(e["gpuopt_wrong"])
            self.assertIn("differs from torch's", e["gpuopt_error"])
            self.assertNotIn("gpuopt_ms", e)
            self.assertEqual(e["ms"], 2.0)
            self.assertEqual(f.log.count("g"), 1)  # the checked call only

    def test_time_case_alone_without_the_binding(self):
        f = FakeClock()
        saved = tm.setup_case
        tm.setup_case = lambda torch, case: (f.call("t", 2.0), "A", "B", "C", "f32", [])
        try:
            e = tm.time_case(f.torch, tm.parse_case("f32:8:8:8:1:f32:f32:f32"), 3, 20, None)
        finally:
            tm.setup_case = saved
        self.assertEqual((e["method"], e["ms"]), ("standalone", 2.0))
        self.assertNotIn("gpuopt_ms", e)

    def test_load_gpuopt_reports_why_not(self):
        saved_path, saved_env = list(sys.path), os.environ.get("GPUOPT_LIBRARY")
        saved_mods = {name: sys.modules.pop(name) for name in list(sys.modules)
                      if name == "gpuopt" or name.startswith("gpuopt.")}
        try:
            gpuopt, why = tm.load_gpuopt("/nonexistent", "/nonexistent/libgpuopt.so")
            self.assertIsNone(gpuopt)
            self.assertIn("not importable", why)
            self.assertEqual(os.environ["GPUOPT_LIBRARY"], "/nonexistent/libgpuopt.so")
        finally:
            sys.path[:] = saved_path
            if saved_env is None:
                os.environ.pop("GPUOPT_LIBRARY", None)
            else:
                os.environ["GPUOPT_LIBRARY"] = saved_env
            sys.modules.update(saved_mods)

    def test_gemm_desc_is_the_bench_auto_rows(self):
        if not os.environ.get("GPUOPT_LIBRARY"):
            self.skipTest("GPUOPT_LIBRARY not set (ctest sets it to this build's libgpuopt)")
        here = os.path.dirname(os.path.abspath(__file__))
        saved_path = list(sys.path)
        try:
            gpuopt, why = tm.load_gpuopt(os.path.join(here, "..", "bindings", "python"),
                                         os.environ["GPUOPT_LIBRARY"])
        finally:
            sys.path[:] = saved_path
        self.assertIsNotNone(gpuopt, why)
        d = tm.gemm_desc(gpuopt, tm.parse_case("bf16:256:128:64:4:bf16:f32:f32"))
        self.assertEqual((d.m, d.n, d.k, d.lda, d.ldb, d.ldc), (256, 128, 64, 256, 64, 256))
        self.assertEqual((d.batch_count, d.stride_a, d.stride_b, d.stride_c),
                         (4, 256 * 64, 64 * 128, 256 * 128))
        self.assertEqual((d.a_type, d.c_type, d.compute),
                         (gpuopt.GPUOPT_DTYPE_BF16, gpuopt.GPUOPT_DTYPE_F32,
                          gpuopt.GPUOPT_COMPUTE_F32))
        self.assertEqual((d.trans_a, d.trans_b, d.alpha, d.beta),
                         (gpuopt.GPUOPT_TRANS_N, gpuopt.GPUOPT_TRANS_N, 1.0, 0.0))
        self.assertEqual(tm.gemm_desc(gpuopt, tm.parse_case("f32:8:8:8:1:f32:f32:tf32")).compute,
                         gpuopt.GPUOPT_COMPUTE_TF32)
        self.assertEqual(tm.gemm_desc(gpuopt, tm.parse_case("f64:8:8:8:1:f64:f64:f64")).a_type,
                         gpuopt.GPUOPT_DTYPE_F64)

    def test_prints_one_json_object(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(tm.main(["not-a-case"]), 0)
        doc = json.loads(out.getvalue())
        self.assertIn("expected name:m:n:k", doc["error"])
        try:
            import torch  # noqa: F401
            return  # torch here: main() would time on the GPU
        except Exception:
            pass
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(tm.main(["f64:64:64:64:1:f64:f64:f64"]), 0)
        self.assertIn("not importable", json.loads(out.getvalue())["error"])


if __name__ == "__main__":
    unittest.main()
