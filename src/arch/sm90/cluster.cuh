// Thread-block clusters on the device (sm_90a): this CTA's rank in its cluster and the
// cluster-wide barrier. The host side (launch attribute, occupancy) is in cluster_launch.hpp.
#pragma once
#include <cstdint>

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

__device__ __forceinline__ std::uint32_t cluster_ctarank() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// Full cluster barrier (every thread of every CTA of the cluster; threads may be diverged).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}

// Every thread of the kCluster CTAs meets (kCluster 1: of this CTA): after the barriers'
// initialisation, before any multicast or remote arrive can reach them.
template <int kCluster>
__device__ __forceinline__ void cluster_or_cta_sync() {
  if constexpr (kCluster > 1)
    cluster_sync();
  else
    __syncthreads();
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
