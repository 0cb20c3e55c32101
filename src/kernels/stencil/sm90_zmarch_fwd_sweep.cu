// stencil sm90_zmarch_fwd_sweep (3D, sm_90a): the forward-z-sum kernel with 1 output row per
// thread (32 * W x 16 tiles: twice the tiles, so at 512^3 one wave of blocks each marching the
// whole of z): a single read and a single write sweep through z, as a copy does, and no z-halo
// re-reads, for 2.75 instead of 1.75 16-byte shared loads per output and a 1.5x tile from L2.
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_sweep(const StencilProblem& p, const ExecEnv& env) {
  return stencil_fwd::launch<1, false>(p, env, true, "stencil sm90_zmarch_fwd_sweep");
}

}  // namespace gpuopt
