// stencil sm90_zmarch_fwd_wave_cs (3D, sm_90a): sm90_zmarch_fwd_wave with streaming
// (st.global.cs, evict-first) output stores: the written lines are L2's first victims, so the
// input lines that neighbouring tiles read as halo stay longer.
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_wave_cs(const StencilProblem& p,
                                                       const ExecEnv& env) {
  return stencil_fwd::launch<2, true>(p, env, true, "stencil sm90_zmarch_fwd_wave_cs");
}

}  // namespace gpuopt
