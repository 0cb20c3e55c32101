// gdn sm90_onepass_fused: the producer (the warp-specialized skeleton's load part; design in
// sm90_onepass_bwd_kernel.cuh): thread 0 of warpgroup 0 loads x and dy into the two slots and
// streams gamma and gamma^T through the ring, the same fills for every tile (live or not), each
// CTA of a cluster its share of a fill, multicast to all.
#pragma once
#include <cuda.h>

#include <cstdint>

#include "arch/sm90/mbarrier.cuh"
#include "arch/sm90/tma.cuh"
#include "arch/sm90/warp_specialized/ring.cuh"
#include "arch/sm90/warp_specialized/roles.cuh"
#include "kernels/gdn/sm90_onepass_bwd_tiles.cuh"

namespace gpuopt {
namespace gdn_onepass {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// The kernel's tensor maps (x, dy: [image][channel][pixel]; gamma and gamma^T).
struct Maps {
  const CUtensorMap* x;
  const CUtensorMap* dy;
  const CUtensorMap* g;
  const CUtensorMap* gt;
};

// slot0: the two 64 KiB slots (sfull0 / sempty0: their barriers), ring_base: the ring's fills.
template <int kCluster, bool kF32, class RingT>
__device__ __forceinline__ void produce(const Maps& maps, const Params& p,
                                        const sm90::ClusterPlace& cp, const RingT& ring,
                                        std::uint32_t ring_base, std::uint32_t slot0,
                                        std::uint32_t sfull0, std::uint32_t sempty0, int tiles) {
  using namespace sm90;
  constexpr int kShare = 128 / kCluster;  // rows of a fill this CTA loads and multicasts
  const int rank = cp.rank, cluster = cp.cluster, clusters = cp.clusters;
  const int kbn = p.kblocks;
  constexpr int kP = kParts<kF32>;  // gamma parts per k block (f32: bf16 pairs, hi)
  const int fills = 4 * kP * kbn;   // ring fills per tile
  tma_prefetch_desc(maps.x);
  tma_prefetch_desc(maps.dy);
  tma_prefetch_desc(maps.g);
  tma_prefetch_desc(maps.gt);
  // x and dy are read once: evict them first, so the gamma fills every tile re-reads stay in L2.
  const std::uint64_t once = l2_evict_first(), kept = l2_evict_last();
  // Tensor `m` (x or dy) of tile i into slot s: fill number i of that slot (see above), once the
  // slot's previous tensor is done with.
  auto load_slot = [&](const CUtensorMap* m, int i, int s) {
    mbar_wait(sempty0 + 8 * s, (i & 1) ^ 1u);
    const Tile tl = tile_of<kCluster>(i, p, cluster, clusters, rank);
    if (!tl.live) {
      mbar_arrive(sfull0 + 8 * s);
      return;
    }
    mbar_arrive_expect_tx(sfull0 + 8 * s, kbn * kXBlockBytes);
    for (int kb = 0; kb < kbn; ++kb)
      for (int b = 0; b < 2; ++b)
        tma_load_3d_hint(slot0 + s * kSlotBytes + kb * kXBlockBytes + b * kBoxBytes, m,
                         sfull0 + 8 * s, tl.px0 + 32 * b, 32 * kb, tl.n, once);
  };
  if (tiles > 0) load_slot(maps.x, 0, 0);
  const int g1 = 2 * kP * kbn;  // GEMM 1's fills
  const int early = g1 < kRing ? g1 : kRing;
  // x(i + 1) after fill x_at - 1 of tile i: once GEMM 2's first half (kP kbn fills) has taken
  // its last fill back (or, with fewer than kRing fills per half, after the tile's last fill).
  const int half = kP * kbn;
  const int x_at = g1 + half + (half < kRing ? half : kRing);  // <= fills = g1 + 2 half
  RingPos pos;
  for (int i = 0; i < tiles; ++i) {
    for (int f = 0; f < fills; ++f) {
      const std::uint32_t full = ring.acquire(pos, kFillBytes);
      const std::uint32_t dst = ring_base + pos.stage * kFillBytes;
      const std::uint16_t all = static_cast<std::uint16_t>((1 << kCluster) - 1);
      if (f < g1) {
        // gamma rows 128 (f % 2) + [0, 128), this CTA's share, of part (f / 2) % kP of k block
        // f / (2 kP)
        const int k0 = gamma_col<kF32>(f / (2 * kP), (f >> 1) % kP);
        const int r0 = 128 * (f & 1) + rank * kShare;
        if constexpr (kCluster > 1)
          tma_load_3d_multicast(dst + rank * kShare * 128, maps.g, full, k0, r0, 0, all);
        else
          tma_load_3d_hint(dst, maps.g, full, k0, r0, 0, kept);
      } else {
        // gamma^T: fill row r (0..127) is row (r / 64) * 128 + 64 h + r % 64
        const int g = f - g1, h = g / (kP * kbn), gk = g - h * kP * kbn;
        const int k0 = gamma_col<kF32>(gk / kP, gk % kP);
        if constexpr (kCluster > 1) {
          const int r = rank * kShare;
          tma_load_3d_multicast(dst + r * 128, maps.gt, full, k0,
                                (r >> 6) * 128 + 64 * h + (r & 63), 0, all);
        } else {
          tma_load_3d_hint(dst, maps.gt, full, k0, 64 * h, 0, kept);
          tma_load_3d_hint(dst + 64 * 128, maps.gt, full, k0, 128 + 64 * h, 0, kept);
        }
      }
      pos.template advance<kRing>();
      // dy(i) once GEMM 2 of tile i - 1 has read t(i - 1) from its slot (the first fills of this
      // tile's GEMM 1 are queued); x(i + 1) at x_at (load_slot waits for epilogue 1 to have
      // read dy(i) there): it lands under GEMM 2's second half and GEMM 1's first fills. Loaded as
      // soon as epilogue 1 was done (g1 + early), it landed under the first half and delayed its
      // fills (history round 24: G2's first half 8.0 -> 4.7 K cycles, tf32 pass -4.9%, f32 -5.6%).
      if (f + 1 == early) load_slot(maps.dy, i, (i + 1) & 1);
      if (f + 1 == x_at && i + 1 < tiles) load_slot(maps.x, i + 1, (i + 1) & 1);
    }
  }
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace gdn_onepass
}  // namespace gpuopt
