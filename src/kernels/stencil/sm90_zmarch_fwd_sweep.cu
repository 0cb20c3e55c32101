// stencil sm90_zmarch_fwd_sweep (3D, sm_90a): the forward-z-sum kernel with 1 output row per
// thread (32 * W x 16 tiles: twice the tiles, so at 512^3 one wave of blocks each marching the
// whole of z): a single read and a single write sweep through z, as a copy does, and no z-halo
// re-reads, for 2.75 instead of 1.75 16-byte shared loads per output and a 1.5x tile from L2.
// Measured (H200, bf8d2e7, 3D r=4 f32 512^3): 3097 GB/s, 387143 MCells/s, 0.729 of the copy
// roof (bar 0.75 missed by 0.021), 1.09x sm90_zmarch_fwd, 1.16x sm90_zmarch_tma; reads exactly
// the grid from DRAM (ncu: 537 MB); 3756 GB/s (0.88) on compressible buffers, smooth field.
// Run 5 (322a162): 3174 GB/s, 0.743 of the copy roof (4272); output rows through per-warp
// bulk copies (cp.async.bulk shared -> global) measured 11% slower and were dropped.
// Runs 6 and 7 (e0bfb42, 0a256c3): 3117 and 3135 GB/s (0.734, 0.739; auto 0.745 in run 7). Every
// other configuration lost: ring of 4 stages 0.56, 12 stages 0.71, 15 stages 0.72 (refill lag 1:
// 0.70); st.global.cs stores 0.70; 2 blocks per SM of 8 warps 0.59. 8 stages, lag 2 stay.
// H100 (runs 8 and 9): 0.702 and 0.708 of the copy roof: the whole-z blocks drift apart and
// re-read neighbours' halos from DRAM (ncu: 734 MB for a 537 MB grid); sm90_zmarch_fwd_chunks
// (64-plane chunks, xy-tile-fastest dispatch) 0.808 ranks above it. L2 prefetch of 4 or 8
// planes beyond the ring: 0.66 and 0.59 (removed); evict-first stores: within 1%.
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {
namespace {
struct SweepCfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdSweep;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_sweep(const StencilProblem& p, const ExecEnv& env) {
  return stencil_fwd::launch<SweepCfg>(p, env, "stencil sm90_zmarch_fwd_sweep");
}

}  // namespace gpuopt
