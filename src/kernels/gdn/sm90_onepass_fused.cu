// gdn sm90_onepass_fused (sm_90a, backward pass, tf32 and f32): the one-pass kernel
// (sm90_onepass_bwd_kernel.cuh: z, t, u and dx per 64-pixel tile, t written once; f32 as 3xTF32,
// its corrections one bf16 wgmma), then the dgamma split-K GEMM on wgmma and the fixed-order sums
// of dgamma and dbeta (gdn_sm90_backward_dgamma, shared with sm90_wgmma_fused). The forward pass
// stays with sm90_wgmma_fused: this variant refuses it. Figures: docs/notes/history/gdn-rounds.md
// (rounds 13, 15, 16 and 18).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "arch/sm90/cluster_launch.hpp"
#include "common/launch.hpp"
#include "kernels/gdn/gdn_backward_stages.hpp"
#include "kernels/gdn/gdn_sm90_mix.cuh"
#include "kernels/gdn/sm90_onepass_bwd_kernel.cuh"
#include "kernels/gemm/sm90_tma_wgmma_launch.cuh"
#include "runtime/error.hpp"
#include "runtime/smem_limit.hpp"

namespace gpuopt {
namespace {

using gdn_onepass::kSmemBytes;

// CTAs per cluster sharing each gamma fill by multicast (build-time knob for tuning). H100, tf32
// backward pass: 1: 0.4888 ms, 2: 0.4950, 4: 0.5336 (the lock-step costs more than the L2 reads
// it saves; docs/notes/history/gdn-rounds.md round 13).
#ifndef GPUOPT_GDN_ONEPASS_CLUSTER
#define GPUOPT_GDN_ONEPASS_CLUSTER 1
#endif
constexpr int kCluster = GPUOPT_GDN_ONEPASS_CLUSTER;
static_assert(kCluster == 1 || kCluster == 2 || kCluster == 4, "clusters of 1, 2 or 4 CTAs");

struct Maps {
  CUtensorMap x, dy, g, gt;
};

template <bool kInverse, bool kF32>
gpuopt_status_t launch_kernel(const Maps& m, const gdn_onepass::Params& prm, const ExecEnv& env) {
  auto* kernel = gdn_onepass::gdn_onepass_bwd_kernel<kCluster, kInverse, kF32>;
  GPUOPT_TRY(raise_smem_limit(kernel, kSmemBytes, env.fn, "gdn sm90_onepass_fused"));
  cudaLaunchAttribute attr;
  cudaLaunchConfig_t cfg =
      sm90::cluster_launch_config(kCluster, gdn_onepass::kThreads, kSmemBytes, env.stream, &attr);
  // Persistent: every CTA resident (the clusters walk the gamma stream in lock-step), no more
  // clusters than units of work.
  const int sms = env.device->sm_count;
  int clusters = sms / kCluster;
  cfg.gridDim = dim3(static_cast<unsigned>(kCluster));
  const int resident = sm90::max_active_clusters<kCluster>(kernel, cfg);
  if (resident > 0 && resident < clusters) clusters = resident;
  const int need = (prm.units + kCluster - 1) / kCluster;
  if (need < clusters) clusters = need;
  if (clusters < 1) clusters = 1;
  cfg.gridDim = dim3(static_cast<unsigned>(clusters * kCluster));
  GPUOPT_TRY_CUDA(cudaLaunchKernelEx(&cfg, kernel, m.x, m.dy, m.g, m.gt, prm), env.fn,
                  "gdn sm90_onepass_fused kernel launch");
  return check_launch(env.fn, "gdn sm90_onepass_fused kernel launch");
}

}  // namespace

const char* gdn_can_sm90_onepass_fused(const GdnProblem& p, const DeviceDesc& dev) {
  if (p.pass != GPUOPT_GDN_BACKWARD)
    return "a backward-pass variant (the forward pass is sm90_wgmma_fused's)";
  if (p.c > gdn_onepass::kMaxC) return "C <= 256 only (one tile holds every channel)";
  // sm90_wgmma_fused's checks: TMA on x (H * W % 4, alignment), int32 extents, the dgamma stage
  if (const char* why = gdn_can_sm90_wgmma_fused(p, dev)) return why;
  if (dev.smem_optin < static_cast<std::size_t>(kSmemBytes))
    return "needs 225 KiB of shared memory per block";
  if (!gdn_aligned(p.dy, 16)) return "TMA needs dy aligned to 16 bytes";
  if (!gdn_aligned(p.dx, 8)) return "dx must be aligned to 8 bytes (pixel pairs)";
  if (p.n == 0 || p.p == 0) return nullptr;  // empty: launches nothing
  if ((p.p + kGdnTile - 1) / kGdnTile > 2147483647 / p.n)
    return "the 128-pixel units must fit the kernel's int32 scheduler";
  return nullptr;
}

gpuopt_status_t gdn_launch_sm90_onepass_fused(const GdnProblem& p, const ExecEnv& env) {
  if (const char* why = gdn_can_sm90_onepass_fused(p, *env.device))
    return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn, "gdn sm90_onepass_fused: %s", why);
  static_assert(gdn_onepass::kUnitPx == kGdnTile, "dbeta partials per fused tile");
  const GdnWorkspaceLayout l = gdn_fused_layout(GPUOPT_GDN_BACKWARD, p.n, p.c, p.p);
  // gamma^T (GEMM 2's B, rows c), and gamma itself (GEMM 1's B) unless TMA can read the
  // caller's (tf32 only): both in the split-gamma piece, one TF32 part each in tf32 mode, the
  // [hi | pair | hi] parts per k block in f32 mode (the kernel reads the bf16 pairs and hi).
  float* gt = gdn_ws_floats(p, l.gsplit);
  gpuopt_status_t st = GPUOPT_SUCCESS;
  const std::int64_t pitch_t = gdn_split_gamma_pairs(p, true, gt, env, &st);
  GPUOPT_TRY(st);
  const float* g = p.gamma;
  std::int64_t pitch_g = p.c;
  if (!gdn_sm90::gamma_direct(p)) {
    float* split = gt + pitch_t * p.c;
    pitch_g = gdn_split_gamma_pairs(p, false, split, env, &st);
    GPUOPT_TRY(st);
    g = split;
  }
  const int kblocks = static_cast<int>((p.c + 31) / 32);
  // Ring fills of 128 gamma rows, each CTA of a cluster loading 128 / kCluster of them (gamma^T:
  // two blocks of 64 rows per fill, so at most 64 per load).
  constexpr int kShare = 128 / kCluster;
  constexpr int kShareT = kShare < 64 ? kShare : 64;
  Maps m;
  const std::int64_t img = p.c * p.p;
  if (!sm90::encode_tma_map(&m.x, GPUOPT_DTYPE_F32, p.x, p.p, p.c, p.p, p.n, img, 32, 32) ||
      !sm90::encode_tma_map(&m.dy, GPUOPT_DTYPE_F32, p.dy, p.p, p.c, p.p, p.n, img, 32, 32) ||
      !sm90::encode_tma_map(&m.g, GPUOPT_DTYPE_F32, g, pitch_g, p.c, pitch_g, 1, 0, 32, kShare) ||
      !sm90::encode_tma_map(&m.gt, GPUOPT_DTYPE_F32, gt, pitch_t, p.c, pitch_t, 1, 0, 32, kShareT))
    return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn,
                "gdn sm90_onepass_fused: cuTensorMapEncodeTiled rejected x, dy or gamma");
  gdn_onepass::Params prm;
  prm.dy = p.dy;
  prm.beta = p.beta;
  prm.t = gdn_ws_floats(p, l.t);
  prm.dx = p.dx;
  prm.bpart = gdn_ws_floats(p, l.bpart);
  prm.img = img;
  prm.p = static_cast<int>(p.p);
  prm.c = static_cast<int>(p.c);
  prm.ntiles = static_cast<int>((p.p + kGdnTile - 1) / kGdnTile);
  prm.units = static_cast<int>(p.n * prm.ntiles);
  prm.kblocks = kblocks;
  auto launch = p.tf32 ? (p.inverse ? launch_kernel<true, false> : launch_kernel<false, false>)
                       : (p.inverse ? launch_kernel<true, true> : launch_kernel<false, true>);
  GPUOPT_TRY(launch(m, prm, env));
  return gdn_sm90_backward_dgamma(p, env);
}

}  // namespace gpuopt
