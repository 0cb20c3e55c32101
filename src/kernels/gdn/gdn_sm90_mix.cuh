// The channel mix of sm90_wgmma_fused's passes as one GEMM on the sm90 TMA + wgmma kernel
// (kernels/gemm/sm90_tma_wgmma_kernel.cuh, register-P path with hooks): the plan of the
// per-image NN GEMM and the launch of a hook on it, shared by the forward pass (z from x^2 and
// gamma, sm90_wgmma_fused.cu) and the backward pass's dx GEMM (u from t and gamma^T,
// sm90_wgmma_fused_bwd.cu).
#pragma once
#include <cstdint>

#include "kernels/gdn/gdn.hpp"
#include "kernels/gemm/sm90_tma_wgmma_launch.cuh"
#include "runtime/error.hpp"

namespace gpuopt {
namespace gdn_sm90 {

constexpr int kKBlock = sm90::kRowBytes / 4;  // k elements per stage (32 f32)

// Whether tf32 mode can read gamma in place (TMA: 16-byte base and row pitch).
inline bool gamma_direct(const GdnProblem& p) {
  return p.tf32 && p.c % 4 == 0 && gdn_aligned(p.gamma, 16);
}

// Plan of the per-image NN GEMM (gpuopt column-major terms) C (P x C, ld P) = A (P x C view of
// image n of a, ld P; the operand the kernel reads into registers) * B (B(k, i) =
// q[i * pitch + k]: one matrix for every image, k extent and row pitch `pitch`).
inline gpuopt_status_t plan_mix(const GdnProblem& p, const float* a, const float* q,
                                std::int64_t pitch, float* c, const ExecEnv& env,
                                sm90::Plan* plan) {
  GemmProblem g;
  g.m = p.p;
  g.n = p.c;
  g.k = p.c;
  g.compute = GPUOPT_COMPUTE_TF32;
  g.A = a;
  g.lda = p.p;
  g.stride_a = p.c * p.p;
  g.B = q;
  g.ldb = pitch;
  g.stride_b = pitch * p.c;  // (placeholder: the map of Q is re-encoded below with one matrix)
  g.C = c;
  g.ldc = p.p;
  g.stride_c = p.c * p.p;
  g.batch = p.n;
  if (const char* why = sm90::make_plan(g, *env.device, plan))
    return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn, "gdn sm90_wgmma_fused: %s", why);
  if (!plan->p_regs || !plan->swap || plan->pingpong)
    return fail(GPUOPT_ERROR_INTERNAL, env.fn, "gdn sm90_wgmma_fused: unexpected GEMM plan");
  if (!sm90::encode_tma_map(&plan->map_q, GPUOPT_DTYPE_F32, q, pitch, p.c, pitch, 1, 0, kKBlock,
                            sm90::kBlockN / plan->cluster))
    return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn,
                "gdn sm90_wgmma_fused: cuTensorMapEncodeTiled rejected gamma");
  plan->params.k_blocks = static_cast<int>((pitch + kKBlock - 1) / kKBlock);
  return GPUOPT_SUCCESS;
}

// Launches a planned GEMM of these passes with epilogue/operand hook `hook` (f32 in and out,
// register P, swapped roles, K-major Q; P K-major when kPK: the backward dgamma GEMM), on a
// cluster when planned so.
template <bool kPK = false, class Hook>
gpuopt_status_t launch_mix(const sm90::Plan& plan, const ExecEnv& env, const Hook& hook) {
  return plan.cluster > 1
             ? sm90::launch_cluster<float, float, kPK, true, sm90::kMaxCluster, true, true, false>(
                   plan, env, hook)
             : sm90::launch_cluster<float, float, kPK, true, 1, true, true, false>(plan, env, hook);
}

}  // namespace gdn_sm90
}  // namespace gpuopt
