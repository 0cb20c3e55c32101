// Run-8 experiments of the 2D TMA kernel (sm90_tma.cuh) on the H100 (docs/notes/stencil.md):
// sm90_tma_2stage (2 stages in 56 KiB: up to 4 blocks per SM), sm90_tma_onetile (one tile per
// block, grid = tiles, as sm80_cpasync_unstaged), sm90_tma_strips (persistent runs down tile
// columns). Not measured yet.
#include "kernels/stencil/sm90_tma.cuh"

namespace gpuopt {
namespace {
struct TwoStageCfg {
  static constexpr stencil::Tma2dParams kParams = stencil::kTma2dTwoStage;
};
struct OneTileCfg {
  static constexpr stencil::Tma2dParams kParams = stencil::kTma2dOneTile;
};
struct StripsCfg {
  static constexpr stencil::Tma2dParams kParams = stencil::kTma2dStrips;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_tma_2stage(const StencilProblem& p, const ExecEnv& env) {
  return stencil_tma2d::launch<TwoStageCfg>(p, env, "stencil sm90_tma_2stage");
}
gpuopt_status_t stencil_launch_sm90_tma_onetile(const StencilProblem& p, const ExecEnv& env) {
  return stencil_tma2d::launch<OneTileCfg>(p, env, "stencil sm90_tma_onetile");
}
gpuopt_status_t stencil_launch_sm90_tma_strips(const StencilProblem& p, const ExecEnv& env) {
  return stencil_tma2d::launch<StripsCfg>(p, env, "stencil sm90_tma_strips");
}

}  // namespace gpuopt
