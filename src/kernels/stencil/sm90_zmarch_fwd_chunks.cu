// stencil sm90_zmarch_fwd_chunks (3D, sm_90a): the forward-z-sum kernel with fwd_sweep's tiles (1
// output row per thread, 32 * W x 16) on z-chunks of 64 planes, the blocks dispatched xy-tile
// fastest (zmarch_plan_chunks): the resident blocks are the tiles of one z range, started
// together and short-lived, so they cannot drift apart, and the halo rows neighbouring tiles share
// are L2 hits between their loads. Improves on fwd_sweep, whose whole-z blocks drift apart over
// 512 planes and re-read neighbours' halos from DRAM on the H100 (ncu: 734 MB read for a 537 MB
// grid), at the cost of a ring fill per block start and 2r / 64 more plane loads (from L2).
// Measured (H100, run 9 at 2f20e47, 3D r=4 f32 512^3): 0.4396 ms, 2442 GB/s, 0.808 of the copy
// roof (3022 GB/s), 305301 MCells/s; 1.14x fwd_sweep (0.708 in the same run); DRAM reads 560 MB
// (ncu); smooth field 0.811, compressible 1.03 of copy. Evict-first output stores
// (st.global.L2::cache_hint) measured within 1% either way on this rung and on fwd_sweep.
// Not measured on an H200.
// Variations measured on the H100 (2026-11-26, docs/notes/history/stencil-rounds.md, pass 5) and
// removed: chunks of 32 / 96 / 128 planes, rings of 6 / 10 stages, a producer warp, z swept in
// alternate directions (and two pairings) within -2% .. +1.2% of this rung on device memory; 2
// rows per thread -9%. sm90_zmarch_fwd_pairs (this rung in clusters of 2 tiles stacked in y,
// the halo rows between them multicast) ranks above it for the radii it takes (1.018-1.025x).
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {
namespace {
struct ChunksCfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdChunks;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_chunks(const StencilProblem& p, const ExecEnv& env) {
  return stencil_fwd::launch<ChunksCfg>(p, env, "stencil sm90_zmarch_fwd_chunks");
}

}  // namespace gpuopt
