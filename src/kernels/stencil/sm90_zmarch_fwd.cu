// stencil sm90_zmarch_fwd (3D, sm_90a): the forward-z-sum kernel of sm90_zmarch_fwd.cuh with 2
// output rows per thread (r <= 4; 32 * W x 32 tiles), z-chunks by the wave cost rule.
// Measured (H200, 3D r=4 f32 512^3): c1a976c 2856 GB/s, bf8d2e7 2835 GB/s: 0.67 of the copy
// roof (bar 0.75 missed), 1.06x sm90_zmarch_tma; reads 1.09x the grid from DRAM (ncu); 3431 GB/s
// on compressible buffers with a smooth field.
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {
namespace {
struct FwdCfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdTwoRows;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_zmarch_fwd(const StencilProblem& p, const ExecEnv& env) {
  return stencil_fwd::launch<FwdCfg>(p, env, "stencil sm90_zmarch_fwd");
}

}  // namespace gpuopt
