// gdn sm90_onepass_fused: the whole backward pass but dgamma in one kernel (sm_90a): per
// 64-pixel tile z = gamma x^2 (wgmma, x^2 the register operand), t = dy x ds/dz, dx0 = dy s,
// u = gamma^T t (wgmma, t from shared memory) and dx = dx0 + 2 x u, so t goes to DRAM once (for
// the dgamma GEMM) and is never read back for dx. The three-stage pass (sm90_wgmma_fused) moves
// 10 tensors through DRAM (x, dy in; t, dx out; t, x, dx in, dx out; t, x in): a 0.445 ms floor
// on the H100 at N = 32, C = 256, 64 x 64 against the 0.467 ms bar. This kernel moves 4 (x, dy
// in; t, dx out), and the dgamma GEMM 2 more. H100, tf32 backward pass (N = 32, C = 256,
// 64 x 64): this kernel 341 us, the pass 0.458 ms = 2.04x composed (three-stage: 0.62 ms);
// with round 20's tf32 groups retired at once, pipelined epilogue-1 loads and no L2 prefetch of
// x: 310 us, the pass 0.438 ms = 2.14x (probe build with a programmatic-dependent launch the
// library does not use, measured alone at +1%); with round 24's later x(i + 1) load (below):
// 0.4273 -> 0.4063 ms = 2.31x composed in one process (f32 0.6217 -> 0.5867 ms); every
// version's figure in docs/notes/history/gdn-rounds.md, rounds 13, 20 and 24.
// f32 mode (kF32, round 15) is 3xTF32 without more shared memory: GEMM 1 splits x^2 into TF32 hi
// and lo parts in registers; GEMM 2 forms t_lo = t - trunc(t) in registers from the slot while t
// itself stays the shared operand; the gamma stream carries a bf16-pair fill (g, g_lo) and a hi
// fill per k block (twice the fills, 1 MiB per tile). The two corrections are ONE bf16 wgmma
// (round 18): the register operand holds the pairs (lo, hi) of x^2 (GEMM 1) or t (GEMM 2), so
// k 2j, 2j + 1 of an m64nNk16 are TF32 k j's lo * g and hi * g_lo. Products per k step:
// (x2_lo, x2_hi) (g, g_lo), x2_hi g_hi; (t_lo, t_hi) (g, g_lo), t g_hi. H100, f32 backward pass:
// this kernel 506 us (532 with three TF32 products), the pass 0.671 ms = 2.58x composed.
//
// Block: 384 threads, one CTA per SM, persistent, clusters of kCluster CTAs (1 as built: the
// multicast's lock-step cost more than the L2 reads it saved). With clusters of 1 a CTA walks
// only its own units' tiles: at the bar shape 1024 units on 132 CTAs, the 32 CTAs without a unit
// in the last round exit instead of streaming 1 MiB of gamma fills through L2 beside the 100
// working ones (round 22: tf32 pass -0.5% / -0.6% in two H100 calls, f32 +0.2% / +0.3%, noise).
//   producer warpgroup: one thread issues TMA: x and dy tiles into two 64 KiB slots, and the
//     gamma stream through a ring of 16 KiB fills: per tile and 32-deep k block, gamma rows
//     0..127 and 128..255 (GEMM 1, one fill per consumer), then per half h of each consumer's
//     channels gamma^T's rows (GEMM 2); each CTA of a cluster loads 128 / kCluster rows of a fill
//     and multicasts them to all (the cluster's CTAs walk the same stream in lock-step).
//   consumer warpgroup cw (0, 1): output channels 128 cw .. 128 cw + 127 of both GEMMs for the
//     tile's 64 pixels.
// Slots (MN-major [32-channel block][32-pixel box][channel][32 pixels], 128-byte swizzled by
// TMA): slot i % 2 holds x(i), then t(i) (t's k block K over x's channel block K), then dy(i + 1);
// slot (i + 1) % 2 holds dy(i), then x(i + 1): dy comes by TMA like x (as registers loaded at
// the tile's start it waited on L2 misses) and each slot's next tensor loads as soon as its last
// reader is done, but x(i + 1) only once GEMM 2's first half has taken its fills: loaded right
// after epilogue 1, it landed under that half and delayed its fills (round 24, a clock64 trace:
// the half 8.0 -> 4.7 K cycles, the tile 33.6 -> 31.7 K). x and dy load evict-first, the gamma
// fills evict-last: every tile re-reads gamma, and the streamed tensors had pushed it out of L2
// (DRAM reads 331 -> 274 MB, -9%). Per tile:
//   GEMM 1: z(p, c) = sum_j x(j, p)^2 gamma(c, j), wgmma m64n128k8, A from registers (8-byte
//     shared loads of two pixels, RegRows' conflict-free rows; squared there, truncated to TF32
//     by the tensor cores); in tf32 both GEMMs retire each k block's group at once
//     (ConsumerMainloop::retire_now): a queued group held a second stage per consumer, leaving 2
//     of the 6 fills to prefetch, and the k blocks waited on gamma's L2 round trips (round 20);
//   epilogue 1: both consumers meet (GEMM 1 has read x); per 32-channel block of this consumer:
//     x and dy pairs from the slots (the next block's loaded under this block's math), the
//     consumer meets (block read), t = dy x ds/dz to global
//     (the dgamma GEMM) and over the block's bytes as GEMM 2's A operand, K-major
//     [k block][64 rows][128 B] swizzled (logical wgmma rows, so GEMM 2's accumulator rows are
//     GEMM 1's pixels); x kept in registers where z was (ptxas keeps a wgmma accumulator block
//     whole while any of it lives), dx0 = dy s stored to dx (64 more registers through GEMM 2
//     spilled); both meet again (t written, fenced to the async proxy); the dbeta partial of
//     one channel per thread from t's column (fixed order);
//   GEMM 2 in two halves of the consumer's channels (m64n64k8, both operands from shared
//     memory, 32 accumulators; one m64n128 pass spilled), each followed by dx = dx0 + 2 x u,
//     the half's dx0 read back from L2 under its GEMM (streaming stores).
// dbeta partials per 128-pixel unit (the two 64-pixel tiles of a unit run back to back): the
// layout of `fused`'s z/t stage, so its fixed-order sums serve.
// The kernel is the warp-specialized skeleton (src/arch/sm90/warp_specialized/: roles, the
// gamma ring, the consumer main loop) with this op's parts: sizes and tile order
// (sm90_onepass_bwd_tiles.cuh), producer (_producer.cuh), consumer (_consumer.cuh).
#pragma once
#include <cuda.h>

#include <cstdint>

#include "arch/sm90/mbarrier.cuh"
#include "arch/sm90/smem.cuh"
#include "arch/sm90/warp_specialized/ring.cuh"
#include "arch/sm90/warp_specialized/roles.cuh"
#include "arch/sm90/warp_specialized/schedule_cooperative.cuh"
#include "kernels/gdn/sm90_onepass_bwd_consumer.cuh"
#include "kernels/gdn/sm90_onepass_bwd_producer.cuh"
#include "kernels/gdn/sm90_onepass_bwd_tiles.cuh"

namespace gpuopt {
namespace gdn_onepass {

template <int kCluster, bool kInverse, bool kF32>
__global__ void __launch_bounds__(kThreads, 1)
    gdn_onepass_bwd_kernel(const __grid_constant__ CUtensorMap map_x,
                           const __grid_constant__ CUtensorMap map_dy,
                           const __grid_constant__ CUtensorMap map_g,
                           const __grid_constant__ CUtensorMap map_gt, const Params p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace sm90;
  using RingT = Ring<kRing, kCluster>;
  extern __shared__ unsigned char smem_raw[];
  // full[kRing], empty[kRing], sfull[2], sempty[2] (the slots)
  __shared__ alignas(8) std::uint64_t bars[2 * kRing + 4];
  // beta (1 beyond C), read by epilogue 1 from shared memory: as __ldg loads the compiler hoisted
  // all 32 of a thread's to the tile's start, registers that epilogue 1 then spilled.
  __shared__ float sbeta[kMaxC];
  const std::uint32_t slot0 = (smem_addr(smem_raw) + 1023u) & ~1023u;
  const std::uint32_t ring_base = slot0 + 2 * kSlotBytes;
  const std::uint32_t full0 = smem_addr(&bars[0]);
  const RingT ring{full0, full0 + 8 * kRing};
  const std::uint32_t sfull0 = full0 + 16 * kRing, sempty0 = sfull0 + 16;
  using WS = WarpSpecialized<kCluster, kProducerRegs, kConsumerRegs>;
  // Every fill is released by each consumer warp of each CTA (the one that does not read it
  // passes it at once).
  const ClusterPlace cp = WS::start([&] {
    ring.init(Cooperative<2, kCluster>::kReleasers);
    for (int s = 0; s < 2; ++s) {
      mbar_init(sfull0 + 8 * s, 1);
      mbar_init(sempty0 + 8 * s, 8);
    }
  });
  // Tiles of this CTA: with clusters of 1 only its own units' (a CTA without a unit in the last
  // round exits a round early); clusters walk the gamma stream in lock-step, so every CTA of a
  // cluster walks the cluster's rounds.
  const int per_round = cp.clusters * kCluster;
  const int first = kCluster == 1 ? cp.cluster : 0;
  const int tiles = 2 * ((p.units - first + per_round - 1) / per_round);
  WS::run(
      [&] {
        const Maps maps{&map_x, &map_dy, &map_g, &map_gt};
        produce<kCluster, kF32>(maps, p, cp, ring, ring_base, slot0, sfull0, sempty0, tiles);
      },
      [&](int cw) {
        consume<kCluster, kInverse, kF32>(p, cw, cp, ring, ring_base, slot0, sfull0, sempty0, sbeta,
                                          tiles);
      });
#else
  __trap();  // never launched off sm_90a (the registry's exact_cc 90)
#endif
}

}  // namespace gdn_onepass
}  // namespace gpuopt
