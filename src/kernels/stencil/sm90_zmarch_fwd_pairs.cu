// stencil sm90_zmarch_fwd_pairs (3D, sm_90a): sm90_zmarch_fwd_chunks' kernel, tiles and z-chunks
// in clusters of 2 tiles stacked in y. The 2r halo rows between the two tiles are loaded once
// from L2 and multicast into both CTAs' rings (sm90_zmarch_fwd.cuh, "Clusters"): a pair reads
// 16 + 2r + 16 + 2r rows per plane instead of 2 x (16 + 2r), 17% fewer at r = 4.
// Why it helps (H100, 3D r=4 f32 512^3, docs/notes/stencil.md "The read and the write streams"):
// fwd_chunks' read stream alone (no stores) runs at 0.57 of the read roof with DRAM 53% busy and
// L2 81% busy; its TMA boxes move 2.4x the grid from L2 (halo rows plus whole 128-byte lines for
// the 16-byte x halos), so the L2 side, not DRAM, bounds it. Takes r <= 4 where the halo boxes
// start 128-byte aligned in shared memory (f32 r = 2, 4; f64 r = 2, 3, 4); fwd_chunks takes the
// rest (above r = 4 the cluster's extra registers spill; unmeasured). sm90_zmarch_fwd_xsplit
// (x-split stages, clusters of 1) ranks above it: 1.069x (H100, st3k2 probe).
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {
namespace {
struct PairsCfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdPairs;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_pairs(const StencilProblem& p, const ExecEnv& env) {
  return stencil_fwd::launch<PairsCfg>(p, env, "stencil sm90_zmarch_fwd_pairs");
}

}  // namespace gpuopt
