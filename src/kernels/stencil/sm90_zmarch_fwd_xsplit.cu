// stencil sm90_zmarch_fwd_xsplit (3D, sm_90a): sm90_zmarch_fwd_chunks' kernel, tiles and z-chunks
// with x-split stages (sm90_zmarch_fwd.cuh, "x-split"): each plane is loaded as the tile's 32 * W
// interior columns plus one box of HX columns on either side, instead of one box that starts HX
// columns before the tile. The interior rows are whole 128-byte lines of L2; the whole-tile box's
// rows touched two lines more than the tile's four (f32) and the copy engine split them into
// about twice the L2 requests.
// Measured (H100, st3k2 probe, 2026-11-27, 3D r=4 f32 512^3, interleaved with the bench's copy
// roof, 3024 GB/s): 0.4026 ms, 2667 GB/s, 0.882 of the copy roof; 1.069x sm90_zmarch_fwd_pairs
// (0.825) and 1.089x fwd_chunks (0.810) in the same process. ncu: L2 requests from the SMs
// 14.9 M instead of fwd_chunks' 31.0 M, L2 sectors 50.6 M instead of 57.0 M, DRAM 80.7% busy
// instead of 74.2%. Measured and not built: chunks of 32 / 128 planes (0.854 / 0.843), side boxes
// without L2 promotion (0.867), the split in pairs' clusters (0.716 with the side boxes
// multicast, 0.815 without). Takes r <= 6 (ptxas spills at 7 and 8; fwd_chunks runs those).
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {
namespace {
struct XsplitCfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdXsplit;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_xsplit(const StencilProblem& p, const ExecEnv& env) {
  return stencil_fwd::launch<XsplitCfg>(p, env, "stencil sm90_zmarch_fwd_xsplit");
}

}  // namespace gpuopt
