// stencil sm90_tma (2D, sm_90a): the TMA kernel of sm90_tma.cuh with persistent blocks walking
// the tiles by grid stride and a ring of 2-4 stages in about 100 KiB (two blocks per SM).
// Measured (H200, bd7f734, 2D r=8 f32 16384^2): 3798 GB/s, 0.89 of the copy roof, 1.36x the
// unstaged cp.async rung, 5.5x smem_sync. H100 (baseline of 2026-11-22): 1.048 ms, 0.678 of the
// copy roof (3023 GB/s), below the unstaged cp.async rung (0.803); docs/notes/stencil.md.
#include "kernels/stencil/sm90_tma.cuh"

namespace gpuopt {
namespace {
struct RingCfg {
  static constexpr stencil::Tma2dParams kParams = stencil::kTma2dRing;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_tma(const StencilProblem& p, const ExecEnv& env) {
  return stencil_tma2d::launch<RingCfg>(p, env, "stencil sm90_tma");
}

}  // namespace gpuopt
