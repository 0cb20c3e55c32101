// sm90_tma_wgmma: the launch of one kernel instantiation (included by the per-type .cu files).
#pragma once
#include <cuda_runtime_api.h>

#include <atomic>

#include "arch/sm90/cluster_launch.hpp"
#include "common/launch.hpp"
#include "kernels/gemm/sm90_tma_wgmma.hpp"
#include "kernels/gemm/sm90_tma_wgmma_instances.hpp"
#include "kernels/gemm/sm90_tma_wgmma_kernel.cuh"
#include "runtime/error.hpp"
#include "runtime/smem_limit.hpp"

namespace gpuopt {
namespace sm90 {

// hook: the register-P path's hooks (IdentityHook for the GEMM; see the kernel).
template <class TIn, class TOut, bool kPK, bool kQK, int kCluster, bool kPRegs, bool kSwap,
          bool kPP, class Hook = IdentityHook>
gpuopt_status_t launch_cluster(const Plan& plan, const ExecEnv& env, const Hook& hook = Hook{}) {
  using K = KernelCfg<TIn, TOut, kPK, kQK, kCluster, kPRegs, kSwap, kPP, Hook>;
  auto* kernel = gemm_sm90_tma_wgmma_kernel<K>;
  constexpr int kSmem = K::kSmem;
  GPUOPT_TRY(raise_smem_limit(kernel, kSmem, env.fn, "gemm sm90_tma_wgmma"));
  cudaLaunchAttribute attr;
  cudaLaunchConfig_t cfg = cluster_launch_config(kCluster, kThreads, kSmem, env.stream, &attr);
  cfg.gridDim = dim3(static_cast<unsigned>(plan.grid));
  // Persistent CTAs must all be resident: a cluster left waiting would start only after a whole
  // resident cluster's share of the work.
  const int resident = max_active_clusters<kCluster>(kernel, cfg);
  if (resident > 0 && plan.grid > resident * kCluster)
    cfg.gridDim = dim3(static_cast<unsigned>(resident * kCluster));
  Params params = plan.params;
  if constexpr (K::kStreamK) {
    // Stream-K tail (sm90_tma_wgmma_stream_k.cuh) where the stream's workspaces hold the
    // partials and flags of this grid.
    const std::size_t ctas = cfg.gridDim.x;
    if (env.blas_workspace && env.blas_workspace_bytes >= ctas * kPartialFloats * sizeof(float) &&
        env.workspace && env.workspace_bytes >= kSkFlagsOffset + kSkFlagsBytes &&
        ctas * kSkWarps * sizeof(unsigned) <= kSkFlagsBytes) {
      params.partials = static_cast<float*>(env.blas_workspace);
      params.flags =
          reinterpret_cast<unsigned*>(static_cast<unsigned char*>(env.workspace) + kSkFlagsOffset);
      params.sk_units = stream_k_units(params, static_cast<int>(ctas) / kCluster);
    }
  }
  GPUOPT_TRY_CUDA(cudaLaunchKernelEx(&cfg, kernel, plan.map_p, plan.map_q, params, hook), env.fn,
                  "gemm sm90_tma_wgmma kernel launch");
  return check_launch(env.fn, "gemm sm90_tma_wgmma kernel launch");
}

template <class TIn, class TOut, bool kPK, bool kQK, bool kPRegs, bool kSwap, bool kPP>
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

}  // namespace sm90
}  // namespace gpuopt
