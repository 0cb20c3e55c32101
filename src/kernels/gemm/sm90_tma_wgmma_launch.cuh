// sm90_tma_wgmma: the launch of one kernel instantiation (included by the per-type .cu files).
#pragma once
#include <cuda_runtime_api.h>

#include <atomic>

#include "common/launch.hpp"
#include "kernels/gemm/sm90_tma_wgmma.hpp"
#include "kernels/gemm/sm90_tma_wgmma_kernel.cuh"
#include "runtime/error.hpp"

namespace gpuopt {
namespace sm90 {

constexpr int kMaxDevices = 64;  // the per-device caches below cover ordinals 0 .. 63

// How many clusters of this kernel the device can hold at once (GPC packing can hold fewer than
// sm_count / cluster), cached per device and cluster size (every instantiation has the same
// shared memory and block size); 0 when unknown. Host-side query: capture-safe.
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

// The launch configuration of persistent warp-specialized kernels: `threads` per block, `smem`
// bytes of dynamic shared memory, env's stream, clusters of `cluster` CTAs along x (*attr: the
// cluster attribute the configuration points to, owned by the caller); gridDim left to set.
inline cudaLaunchConfig_t cluster_launch_config(int cluster, int threads, int smem,
                                                const ExecEnv& env, cudaLaunchAttribute* attr) {
  cudaLaunchConfig_t cfg = {};
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = static_cast<std::size_t>(smem);
  cfg.stream = env.stream;
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = static_cast<unsigned>(cluster);
  attr->val.clusterDim.y = 1;
  attr->val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

// hook: the register-P path's hooks (IdentityHook for the GEMM; see the kernel).
template <class TIn, class TOut, bool kPK, bool kQK, int kCluster, bool kPRegs, bool kSwap,
          bool kPP, class Hook = IdentityHook>
gpuopt_status_t launch_cluster(const Plan& plan, const ExecEnv& env, const Hook& hook = Hook{}) {
  auto* kernel =
      gemm_sm90_tma_wgmma_kernel<TIn, TOut, kPK, kQK, kCluster, kPRegs, kSwap, kPP, Hook>;
  constexpr int kSmem = Hook::kPResident              ? kResSmemBytes
                        : HookQSplitSmem<Hook>::value ? kQsSmemBytes
                                                      : kSmemBytes;
  // Host-side attribute, no stream work: fine during graph capture. It stays with the kernel in
  // the device's context, so it is set once per device (this function is one per kernel).
  static std::atomic<bool> smem_raised[kMaxDevices];
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) {
    cudaGetLastError();
    dev = -1;
  }
  if (dev < 0 || !smem_raised[dev].load(std::memory_order_acquire)) {
    GPUOPT_TRY_CUDA(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem), env.fn,
        "gemm sm90_tma_wgmma: raising the shared-memory limit");
    if (dev >= 0) smem_raised[dev].store(true, std::memory_order_release);
  }
  cudaLaunchAttribute attr;
  cudaLaunchConfig_t cfg = cluster_launch_config(kCluster, kThreads, kSmem, env, &attr);
  cfg.gridDim = dim3(static_cast<unsigned>(plan.grid));
  // Persistent CTAs must all be resident: a cluster left waiting would start only after a whole
  // resident cluster's share of the work.
  const int resident = max_active_clusters<kCluster>(kernel, cfg);
  if (resident > 0 && plan.grid > resident * kCluster)
    cfg.gridDim = dim3(static_cast<unsigned>(resident * kCluster));
  GPUOPT_TRY_CUDA(cudaLaunchKernelEx(&cfg, kernel, plan.map_p, plan.map_q, plan.params, hook),
                  env.fn, "gemm sm90_tma_wgmma kernel launch");
  return check_launch(env.fn, "gemm sm90_tma_wgmma kernel launch");
}

template <class TIn, class TOut, bool kPK, bool kQK, bool kPRegs = false, bool kSwap = false,
          bool kPP = false>
gpuopt_status_t launch_one(const Plan& plan, const ExecEnv& env) {
  return plan.cluster > 1
             ? launch_cluster<TIn, TOut, kPK, kQK, kMaxCluster, kPRegs, kSwap, kPP>(plan, env)
             : launch_cluster<TIn, TOut, kPK, kQK, 1, kPRegs, kSwap, kPP>(plan, env);
}

// The four operand majorities of one (TIn, TOut) and schedule.
template <class TIn, class TOut, bool kPP>
gpuopt_status_t launch_majors_of(const Plan& plan, const ExecEnv& env) {
  if (plan.p_kmajor)
    return plan.q_kmajor ? launch_one<TIn, TOut, true, true, false, false, kPP>(plan, env)
                         : launch_one<TIn, TOut, true, false, false, false, kPP>(plan, env);
  return plan.q_kmajor ? launch_one<TIn, TOut, false, true, false, false, kPP>(plan, env)
                       : launch_one<TIn, TOut, false, false, false, false, kPP>(plan, env);
}

template <class TIn, class TOut>
gpuopt_status_t launch_majors(const Plan& plan, const ExecEnv& env) {
#if GPUOPT_SM90_PINGPONG
  if (plan.pingpong) return launch_majors_of<TIn, TOut, true>(plan, env);
#endif
  return launch_majors_of<TIn, TOut, false>(plan, env);
}

}  // namespace sm90
}  // namespace gpuopt
