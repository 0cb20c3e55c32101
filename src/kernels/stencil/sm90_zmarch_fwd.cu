// stencil sm90_zmarch_fwd and sm90_zmarch_fwd_wave (3D, sm_90a): the forward-z-sum kernel of
// sm90_zmarch_fwd.cuh with 2 output rows per thread (r <= 4), plain stores; z-chunks by the wave
// cost rule (fwd) or as many as fill one wave (fwd_wave).
// Measured (H200, c1a976c, 3D r=4 f32 512^3): sm90_zmarch_fwd 2856 GB/s, 0.67 of the copy roof
// (bar 0.75 missed), 1.06x sm90_zmarch_tma; 3448 GB/s on compressible buffers, smooth field.
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {

gpuopt_status_t stencil_launch_sm90_zmarch_fwd(const StencilProblem& p, const ExecEnv& env) {
  return stencil_fwd::launch<2, false>(p, env, false, "stencil sm90_zmarch_fwd");
}

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_wave(const StencilProblem& p, const ExecEnv& env) {
  return stencil_fwd::launch<2, false>(p, env, true, "stencil sm90_zmarch_fwd_wave");
}

}  // namespace gpuopt
