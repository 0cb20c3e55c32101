// The ping-pong schedule of a warp-specialized kernel (sm_90a): each of two consumer warpgroups
// owns whole tiles, taking alternate units of the CTA's sequence, so one's epilogue overlaps the
// other's main loop. The producer fills the stages in unit order; a consumer skips the fills of
// the other's units. The main loops take turns (named barriers 1 and 2): a consumer starts
// waiting on its unit's stages only after the other has issued its previous unit's last k
// block, since a parity wait cannot tell a phase from the one two ahead. A stage is released by
// the four warps of its one consumer, in every CTA of the cluster.
#pragma once
#include "arch/sm90/named_barrier.cuh"
#include "arch/sm90/warp_specialized/ring.cuh"
#include "arch/sm90/warp_specialized/roles.cuh"

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

template <int kCluster>
struct PingPong {
  static constexpr int kReleasers = 4 * kCluster;  // empty-barrier arrivals

  // Consumer `consumer`'s units (cluster + consumer clusters, then every 2 clusters):
  // mainloop(u) in turn with the other consumer, then epilogue(u). pos: the consumer's ring
  // position; k_blocks: fills per unit.
  template <int kStages, class Mainloop, class Epilogue>
  static __device__ __forceinline__ void run(const ClusterPlace& cp, int units, int consumer,
                                             RingPos& pos, int k_blocks, Mainloop&& mainloop,
                                             Epilogue&& epilogue) {
    if (consumer == 1) pos.template skip<kStages>(k_blocks);
    for (int u = cp.cluster + consumer * cp.clusters; u < units; u += 2 * cp.clusters) {
      // The CTA's unit before this one (the other consumer's) exists unless this is unit 0.
      if (u - cp.clusters >= cp.cluster) named_sync(1 + consumer, 256);
      mainloop(u);
      // Hand the main loop over to the other consumer if it has the next unit.
      if (u + cp.clusters < units) named_arrive(2 - consumer, 256);
      epilogue(u);
      pos.template skip<kStages>(k_blocks);
    }
  }
};

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
