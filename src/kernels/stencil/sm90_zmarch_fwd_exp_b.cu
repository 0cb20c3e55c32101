// Run-6 experiments (temporary): sm90_zmarch_fwd_sweep_cs at 2 blocks per SM, 8 warps of 1 row
// (32 * W x 8 tiles) or of 2 rows (32 * W x 16). See docs/notes/stencil.md.
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {
namespace {
struct SweepW8Cfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdSweepW8;
};
struct SweepV2W8Cfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdSweepV2W8;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_sweep_w8(const StencilProblem& p,
                                                        const ExecEnv& env) {
  return stencil_fwd::launch<SweepW8Cfg>(p, env, "stencil sm90_zmarch_fwd_sweep_w8");
}
gpuopt_status_t stencil_launch_sm90_zmarch_fwd_sweep_v2w8(const StencilProblem& p,
                                                          const ExecEnv& env) {
  return stencil_fwd::launch<SweepV2W8Cfg>(p, env, "stencil sm90_zmarch_fwd_sweep_v2w8");
}

}  // namespace gpuopt
