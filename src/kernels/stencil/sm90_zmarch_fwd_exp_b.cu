// Run-7 experiments (temporary): sm90_zmarch_fwd_sweep with a deeper ring. See
// docs/notes/stencil.md.
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {
namespace {
struct S15L1Cfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdSweepS15L1;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_sweep_s15_l1(const StencilProblem& p,
                                                            const ExecEnv& env) {
  return stencil_fwd::launch<S15L1Cfg>(p, env, "stencil sm90_zmarch_fwd_sweep_s15_l1");
}

}  // namespace gpuopt
