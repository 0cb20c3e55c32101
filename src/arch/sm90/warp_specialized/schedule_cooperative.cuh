// The cooperative schedule of a warp-specialized kernel (sm_90a): every consumer warpgroup works
// on every tile of the CTA's sequence (each on its share of the tile), so a stage is released by
// each warp of each consumer, in every CTA of the cluster that the stage's multicast fills.
#pragma once
#include "arch/sm90/warp_specialized/roles.cuh"

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

template <int kConsumers, int kCluster>
struct Cooperative {
  static constexpr int kReleasers = 4 * kConsumers * kCluster;  // empty-barrier arrivals

  // The CTA's units (cluster, cluster + clusters, ...): mainloop(u), then epilogue(u).
  template <class Mainloop, class Epilogue>
  static __device__ __forceinline__ void run(const ClusterPlace& cp, int units, Mainloop&& mainloop,
                                             Epilogue&& epilogue) {
    for (int u = cp.cluster; u < units; u += cp.clusters) {
      mainloop(u);
      epilogue(u);
    }
  }
};

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
