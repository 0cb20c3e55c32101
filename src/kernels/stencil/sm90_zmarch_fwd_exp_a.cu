// Run-6 experiments (temporary): sm90_zmarch_fwd_sweep with st.global.cs output stores, and the
// same with a ring of 4 stages. See docs/notes/stencil.md.
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {
namespace {
struct SweepCsCfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdSweepCs;
};
struct SweepCsS4Cfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdSweepCsS4;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_sweep_cs(const StencilProblem& p,
                                                        const ExecEnv& env) {
  return stencil_fwd::launch<SweepCsCfg>(p, env, "stencil sm90_zmarch_fwd_sweep_cs");
}
gpuopt_status_t stencil_launch_sm90_zmarch_fwd_sweep_cs_s4(const StencilProblem& p,
                                                           const ExecEnv& env) {
  return stencil_fwd::launch<SweepCsS4Cfg>(p, env, "stencil sm90_zmarch_fwd_sweep_cs_s4");
}

}  // namespace gpuopt
