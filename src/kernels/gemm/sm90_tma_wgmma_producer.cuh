// sm90_tma_wgmma: the producer (the skeleton's load part): thread 0 of warpgroup 0 walks the
// CTA's work (units in tile order, then its stream-K range: sm90_tma_wgmma_stream_k.cuh) and, per k
// block, fills a ring stage with the P and Q tiles by TMA (Q multicast across the cluster);
// resident P: each P k block once per tile, into its own buffer.
#pragma once
#include <cuda.h>

#include <cstdint>

#include "arch/sm90/mbarrier.cuh"
#include "arch/sm90/tma.cuh"
#include "arch/sm90/warp_specialized/ring.cuh"
#include "arch/sm90/warp_specialized/roles.cuh"
#include "kernels/gemm/sm90_tma_wgmma_config.cuh"
#include "kernels/gemm/sm90_tma_wgmma_stream_k.cuh"
#include "kernels/gemm/sm90_tma_wgmma_tile_order.cuh"

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

template <class K, class RingT>
__device__ __forceinline__ void produce(const CUtensorMap& map_p, const CUtensorMap& map_q,
                                        const Params& p, const typename K::Hook& hook,
                                        const ClusterPlace& cp, const RingT& ring,
                                        const KernelSmem& sm) {
  using Hook = typename K::Hook;
  using Cf = typename K::Cf;
  constexpr int kCluster = K::kCluster, kMnBox = K::kMnBox, kKElems = K::kKElems;
  constexpr int kChunkBytes = K::kChunkBytes, kQRows = K::kQRows;
  constexpr bool kRes = K::kRes;
  const std::uint32_t tiles = sm.tiles, xfull0 = sm.xfull0, xempty0 = sm.xempty0;
  const int rank = cp.rank;
  tma_prefetch_desc(&map_p);
  tma_prefetch_desc(&map_q);
  RingPos pos;
  std::uint32_t xphase = 0;
  for_each_work<K::kStreamK>(p, cp, [&](const Work& w) {
    const TileCoord tc = decode_unit<kCluster>(w.u, p, rank);
    const int x0 = tc.x * kBlockM, y0 = tc.y * Cf::kBN;
    for (int kb = w.kb0; kb < w.kb1; ++kb) {
      if constexpr (kRes) {
        // Resident P: its k block once per tile, when the consumers' epilogue of the previous
        // tile has read the block (parity xphase ^ 1: passes at once on tile 0).
        if (kb % Hook::kPRepeat == 0) {
          const int xb = kb / Hook::kPRepeat;
          mbar_wait(xempty0 + 8 * xb, xphase ^ 1u);
          mbar_arrive_expect_tx(xfull0 + 8 * xb, kTilePBytes);
#pragma unroll
          for (int c = 0; c < kBlockM / kMnBox; ++c)
            tma_load_3d(tiles + xb * kTilePBytes + c * kChunkBytes, &map_p, xfull0 + 8 * xb,
                        x0 + c * kMnBox, xb * kKElems, tc.b);
        }
      }
      // With a cluster, both CTAs' consumers release a stage (the multicast writes the peer's
      // stage too).
      const std::uint32_t full = ring.acquire(pos, kRes ? kTileQBytes : Cf::kStage);
      const std::uint32_t sp = tiles + pos.stage * Cf::kStage;
      const std::uint32_t sq =
          kRes ? tiles + K::kRingBase + pos.stage * kTileQBytes : sp + kTilePBytes;
      int k0 = kb * kKElems, kp = (kb / Hook::kPRepeat) * kKElems;
      int qb = Hook::kQShared ? 0 : tc.b, pb = tc.b;
      if constexpr (HookSplitK<Hook>::value) hook.coords(tc.b, kb, kp, pb, k0, qb);
      if constexpr (kRes) {
        // (P loaded above)
      } else if constexpr (K::kPK) {
        tma_load_3d(sp, &map_p, full, kp, x0, pb);
      } else {
#pragma unroll
        for (int c = 0; c < kBlockM / kMnBox; ++c)
          tma_load_3d(sp + c * kChunkBytes, &map_p, full, x0 + c * kMnBox, kp, tc.b);
      }
      // Q: this CTA's kQRows rows; with a cluster, multicast into both CTAs (each CTA's full
      // barrier expects the whole stage: its P, its half of Q and the peer's half).
      if constexpr (K::kQK) {
        const std::uint32_t dst = sq + rank * kQRows * kRowBytes;
        if constexpr (kCluster > 1)
          tma_load_3d_multicast(dst, &map_q, full, k0, y0 + rank * kQRows, qb, 0x3);
        else
          tma_load_3d(dst, &map_q, full, k0, y0, qb);
      } else {
#pragma unroll
        for (int i = 0; i < kQRows / kMnBox; ++i) {
          const int c = rank * (kQRows / kMnBox) + i;
          if constexpr (kCluster > 1)
            tma_load_3d_multicast(sq + c * kChunkBytes, &map_q, full, y0 + c * kMnBox, k0, qb, 0x3);
          else
            tma_load_3d(sq + c * kChunkBytes, &map_q, full, y0 + c * kMnBox, k0, qb);
        }
      }
      pos.template advance<K::kNumStages>();
    }
    xphase ^= 1u;
  });
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
