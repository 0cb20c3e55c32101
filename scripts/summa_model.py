#!/usr/bin/env python3
"""The scaling model of docs/multi-gpu.md: predicted SUMMA efficiency of gpuopt_gemm_dist.

Per SUMMA step (one panel of kb columns of A and kb rows of B) every rank of a pr x pc grid
  computes   T_gemm = 2 (n / pr) (n / pc) kb / R                      (R: one GPU's GEMM rate)
  receives   T_comm = bcast(8 (n / pr) kb, pc) + bcast(8 kb (n / pc), pr)
with the alpha-beta cost of a pipelined broadcast, bcast(m, p) = alpha ceil(log2 p) + m / beta
(0 for p = 1). With one panel of look-ahead the broadcasts of step t + 1 overlap the GEMM of
step t, so a step costs max(T_gemm / s, T_comm), where s (<= 1) is the GEMM's speed while NCCL
shares the SMs, and the first panels are exposed. Efficiency = rate on P GPUs / (P R).

Links: GPUs of one node (8 per node) talk over NVLink; a broadcast that spans nodes runs at the
InfiniBand rate of one 400 Gb/s NIC per GPU. Ranks are placed row-major (rank = row pc + col),
so a grid row spans nodes once pc > 8 and a column once pc > 1 and P > 8.

Usage: summa_model.py [--rate TFLOPS] [--share S] [--nvlink GBPS] [--ib GBPS] [--measured P=E ...]
"""
import argparse
import math


def bcast(m, p, alpha, beta):
    return 0.0 if p == 1 else alpha * math.ceil(math.log2(p)) + m / beta


def grid(P):
    pr = int(math.isqrt(P))
    while P % pr:
        pr -= 1
    return pr, P // pr


def efficiency(P, n, kb, a):
    pr, pc = grid(P)
    per_node = 8
    nv = (a.alpha_nv, a.nvlink * 1e9)
    ib = (a.alpha_ib, a.ib * 1e9)
    row_link = nv if pc <= per_node else ib
    col_link = nv if P <= per_node else ib
    if a.all_nvlink:
        row_link = col_link = nv
    mloc, nloc = n / pr, n / pc
    steps = math.ceil(n / kb)
    t_gemm = 2 * mloc * nloc * kb / (a.rate * 1e12)
    t_comm = bcast(8 * mloc * kb, pc, *row_link) + bcast(8 * kb * nloc, pr, *col_link)
    total = steps * max(t_gemm / a.share, t_comm) + t_comm
    return (2.0 * n ** 3 / total) / (P * a.rate * 1e12), t_gemm, t_comm


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rate", type=float, default=52.0, help="one GPU's f64 GEMM TFLOP/s")
    ap.add_argument("--share", type=float, default=0.97,
                    help="GEMM speed while NCCL runs beside it (fraction)")
    ap.add_argument("--nvlink", type=float, default=300.0, help="NVLink broadcast GB/s")
    ap.add_argument("--ib", type=float, default=45.0, help="InfiniBand GB/s per GPU")
    ap.add_argument("--alpha-nv", type=float, default=10e-6, dest="alpha_nv")
    ap.add_argument("--alpha-ib", type=float, default=20e-6, dest="alpha_ib")
    ap.add_argument("--kb", type=int, default=2048)
    ap.add_argument("--all-nvlink", action="store_true", dest="all_nvlink",
                    help="every link NVLink (an NVL72-class domain)")
    a = ap.parse_args()
    print(f"R = {a.rate} TFLOP/s, share {a.share}, NVLink {a.nvlink} GB/s, IB {a.ib} GB/s, "
          f"alpha {a.alpha_nv * 1e6:.0f}/{a.alpha_ib * 1e6:.0f} us, kb {a.kb}"
          f"{', all NVLink' if a.all_nvlink else ''}")
    print("| GPUs | grid | n = 65536 (strong) | n = 32768 sqrt(P/4) (weak, 2 GiB of C per GPU) |")
    print("| ---- | ---- | ------------------ | ------------------------------------------------ |")
    for P in (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024):
        pr, pc = grid(P)
        strong, _, _ = efficiency(P, 65536, a.kb, a)
        n_weak = int(32768 * math.sqrt(P / 4) // a.kb * a.kb)
        weak, _, _ = efficiency(P, n_weak, a.kb, a)
        print(f"| {P} | {pr} x {pc} | {strong:.2f} | {weak:.2f} (n = {n_weak}) |")


if __name__ == "__main__":
    main()
