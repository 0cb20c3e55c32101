// stencil sm90_tma_ring (2D, sm_90a): the TMA kernel of sm90_tma.cuh with persistent blocks (as
// many as are resident) walking the tiles by grid stride through a ring of 2-4 stages in about
// 100 KiB (two blocks per SM): the other stages' loads stay in flight while a tile is computed.
// Measured (2D r=8 f32 16384^2): H200 (bd7f734, then named sm90_tma) 3798 GB/s, 0.89 of the copy
// roof; H100 (run 8, c894599) 1.0673 ms, 0.666 of the copy roof: over ~250 tiles each the blocks
// drift apart, so a tile's halo rows are no longer in L2 when its neighbour loads them (ncu: 1.95
// GB read from DRAM for a 1.07 GB grid). Ranked below sm90_tma (one tile per block, 0.974 there).
#include "kernels/stencil/sm90_tma.cuh"

namespace gpuopt {
namespace {
struct RingCfg {
  static constexpr stencil::Tma2dParams kParams = stencil::kTma2dRing;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_tma_ring(const StencilProblem& p, const ExecEnv& env) {
  return stencil_tma2d::launch<RingCfg>(p, env, "stencil sm90_tma_ring");
}

}  // namespace gpuopt
