// Run-7 experiments (temporary): sm90_zmarch_fwd_sweep with a deeper ring. See
// docs/notes/stencil.md.
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {
namespace {
struct S12Cfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdSweepS12;
};
struct S15Cfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdSweepS15;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_sweep_s12(const StencilProblem& p,
                                                         const ExecEnv& env) {
  return stencil_fwd::launch<S12Cfg>(p, env, "stencil sm90_zmarch_fwd_sweep_s12");
}
gpuopt_status_t stencil_launch_sm90_zmarch_fwd_sweep_s15(const StencilProblem& p,
                                                         const ExecEnv& env) {
  return stencil_fwd::launch<S15Cfg>(p, env, "stencil sm90_zmarch_fwd_sweep_s15");
}

}  // namespace gpuopt
