#!/usr/bin/env python3
"""Host checks of bench/torch_matmul.py (ctest bench_torch_helper): the case syntax, the timing
schedule (gpuopt-bench's time_row rule) and the JSON it prints when torch cannot run. No GPU;
torch is not needed (where it is importable but sees no device, the error names that)."""

import contextlib
import io
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_matmul as tm  # noqa: E402


class TorchMatmulHelper(unittest.TestCase):
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
