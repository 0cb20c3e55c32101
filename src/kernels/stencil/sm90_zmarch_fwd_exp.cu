// Run-9 experiments of the fwd_sweep kernel on the H100 (docs/notes/stencil.md): fwd_chunks
// (z-chunks of 64 planes dispatched xy-tile fastest, so the resident blocks stay one z range and
// their shared halos stay in L2), fwd_sweep_ef (evict-first output stores), fwd_chunks_ef (both).
// Not measured yet.
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {
namespace {
struct ChunksCfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdChunks;
};
struct SweepEfCfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdSweepEf;
};
struct ChunksEfCfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdChunksEf;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_chunks(const StencilProblem& p, const ExecEnv& env) {
  return stencil_fwd::launch<ChunksCfg>(p, env, "stencil sm90_zmarch_fwd_chunks");
}
gpuopt_status_t stencil_launch_sm90_zmarch_fwd_sweep_ef(const StencilProblem& p,
                                                        const ExecEnv& env) {
  return stencil_fwd::launch<SweepEfCfg>(p, env, "stencil sm90_zmarch_fwd_sweep_ef");
}
gpuopt_status_t stencil_launch_sm90_zmarch_fwd_chunks_ef(const StencilProblem& p,
                                                         const ExecEnv& env) {
  return stencil_fwd::launch<ChunksEfCfg>(p, env, "stencil sm90_zmarch_fwd_chunks_ef");
}

}  // namespace gpuopt
