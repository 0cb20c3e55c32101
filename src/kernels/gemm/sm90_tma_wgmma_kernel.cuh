// The sm90_tma_wgmma GEMM kernel (sm_90a): a persistent, warp-specialized TMA + wgmma pipeline,
// assembled from the warp-specialized skeleton (src/arch/sm90/warp_specialized/: roles, stage
// ring, consumer main loop, cooperative and ping-pong schedules) and this GEMM's parts: tile
// order (sm90_tma_wgmma_tile_order.cuh), work sequence with the stream-K tail (_stream_k.cuh),
// producer (_producer.cuh), main loops (_mainloop.cuh, _mainloop_regp.cuh), epilogues
// (_epilogue.cuh); the instantiation's choices in KernelCfg (_config.cuh). Design and layout
// mapping: docs/notes/gemm-sm90.md.
//
// The kernel computes D = P * Q^T in wgmma terms, with D(j, i) = C(i, j): the wgmma M dimension
// runs over gpuopt's n (columns of C), the wgmma N dimension over gpuopt's m (rows of C), so each
// thread's accumulator pairs are two consecutive rows of one column of C (8-byte stores).
//   P (wgmma A, kBlockM x K tile): P(j, kk) = op(B)(kk, j); K-major when trans_b == N.
//   Q (wgmma B, kBlockN x K tile): Q(i, kk) = op(A)(i, kk); K-major when trans_a == T.
// Block: 384 threads = producer warpgroup (one thread issues TMA) + 2 consumer warpgroups, each
// computing 64 x 256 of the 128 x 256 tile with wgmma m64n256 (cooperative), or each a whole
// 128 x 128 tile with two m64n128, alternating tiles (ping-pong, kPP). Shared memory: stages of
// (P tile, Q tile), each row of a tile 128 bytes of K, 128-byte swizzled by TMA. tf32 NN / TT:
// the MN-major operand becomes P and is read into registers (kPRegs; NN also swaps P and Q).
// Epilogue of the shared-operand schedules and of the register-P path's plain GEMM: staged
// (kEpiStaged) through a 2 KiB buffer per consumer warp after the ring, so that C is written in
// whole 128-byte lines (4 per store instruction, not one sector of each of 8): the direct
// stores' partial-line traffic delayed the next tile's loads; the change took bf16 4096^3 from
// 0.97 to 1.01 of same-run cuBLAS on an H100, tf32 TT 4096^3 +2%, NN +0.8% (NN stages per warp
// pair: a warp holds half of each line; docs/notes/gemm-sm90.md, "Staged epilogue", "Register-P
// staged epilogue").
// Fused users supply a Hook of the register-P path (sm90_tma_wgmma_hook.cuh): operand and
// epilogue rewrites, resident P, split-K coordinates, 3xTF32 with Q's low part formed in shared
// memory.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <type_traits>

#include "arch/sm90/smem.cuh"
#include "arch/sm90/warp_specialized/ring.cuh"
#include "arch/sm90/warp_specialized/roles.cuh"
#include "arch/sm90/warp_specialized/schedule_cooperative.cuh"
#include "arch/sm90/warp_specialized/schedule_pingpong.cuh"
#include "kernels/gemm/sm90_tma_wgmma.hpp"
#include "kernels/gemm/sm90_tma_wgmma_config.cuh"
#include "kernels/gemm/sm90_tma_wgmma_mainloop.cuh"
#include "kernels/gemm/sm90_tma_wgmma_mainloop_regp.cuh"
#include "kernels/gemm/sm90_tma_wgmma_producer.cuh"

namespace gpuopt {
namespace sm90 {

// K: a KernelCfg.
template <class K>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_sm90_tma_wgmma_kernel(const __grid_constant__ CUtensorMap map_p,
                               const __grid_constant__ CUtensorMap map_q, const Params p,
                               const typename K::Hook hook) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr int kNumStages = K::kNumStages;
  using RingT = Ring<kNumStages, K::kCluster>;
  using Schedule =
      std::conditional_t<K::kPP, PingPong<K::kCluster>, Cooperative<kConsumers, K::kCluster>>;
  extern __shared__ unsigned char smem_raw[];
  // full[0..S), empty[S..2S); resident P: then xfull[0..X), xempty[0..X) of its k blocks
  __shared__ alignas(8) std::uint64_t bars[K::kNumBars];
  KernelSmem sm;
  sm.tiles = (smem_addr(smem_raw) + 1023u) & ~1023u;
  const RingT ring{smem_addr(&bars[0]), smem_addr(&bars[kNumStages])};
  sm.xfull0 = ring.full0 + 8 * 2 * kNumStages;
  sm.xempty0 = sm.xfull0 + 8 * kResXBlocks;
  sm.epi = sm.tiles + K::kEpiBase;
  using WS = WarpSpecialized<K::kCluster, kProducerRegs, kConsumerRegs>;
  const ClusterPlace cp = WS::start([&] {
    ring.init(Schedule::kReleasers);
    if constexpr (K::kRes) {
      for (int b = 0; b < kResXBlocks; ++b) {
        mbar_init(sm.xfull0 + 8 * b, 1);                // the producer's arrive.expect_tx
        mbar_init(sm.xempty0 + 8 * b, 4 * kConsumers);  // each consumer warp of this CTA
      }
    }
  });
  WS::run([&] { produce<K>(map_p, map_q, p, hook, cp, ring, sm); },
          [&](int consumer) {
            if constexpr (K::kPP)
              consume_pingpong<K>(p, cp, ring, sm, consumer);
            else if constexpr (K::kPRegs)
              consume_regp<K>(p, hook, cp, ring, sm, consumer);
            else
              consume_cooperative<K>(p, cp, ring, sm, consumer);
          });
#else
  __trap();  // never launched off sm_90a (the registry's exact_cc 90)
#endif  // __CUDA_ARCH_FEAT_SM90_ALL
}

}  // namespace sm90
}  // namespace gpuopt
