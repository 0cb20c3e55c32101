// stencil sm90_zmarch_fwd_xsplit (3D, sm_90a): sm90_zmarch_fwd_chunks' kernel, tiles and z-chunks
// with x-split stages (sm90_zmarch_fwd.cuh, "x-split"): each plane is loaded as the tile's 32 * W
// interior columns plus one box of HX columns on either side, instead of one box that starts HX
// columns before the tile. The interior rows are whole 128-byte lines of L2; the whole-tile box's
// rows touched two lines more than the tile's four (f32) and the copy engine split them into
// about twice the L2 requests.
// Measured (H100, st3k2 probe, 2026-11-27, 3D r=4 f32 512^3, interleaved with the bench's copy
// roof, 3022 GB/s): 0.4031 ms, 2664 GB/s, 0.881 of the copy roof; 1.069x sm90_zmarch_fwd_pairs
// (0.824) and 1.089x fwd_chunks (0.809) in the same process. ncu: L2 requests from the SMs
// 14.8 M instead of fwd_chunks' 31.0 M, L2 sectors 50.6 M instead of 57.0 M, DRAM 80.7% busy
// instead of 74.2%. The same split in clusters of 2 (pairs' multicast of shared halo rows, six
// boxes of them per plane) ran at 0.716 of copy: not built. Takes every radius fwd_chunks takes.
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
