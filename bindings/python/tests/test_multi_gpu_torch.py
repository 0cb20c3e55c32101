"""Collectives from Python on torch tensors of several GPUs (one process, gpuopt.Comm.create_local).

Needs PyTorch, two GPUs and NCCL; exits 77 (skipped) otherwise. scripts/multi-gpu-check.sh runs it
on the multi-GPU machines (NCCL_NVLS_ENABLE=0 is set below before NCCL starts).
"""
import os
import sys
import unittest

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

try:
    import torch
except ImportError:  # pragma: no cover - depends on the machine
    torch = None

import gpuopt


def _why_skip():
    if torch is None:
        return "PyTorch is not installed"
    if not torch.cuda.is_available() or torch.cuda.device_count() < 2:
        return "fewer than 2 CUDA devices"
    try:
        gpuopt.nccl_version()
    except gpuopt.GpuoptError as e:
        return "NCCL is not available: %s" % e
    return None


class TorchCollectives(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.n = min(torch.cuda.device_count(), 4)
        cls.ctxs = [gpuopt.Context(i) for i in range(cls.n)]
        cls.streams = [c.wrap_stream(torch.cuda.current_stream(i).cuda_stream)
                       for i, c in enumerate(cls.ctxs)]
        cls.comms = gpuopt.Comm.create_local(cls.ctxs)

    @classmethod
    def tearDownClass(cls):
        for c in cls.comms:
            c.close()
        for s in cls.streams:
            s.close()
        for c in cls.ctxs:
            c.close()

    def sync(self):
        for i in range(self.n):
            torch.cuda.synchronize(i)

    def test_allreduce_in_place_every_op_exact_on_integers(self):
        count = 1000003  # odd
        for dtype, ops in ((torch.int64, ("sum", "min", "max")), (torch.float32, ("sum", "max"))):
            for op in ops:
                xs = [torch.randint(-1000, 1000, (count,), device="cuda:%d" % i).to(dtype)
                      for i in range(self.n)]
                ref = [x.cpu() for x in xs]
                with gpuopt.group():
                    for c, s, x in zip(self.comms, self.streams, xs):
                        gpuopt.allreduce(c, s, x, op=op)
                self.sync()
                want = ref[0].clone()
                for r in ref[1:]:
                    want = want + r if op == "sum" else (torch.minimum(want, r) if op == "min"
                                                         else torch.maximum(want, r))
                for x in xs:  # integer values: exact in f32 too
                    self.assertTrue(torch.equal(x.cpu(), want), (dtype, op))

    def test_allgather_and_broadcast_out_of_place(self):
        count = 4099
        xs = [torch.rand(count, device="cuda:%d" % i, dtype=torch.float64) for i in range(self.n)]
        outs = [torch.full((count * self.n,), float("nan"), device="cuda:%d" % i,
                           dtype=torch.float64) for i in range(self.n)]
        with gpuopt.group():
            for c, s, x, o in zip(self.comms, self.streams, xs, outs):
                gpuopt.allgather(c, s, x, o)
        self.sync()
        want = torch.cat([x.cpu() for x in xs])
        for o in outs:
            self.assertTrue(torch.equal(o.cpu(), want))
        bufs = [torch.full((count,), -1.0, device="cuda:%d" % i, dtype=torch.float64)
                for i in range(self.n)]
        with gpuopt.group():
            for c, s, x, b in zip(self.comms, self.streams, xs, bufs):
                gpuopt.broadcast(c, s, b, root=1, send=x)
        self.sync()
        for b in bufs:
            self.assertTrue(torch.equal(b.cpu(), xs[1].cpu()))

    def test_host_tensor_is_refused_before_anything_is_enqueued(self):
        x = torch.ones(8)  # host memory: refused on this rank alone, nothing reaches NCCL
        with self.assertRaises((gpuopt.GpuoptError, TypeError, ValueError)):
            gpuopt.allreduce(self.comms[0], self.streams[0], x)

if __name__ == "__main__":
    why = _why_skip()
    if why:
        print("skipped: " + why)
        sys.exit(77)
    unittest.main()
