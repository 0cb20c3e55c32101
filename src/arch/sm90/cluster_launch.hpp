// Launching thread-block clusters (host side): the cudaLaunchKernelEx configuration with the
// cluster-dimension attribute, and how many clusters of a kernel the device holds at once.
#pragma once
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>

namespace gpuopt {
namespace sm90 {

constexpr int kMaxDevices = 64;  // per-device caches of the launchers cover ordinals 0 .. 63

// The launch configuration of `threads` per block, `smem` bytes of dynamic shared memory on
// `stream`, in clusters of `cluster` CTAs along x (*attr: the cluster attribute the configuration
// points to, owned by the caller); gridDim left to set.
inline cudaLaunchConfig_t cluster_launch_config(int cluster, int threads, int smem,
                                                cudaStream_t stream, cudaLaunchAttribute* attr) {
  cudaLaunchConfig_t cfg = {};
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = static_cast<std::size_t>(smem);
  cfg.stream = stream;
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = static_cast<unsigned>(cluster);
  attr->val.clusterDim.y = 1;
  attr->val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

// How many clusters of this kernel the device can hold at once (GPC packing can hold fewer than
// sm_count / cluster), cached per device and per instantiation of this function (call it with
// one shared-memory size and block size per kCluster and Kernel type); 0 when unknown. Host-side
// query: capture-safe.
template <int kCluster, class Kernel>
int max_active_clusters(Kernel kernel, const cudaLaunchConfig_t& cfg) {
  static std::atomic<int> cache[kMaxDevices];
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) {
    cudaGetLastError();
    return 0;
  }
  int n = cache[dev].load(std::memory_order_relaxed);
  if (n > 0) return n;
  if (cudaOccupancyMaxActiveClusters(&n, kernel, &cfg) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  cache[dev].store(n, std::memory_order_relaxed);
  return n;
}

}  // namespace sm90
}  // namespace gpuopt
