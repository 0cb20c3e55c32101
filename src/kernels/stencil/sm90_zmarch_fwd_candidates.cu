// The candidate rungs of issue 19 (3D auto >= 0.85 of the copy roof; fwd_chunks measured 0.805 on
// the H100, 0.743 on the H200): each is sm90_zmarch_fwd_chunks (sm90_zmarch_fwd.cuh, 64-plane
// z-chunks dispatched xy-tile fastest) with one change, compiled for f32 and radius <= 4 only
// (the bar's problem: 4 kernels each instead of 16; a winner becomes the chunks rung's
// configuration for every type and radius). Ranked below the measured rungs (auto never runs
// them) until a run shows one faster; scripts/probe-stencil3d.sh times them against auto.
// - _s6, _s10: rings of 6 and 10 stages (fwd_sweep on the H200: 4 stages 0.56, 8 stages 0.73-0.74,
//   12 stages 0.71 of copy; 6 and 10 untested).
// - _v2: 2 output rows per thread (32 * W x 32 tiles): 7 instead of 11 16-byte shared loads and
//   half the mbarrier waits and arrivals per output, 64 tiles per z range at 512^3.
// - _pw: a producer warp (17 warps, 544 threads) refills each stage as soon as the 16 computing
//   warps released it, instead of thread 0 between its own planes two planes behind; its warp
//   no longer stalls on the empty barrier.
// - _alt: every other launch sweeps z top-down, starting on the planes the previous launch read
//   last (possibly still in L2); z terms then summed in the other order (last-bit differences
//   between successive calls).
// - _pw_c128, _v2_c128: _pw and _v2 (their kernels) on 128-plane chunks.
#include "kernels/stencil/sm90_zmarch_fwd.cuh"

namespace gpuopt {
namespace {
struct S6Cfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdChunksS6;
};
struct S10Cfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdChunksS10;
};
struct V2Cfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdChunksV2;
};
struct PwCfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdChunksPw;
};
struct AltCfg {
  static constexpr stencil::FwdParams kParams = stencil::kFwdChunksAlt;
};
}  // namespace

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_chunks_s6(const StencilProblem& p,
                                                         const ExecEnv& env) {
  return stencil_fwd::launch_plan<S6Cfg, S6Cfg::kParams, false>(
      p, env, "stencil sm90_zmarch_fwd_chunks_s6");
}
gpuopt_status_t stencil_launch_sm90_zmarch_fwd_chunks_s10(const StencilProblem& p,
                                                          const ExecEnv& env) {
  return stencil_fwd::launch_plan<S10Cfg, S10Cfg::kParams, false>(
      p, env, "stencil sm90_zmarch_fwd_chunks_s10");
}
gpuopt_status_t stencil_launch_sm90_zmarch_fwd_chunks_v2(const StencilProblem& p,
                                                         const ExecEnv& env) {
  return stencil_fwd::launch_plan<V2Cfg, V2Cfg::kParams, false>(
      p, env, "stencil sm90_zmarch_fwd_chunks_v2");
}
gpuopt_status_t stencil_launch_sm90_zmarch_fwd_chunks_pw(const StencilProblem& p,
                                                         const ExecEnv& env) {
  return stencil_fwd::launch_plan<PwCfg, PwCfg::kParams, false>(
      p, env, "stencil sm90_zmarch_fwd_chunks_pw");
}
gpuopt_status_t stencil_launch_sm90_zmarch_fwd_chunks_alt(const StencilProblem& p,
                                                          const ExecEnv& env) {
  return stencil_fwd::launch_plan<AltCfg, AltCfg::kParams, false>(
      p, env, "stencil sm90_zmarch_fwd_chunks_alt");
}

gpuopt_status_t stencil_launch_sm90_zmarch_fwd_chunks_pw_c128(const StencilProblem& p,
                                                              const ExecEnv& env) {
  return stencil_fwd::launch_plan<PwCfg, stencil::kFwdChunksPwC128, false>(
      p, env, "stencil sm90_zmarch_fwd_chunks_pw_c128");
}
gpuopt_status_t stencil_launch_sm90_zmarch_fwd_chunks_v2_c128(const StencilProblem& p,
                                                              const ExecEnv& env) {
  return stencil_fwd::launch_plan<V2Cfg, stencil::kFwdChunksV2C128, false>(
      p, env, "stencil sm90_zmarch_fwd_chunks_v2_c128");
}

}  // namespace gpuopt
