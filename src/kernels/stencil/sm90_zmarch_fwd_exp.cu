// Run-8 experiments of the fwd_sweep configuration (docs/notes/stencil.md): 4 or 8 planes
// prefetched into L2 (cp.async.bulk.prefetch.tensor) beyond the 8-stage ring. Not measured yet.
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {
namespace {
struct L2p4Cfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdSweepL2p4;
};
struct L2p8Cfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdSweepL2p8;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_sweep_l2p4(const StencilProblem& p,
                                                          const ExecEnv& env) {
  return stencil_fwd::launch<L2p4Cfg>(p, env, "stencil sm90_zmarch_fwd_sweep_l2p4");
}
gpuopt_status_t stencil_launch_sm90_zmarch_fwd_sweep_l2p8(const StencilProblem& p,
                                                          const ExecEnv& env) {
  return stencil_fwd::launch<L2p8Cfg>(p, env, "stencil sm90_zmarch_fwd_sweep_l2p8");
}

}  // namespace gpuopt
