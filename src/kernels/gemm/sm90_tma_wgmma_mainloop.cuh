// sm90_tma_wgmma: the consumers with both operands in shared memory (the skeleton's main-loop
// part, wgmma SS form): the cooperative schedule (each consumer 64 rows of the 128 x 256 tile,
// one m64n256 per k step) and the ping-pong schedule (each consumer a whole 128 x 128 tile, two
// m64n128 per k step, alternate tiles). One wgmma group in flight (consumer_mainloop.cuh).
#pragma once
#include <cstdint>

#include "arch/sm90/warp_specialized/consumer_mainloop.cuh"
#include "arch/sm90/warp_specialized/roles.cuh"
#include "arch/sm90/warp_specialized/schedule_cooperative.cuh"
#include "arch/sm90/warp_specialized/schedule_pingpong.cuh"
#include "arch/sm90/wgmma.cuh"
#include "kernels/gemm/sm90_tma_wgmma_config.cuh"
#include "kernels/gemm/sm90_tma_wgmma_epilogue.cuh"
#include "kernels/gemm/sm90_tma_wgmma_stream_k.cuh"
#include "kernels/gemm/sm90_tma_wgmma_tile_order.cuh"

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

template <class K, class RingT>
__device__ __forceinline__ void consume_cooperative(const Params& p, const ClusterPlace& cp,
                                                    const RingT& ring, const KernelSmem& sm,
                                                    int consumer) {
  using Mma = MmaFor<typename K::In>;
  using TOut = typename K::Out;
  constexpr int kA = K::kPK ? 0 : 1, kB = K::kQK ? 0 : 1;  // wgmma transpose immediates
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  ConsumerMainloop<RingT> ml{ring};
  auto fence = [&] { fence_operands(d); };
  Cooperative<kConsumers, K::kCluster>::run(
      [&](auto&& f) { for_each_work<K::kStreamK>(p, cp, f); },
      [&](const Work& w) {
        ml.begin_unit();
        for (int kb = w.kb0; kb < w.kb1; ++kb) {
          const int j = kb - w.kb0;  // k blocks into the piece
          const int stage = ml.wait();
          const std::uint32_t sp = sm.tiles + stage * K::Cf::kStage + consumer * 64 * kRowBytes;
          const std::uint32_t sq = sm.tiles + stage * K::Cf::kStage + kTilePBytes;
          wgmma_group(fence, [&] {
#pragma unroll
            for (int s = 0; s < kMmaPerStage; ++s) {
              const std::uint64_t dp = gmma_desc(sp + s * K::kStepP, K::kLboP, K::kSbo);
              const std::uint64_t dq = gmma_desc(sq + s * K::kStepQ, K::kLboQ, K::kSbo);
              Mma::template mma<kA, kB>(d, dp, dq, (j | s) != 0 ? 1u : 0u);
            }
          });
          // The previous k block's group is complete: hand its stage back to the producer.
          ml.retire_previous(j, fence);
        }
        ml.drain(fence);
      },
      [&](const Work& w) {
        if (K::kStreamK && sk_partial_step<K::kCluster>(d, p, cp, w)) return;
        const TileCoord tc = decode_unit<K::kCluster>(w.u, p, cp.rank);
        epilogue_any<TOut, 32>(d, p, tc.x * kBlockM + consumer * 64, tc.y * kBlockN, tc.b,
                               epi_buf<K>(sm, consumer));
      });
}

template <class K, class RingT>
__device__ __forceinline__ void consume_pingpong(const Params& p, const ClusterPlace& cp,
                                                 const RingT& ring, const KernelSmem& sm,
                                                 int consumer) {
  using Mma = MmaFor<typename K::In>;
  using TOut = typename K::Out;
  using Cf = typename K::Cf;
  constexpr int kA = K::kPK ? 0 : 1, kB = K::kQK ? 0 : 1;  // wgmma transpose immediates
  float d0[64], d1[64];
  ConsumerMainloop<RingT> ml{ring};
  auto fence = [&] {
    fence_operands(d0);
    fence_operands(d1);
  };
  PingPong<K::kCluster>::template run<Cf::kNumStages>(
      cp, p.total_units, consumer, ml.pos, p.k_blocks,
      [&](int) {
        ml.begin_unit();
        for (int kb = 0; kb < p.k_blocks; ++kb) {
          const int stage = ml.wait();
          const std::uint32_t sp = sm.tiles + stage * Cf::kStage;
          const std::uint32_t sq = sp + kTilePBytes;
          wgmma_group(fence, [&] {
#pragma unroll
            for (int s = 0; s < kMmaPerStage; ++s) {
              const std::uint64_t dq = gmma_desc(sq + s * K::kStepQ, K::kLboQ, K::kSbo);
              const std::uint32_t scale = (kb | s) != 0 ? 1u : 0u;
              Mma::template mma<kA, kB>(d0, gmma_desc(sp + s * K::kStepP, K::kLboP, K::kSbo), dq,
                                        scale);
              Mma::template mma<kA, kB>(
                  d1, gmma_desc(sp + 64 * kRowBytes + s * K::kStepP, K::kLboP, K::kSbo), dq, scale);
            }
          });
          ml.retire_previous(kb, fence);
        }
      },
      [&](int u) {
        ml.drain(fence);
        const TileCoord tc = decode_unit<K::kCluster>(u, p, cp.rank);
        const int x0 = tc.x * kBlockM, y0 = tc.y * Cf::kBN;
        const std::uint32_t buf = epi_buf<K>(sm, consumer);
        epilogue_any<TOut, 16>(d0, p, x0, y0, tc.b, buf);
        epilogue_any<TOut, 16>(d1, p, x0 + 64, y0, tc.b, buf);
      });
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
