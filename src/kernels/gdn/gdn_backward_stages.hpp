// The backward pass's stages shared across gdn variants: those of `sm80_mma_fused`
// (sm80_mma_fused.cu, mma.sync) that sm90_wgmma_fused's backward pass runs around its wgmma dx GEMM
// (sm90_wgmma_fused_bwd.cu). All use the fused backward workspace layout (gdn_fused_layout: t,
// dbeta and dgamma partials, the transposed split gamma).
#pragma once
#include "kernels/gdn/gdn.hpp"

namespace gpuopt {

// z = gamma x^2 per image, epilogue t = dy * x * ds/dz (workspace), dx = dy * s (written, not
// accumulated), dbeta partials per 128-pixel tile.
gpuopt_status_t gdn_fused_backward_grad(const GdnProblem& p, const ExecEnv& env);

// dgamma split-K partials = t (x^2)^T over (image, pixel chunk), then dgamma and dbeta from their
// partials in a fixed order (deterministic). Needs t and the dbeta partials of the stage above.
gpuopt_status_t gdn_fused_backward_dgamma(const GdnProblem& p, const ExecEnv& env);
// Only the fixed-order sums of dgamma and dbeta from the partials in the workspace (dgamma
// partials per (image, kGdnDgammaChunk-pixel chunk): [image * chunks + chunk][i][j];
// gdn_partial_sums.cu).
gpuopt_status_t gdn_fused_backward_sums(const GdnProblem& p, const ExecEnv& env);

// gamma as sm90_wgmma_fused's B operand, into out (sm90_wgmma_fused.cu): per 32-deep k block of
// row i, `parts` TF32 copies (tf32: 1, the rounded value; f32: 3, [hi, lo, hi]) of gamma's row i,
// or of its column i when transposed (the dx GEMM's gamma^T); zero beyond column C. Returns the
// row pitch in floats; *st: the launch's status.
std::int64_t gdn_split_gamma(const GdnProblem& p, bool transposed, float* out, const ExecEnv& env,
                             gpuopt_status_t* st);
// The same with f32's middle part as bf16 pairs (gamma, gamma - hi) in each float (tf32: as
// above): sm90_onepass_fused's B operand of 3xTF32's two corrections as one bf16 wgmma.
std::int64_t gdn_split_gamma_pairs(const GdnProblem& p, bool transposed, float* out,
                                   const ExecEnv& env, gpuopt_status_t* st);

// The dgamma split-K GEMM on wgmma (from t in the workspace; `sm80_mma_fused`'s mma.sync stage
// where the driver refuses a tensor map), then the fixed-order sums of dgamma and dbeta: stage (3)
// of sm90_wgmma_fused's backward pass and the end of sm90_onepass_fused's.
gpuopt_status_t gdn_sm90_backward_dgamma(const GdnProblem& p, const ExecEnv& env);

// What the backward pass of sm90_wgmma_fused needs beyond its forward pass's checks (the
// mma.sync stages' grids), nullptr when it can run.
const char* gdn_can_sm90_wgmma_fused_backward(const GdnProblem& p);
// The backward pass of sm90_wgmma_fused (sm_90a; gdn_can_sm90_wgmma_fused has accepted p).
gpuopt_status_t gdn_launch_sm90_wgmma_fused_backward(const GdnProblem& p, const ExecEnv& env);

}  // namespace gpuopt
