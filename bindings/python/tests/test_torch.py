#!/usr/bin/env python3
"""gpuopt.torch and PyTorch tensors on a GPU (ctest python_torch_tests, label gpu).

Skipped without PyTorch, without a CUDA device for PyTorch, or without one for gpuopt; run as a
script it then exits 77. Covers: every operator of gpuopt.torch against PyTorch's result, new
tensors (out=None) and out=, torch's current stream (a side stream too), the wrapped-stream
cache, a uint8 workspace through the descriptor-level API, torch.compile(fullgraph=True)
graphs that hold the operators, GDN's autograd against gpuopt_gdn_backward, a float64 PyTorch
reference and finite differences, torch.library.opcheck, and errors.

    PYTHONPATH=bindings/python GPUOPT_LIBRARY=build/src/libgpuopt.so \\
        python3 bindings/python/tests/test_torch.py -v
    (or: python3 -m pytest bindings/python/tests/test_torch.py)
"""
import sys
import unittest

try:
    import torch
except ImportError:
    torch = None

import gpuopt

SKIP_REASON = None
if torch is None:
    SKIP_REASON = "PyTorch is not installed"
elif not torch.cuda.is_available():
    SKIP_REASON = "PyTorch sees no CUDA device"
elif gpuopt.device_count() == 0:
    SKIP_REASON = "gpuopt sees no CUDA device"

if SKIP_REASON is None:
    import gpuopt.torch as got


def _rel(got_, want):
    got_, want = got_.double(), want.double()
    return ((got_ - want).norm() / max(want.norm().item(), 1e-300)).item()


@unittest.skipIf(SKIP_REASON is not None, SKIP_REASON or "")
class TorchOps(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(7)
        self.dev = torch.device("cuda")

    def test_gemm(self):
        a = torch.randn(257, 193, dtype=torch.float64, device=self.dev)
        b = torch.randn(193, 129, dtype=torch.float64, device=self.dev)
        c = got.gemm(a, b)  # out=None: a new tensor
        self.assertEqual((c.shape, c.dtype), (torch.Size([257, 129]), torch.float64))
        self.assertLess(_rel(c, a @ b), 1e-12)
        at = a.t().contiguous()
        self.assertLess(_rel(got.gemm(at.T, b, alpha=2.0), 2 * a @ b), 1e-12)  # a .T view
        acc = torch.randn(257, 129, dtype=torch.float64, device=self.dev)
        want = 0.5 * a @ b + 3 * acc
        same = got.gemm(a, b, out=acc, alpha=0.5, beta=3.0)
        self.assertIs(same, acc)
        self.assertLess(_rel(acc, want), 1e-12)
        a32, b32 = a.float(), b.float()
        self.assertLess(_rel(got.gemm(a32, b32), a @ b), 1e-5)
        self.assertLess(_rel(got.gemm(a32, b32, compute="tf32"), a @ b), 5e-3)
        ab, bb = a.bfloat16(), b.bfloat16()
        cb = got.gemm(ab, bb)
        self.assertEqual(cb.dtype, torch.bfloat16)
        self.assertLess(_rel(cb, ab.double() @ bb.double()), 2e-2)
        c32 = torch.empty(257, 129, dtype=torch.float32, device=self.dev)  # bf16 -> f32
        got.gemm(ab, bb, out=c32)
        self.assertLess(_rel(c32, ab.double() @ bb.double()), 1e-5)

    def test_reduce(self):
        x = torch.randn(100_003, dtype=torch.float64, device=self.dev)
        s = got.sum(x)
        self.assertEqual((s.shape, s.dtype), (torch.Size([]), torch.float64))
        self.assertLess(abs(s.item() - x.sum().item()), 1e-9 * x.abs().sum().item())
        xi = torch.randint(-1000, 1000, (4097,), dtype=torch.int32, device=self.dev)
        si = got.sum(xi)
        self.assertEqual((si.dtype, si.item()), (torch.int64, xi.long().sum().item()))
        m = torch.randn(37, 300, dtype=torch.float32, device=self.dev)
        self.assertTrue(torch.equal(got.reduce(m, "argmax", rows=True), m.argmax(dim=1)))
        self.assertTrue(torch.equal(got.reduce(m, "max", rows=True), m.amax(dim=1)))
        self.assertEqual(got.reduce(m, "min").item(), m.min().item())
        out = torch.empty(37, dtype=torch.float32, device=self.dev)
        self.assertIs(got.reduce(m, "sum", rows=True, out=out), out)
        self.assertTrue(torch.allclose(out, m.sum(dim=1), rtol=1e-5, atol=1e-4))

    def test_axpy(self):
        x = torch.randn(10_001, dtype=torch.float32, device=self.dev)
        y = torch.randn(10_001, dtype=torch.float32, device=self.dev)
        want = y + 0.25 * x
        self.assertIs(got.axpy(0.25, x, y), y)
        self.assertTrue(torch.allclose(y, want, rtol=1e-6, atol=1e-6))

    def test_transpose(self):
        for dtype in (torch.float32, torch.float64, torch.bfloat16):
            x = torch.randn(301, 77, device=self.dev).to(dtype)
            t = got.transpose(x)
            self.assertTrue(t.is_contiguous())
            self.assertTrue(torch.equal(t, x.T.contiguous()), dtype)
        out = torch.empty(77, 301, dtype=torch.bfloat16, device=self.dev)
        self.assertIs(got.transpose(x, out=out), out)
        self.assertTrue(torch.equal(out, x.T))
        # column-major in and out: x.T of a contiguous (77, 301) into out.T of a (301, 77)
        y = torch.randn(77, 301, device=self.dev)
        o = torch.empty(301, 77, device=self.dev)
        got.transpose(y.T, out=o.T)
        self.assertTrue(torch.equal(o.T, y.T.T))
        with self.assertRaisesRegex(ValueError, "same layout"):
            got.transpose(y.T, out=torch.empty(77, 301, device=self.dev))

    def test_segmented_sort(self):
        keys = torch.randn(16, 1000, device=self.dev)
        keys[3, 10] = float("nan")
        keys[5, :100] = 0.5  # ties: the sort is stable
        idx = torch.arange(1000, dtype=torch.int64, device=self.dev).expand(16, 1000).contiguous()
        for descending in (False, True):
            k, v = got.segmented_sort(keys, idx, descending=descending)
            wk, wv = torch.sort(keys, dim=-1, descending=descending, stable=True)
            self.assertTrue(torch.equal(k.nan_to_num(9.0), wk.nan_to_num(9.0)), descending)
            self.assertTrue(torch.equal(v, wv), descending)
        flat = torch.randint(0, 50, (5000,), dtype=torch.int32, device=self.dev)
        bounds = [0, 7, 7, 2000, 4999, 5000]
        offsets = torch.tensor(bounds, dtype=torch.int64, device=self.dev)
        k = got.segmented_sort(flat, offsets=offsets)
        for lo, hi in zip(bounds, bounds[1:]):
            self.assertTrue(torch.equal(k[lo:hi], torch.sort(flat[lo:hi], stable=True)[0]))

    def test_uint8_workspace(self):
        """A torch.uint8 tensor as the workspace of the descriptor-level API (the bug of issue
        17: it went through DLPack and was refused as an unsupported dtype)."""
        s = got.stream()
        keys = torch.randn(64, 256, device=self.dev)
        keys_out = torch.empty_like(keys)
        desc = gpuopt.SegmentedSortDesc(key_type=gpuopt.GPUOPT_DTYPE_F32, num_items=keys.numel(),
                                        num_segments=64, segment_size=256)
        nbytes = gpuopt.segmented_sort_workspace_size(s.ctx, desc)
        ws = torch.empty(max(nbytes, 1), dtype=torch.uint8, device=self.dev)
        gpuopt.segmented_sort(s, desc, keys, keys_out, workspace=ws)
        self.assertTrue(torch.equal(keys_out, torch.sort(keys, dim=-1, stable=True)[0]))
        x = torch.randn(2, 16, 8, 8, device=self.dev)
        beta = 1 + torch.rand(16, device=self.dev)
        gamma = 0.1 * torch.rand(16, 16, device=self.dev)
        y = torch.empty_like(x)
        d = gpuopt.GdnDesc(batch=2, channels=16, height=8, width=8)
        ws = torch.empty(max(gpuopt.gdn_workspace_size(s.ctx, d), 1), dtype=torch.int8,
                         device=self.dev)
        gpuopt.gdn_forward(s, d, x, beta, gamma, y, workspace=ws)
        self.assertLess(_rel(y, got.gdn(x, beta, gamma)), 1e-6)
        m = torch.zeros(4, 4, dtype=torch.uint8, device=self.dev)
        with self.assertRaisesRegex(TypeError, "byte array"):  # where dtypes count: refused
            gpuopt.matmul(s, m, m, m)

    def test_descriptor_api_without_stream(self):
        """The gpuopt functions with stream None and PyTorch tensors run on torch's current
        stream."""
        a = torch.randn(100, 60, dtype=torch.float64, device=self.dev)
        b = torch.randn(60, 30, dtype=torch.float64, device=self.dev)
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            c = torch.empty(100, 30, dtype=torch.float64, device=self.dev)
            gpuopt.matmul(None, a, b, c)
            t = torch.empty(30, 100, dtype=torch.float64, device=self.dev)
            gpuopt.transpose_array(None, c, t)
            total = torch.empty(1, dtype=torch.float64, device=self.dev)
            gpuopt.sum(None, t, total)
        side.synchronize()
        self.assertLess(_rel(c, a @ b), 1e-12)
        self.assertTrue(torch.equal(t, c.T))
        self.assertLess(abs(total.item() - c.sum().item()), 1e-9 * c.abs().sum().item())

    def test_stencil(self):
        x = torch.randn(64, 100, dtype=torch.float64, device=self.dev)
        c = [-4.0, 1.0, 1.0, 1.0, 1.0]  # 5-point Laplacian: centre, x -1 +1, y -1 +1
        p = torch.nn.functional.pad(x, (1, 1, 1, 1))
        want = -4 * x + p[1:-1, :-2] + p[1:-1, 2:] + p[:-2, 1:-1] + p[2:, 1:-1]
        self.assertLess(_rel(got.stencil(x, c, 1), want), 1e-14)
        out = torch.empty_like(x)
        self.assertIs(got.stencil(x, c, 1, out=out), out)
        self.assertLess(_rel(out, want), 1e-14)

    def test_current_stream(self):
        """Operations run on torch.cuda.current_stream(): no synchronization is needed."""
        default = got.stream()
        self.assertEqual(default.native, torch.cuda.current_stream().cuda_stream)
        self.assertIs(got.stream(), default)  # the wrapper is cached
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            self.assertEqual(got.stream().native, side.cuda_stream)
            a = torch.randn(512, 512, dtype=torch.float64, device=self.dev)
            for _ in range(20):  # keep the side stream busy: ordering, not luck
                a = a * 1.0001
            c = got.gemm(a, a)
            self.assertLess(_rel(c, a @ a), 1e-12)
            total = got.sum(c)
            self.assertLess(abs(total.item() - c.sum().item()), 1e-9 * c.abs().sum().item())
        torch.cuda.current_stream().wait_stream(side)
        self.assertIsNot(got.stream(), None)

    def test_gdn_autograd(self):
        n, ch, h, w = 2, 12, 5, 7
        x = torch.randn(n, ch, h, w, device=self.dev)
        beta = 0.5 + torch.rand(ch, device=self.dev)
        gamma = 0.1 * torch.rand(ch, ch, device=self.dev)
        wgt = torch.randn(n, ch, h, w, device=self.dev)

        def reference(x, beta, gamma, inverse):  # float64 PyTorch GDN
            z = beta[None, :, None, None] + torch.einsum("ij,njhw->nihw", gamma, x * x)
            return x * z.sqrt() if inverse else x / z.sqrt()

        for inverse in (False, True):
            xs, bs, gs = (t.clone().requires_grad_() for t in (x, beta, gamma))
            y = got.gdn(xs, bs, gs, inverse=inverse)
            (y * wgt).sum().backward()
            xr, br, gr = (t.double().requires_grad_() for t in (x, beta, gamma))
            yr = reference(xr, br, gr, inverse)
            (yr * wgt.double()).sum().backward()
            self.assertLess(_rel(y.detach(), yr.detach()), 1e-5, inverse)
            for name, g, r in (("x", xs.grad, xr.grad), ("beta", bs.grad, br.grad),
                               ("gamma", gs.grad, gr.grad)):
                self.assertLess(_rel(g, r), 1e-4, (name, inverse))
            # the autograd backward is gpuopt_gdn_backward (same values up to the order of the
            # sums over pixels)
            dx, dbeta, dgamma = got.gdn_backward(x, beta, gamma, wgt, inverse=inverse)
            for g, d in ((xs.grad, dx), (bs.grad, dbeta), (gs.grad, dgamma)):
                self.assertLess(_rel(g, d), 1e-6, inverse)
            # a directional finite difference of gpuopt's own forward pass
            vx, vg = torch.randn_like(x), 0.01 * torch.rand_like(gamma)
            eps = 1e-2

            def loss(t):
                return (got.gdn(x + t * vx, beta, gamma + t * vg, inverse=inverse).double()
                        * wgt.double()).sum().item()
            fd = (loss(eps) - loss(-eps)) / (2 * eps)
            an = ((xs.grad * vx).sum() + (gs.grad * vg).sum()).item()
            self.assertLess(abs(fd - an), 1e-2 * max(abs(an), 1.0), (fd, an, inverse))

    def test_compile_holds_the_ops(self):
        seen = []

        def recording_backend(gm, example_inputs):
            seen.extend(str(node.target) for node in gm.graph.nodes)
            return gm.forward

        def f(a, b):
            return torch.relu(got.gemm(a, b)) + got.sum(a)

        a = torch.randn(64, 32, dtype=torch.float64, device=self.dev)
        b = torch.randn(32, 48, dtype=torch.float64, device=self.dev)
        torch._dynamo.reset()
        out = torch.compile(f, fullgraph=True, backend=recording_backend)(a, b)
        # the graph holds the operators themselves (one node each), not their insides
        self.assertTrue(any(t.startswith("gpuopt.gemm") for t in seen), seen)
        self.assertTrue(any(t.startswith("gpuopt.reduce") for t in seen), seen)
        self.assertLess(_rel(out, f(a, b)), 1e-12)
        c = torch.zeros(64, 48, dtype=torch.float64, device=self.dev)

        def g(a, b, c):  # a mutating operator (out=) inside a graph
            got.gemm(a, b, out=c, beta=1.0)
            return c * 2

        res = torch.compile(g, fullgraph=True, backend="aot_eager")(a, b, c)
        self.assertLess(_rel(res, 2 * (a @ b)), 1e-12)
        self.assertLess(_rel(c, a @ b), 1e-12)

        def h(x, beta, gamma):  # GDN with its backward, traced by AOTAutograd
            return got.gdn(x, beta, gamma).square().sum()

        x = torch.randn(2, 8, 4, 4, device=self.dev, requires_grad=True)
        beta = (1 + torch.rand(8, device=self.dev)).requires_grad_()
        gamma = (0.1 * torch.rand(8, 8, device=self.dev)).requires_grad_()
        torch.compile(h, fullgraph=True, backend="aot_eager")(x, beta, gamma).backward()
        grads = [t.grad.clone() for t in (x, beta, gamma)]
        for t in (x, beta, gamma):
            t.grad = None
        h(x, beta, gamma).backward()
        for g, e in zip(grads, (x.grad, beta.grad, gamma.grad)):
            self.assertLess(_rel(g, e), 1e-6)

    def test_opcheck(self):
        d = self.dev
        a, b = torch.randn(33, 17, device=d), torch.randn(17, 9, device=d)
        x = torch.randn(2, 8, 4, 4, device=d)
        beta, gamma = 1 + torch.rand(8, device=d), 0.1 * torch.rand(8, 8, device=d)
        ops = torch.ops.gpuopt
        for op, args in ((ops.gemm.default, (a, b)),
                         (ops.gemm_out.default, (a, b, torch.empty(33, 9, device=d))),
                         (ops.reduce.default, (a, "max", True)),
                         (ops.transpose.default, (a,)),
                         (ops.axpy.default, (2.0, a.flatten(), a.flatten().clone())),
                         (ops.segmented_sort.default, (a, None, None, False)),
                         (ops.stencil.default, (a.double(), [-4.0, 1.0, 1.0, 1.0, 1.0], 1)),
                         (ops.gdn_forward.default, (x.requires_grad_(), beta, gamma)),
                         (ops.gdn_backward.default, (x.detach(), beta, gamma,
                                                     torch.randn_like(x)))):
            torch.library.opcheck(op, args)

    def test_errors(self):
        a = torch.randn(4, 4, device=self.dev)
        with self.assertRaisesRegex(ValueError, "CUDA"):
            got.gemm(a.cpu(), a.cpu())
        with self.assertRaisesRegex(ValueError, "do not match"):
            got.gemm(a, torch.randn(5, 4, device=self.dev))
        with self.assertRaisesRegex(TypeError, "byte array|does not take"):
            got.gemm(a.to(torch.uint8), a.to(torch.uint8))
        with self.assertRaisesRegex(ValueError, "compute"):
            got.gemm(a, a, compute="fp8")
        with self.assertRaisesRegex(ValueError, "shape"):
            got.gdn(torch.randn(1, 3, 2, 2, device=self.dev), torch.ones(4, device=self.dev),
                    torch.zeros(3, 3, device=self.dev))
        with self.assertRaises(gpuopt.GpuoptError) as cm:  # the library's own check
            got.axpy(1.0, torch.randn(4, device=self.dev, dtype=torch.float16),
                     torch.randn(4, device=self.dev, dtype=torch.float16))
        self.assertIn("gpuopt_axpy", cm.exception.message)
        ok = got.gemm(a, a)  # the context works on after errors
        self.assertLess(_rel(ok, a @ a), 1e-5)


if __name__ == "__main__":
    if SKIP_REASON is not None:
        print(f"gpuopt torch tests skipped: {SKIP_REASON}")
        sys.exit(77)
    unittest.main()
