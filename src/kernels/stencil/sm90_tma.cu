// stencil sm90_tma (2D, sm_90a): the TMA kernel of sm90_tma.cuh, one tile per block (grid = tiles,
// one stage). The hardware dispatches the blocks in order, so the resident ones are always a tight
// window of neighbouring tiles: the halo rows a tile shares with its neighbours are L2 hits and
// DRAM reads the grid about once; 7 blocks (28 warps) per SM overlap one block's load with the
// others' compute.
// Measured (H100, run 8 at c894599, 2D r=8 f32 16384^2): 0.7292 ms, 2945 GB/s, 0.974 of the copy
// roof (3022 GB/s), 1.46x the persistent ring (sm90_tma_ring, 0.666: its drifting blocks read
// halos from DRAM, 1.95 GB for a 1.07 GB grid), 1.21x sm80_cpasync_unstaged. Run 9 (2f20e47):
// 0.7275 ms, 0.977 of copy, 4.26x smem_sync; DRAM reads 1.07 GB (ncu). Not measured on an H200.
#include "kernels/stencil/sm90_tma.cuh"

namespace gpuopt {
namespace {
struct OneTileCfg {
  static constexpr stencil::Tma2dParams kParams = stencil::kTma2dOneTile;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_tma(const StencilProblem& p, const ExecEnv& env) {
  return stencil_tma2d::launch<OneTileCfg>(p, env, "stencil sm90_tma");
}

}  // namespace gpuopt
