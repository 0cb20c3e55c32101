// stencil sm90_zmarch_fwd_sweep_bulkst (3D, sm_90a): sm90_zmarch_fwd_sweep (1 output row per
// thread, 32 * W x 16 tiles, one wave of whole-z blocks) with its output rows written by bulk
// copies: each warp stages its row of a finished plane in shared memory (2 buffers per warp) and
// lane 0 writes the 512-byte row with one cp.async.bulk shared -> global, so reads (TMA tensor
// loads) and writes are both full-line copy-engine transfers instead of per-thread 16-byte
// st.global. Measured: see docs/notes/stencil.md (run 5).
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_sweep_bulkst(const StencilProblem& p,
                                                         const ExecEnv& env) {
  return stencil_fwd::launch<1, true>(p, env, true, "stencil sm90_zmarch_fwd_sweep_bulkst");
}

}  // namespace gpuopt
