// transpose sm90_tma_onetile (sm_90a): sm90_tma's tiles and stores (the kernel: sm90_tma.cuh) on
// one CTA per tile, whose ring is that tile's one stage, instead of persistent CTAs (5 f32 CTAs per
// SM, 48 registers). H100 (044bf0f, pass 4): f32 16384^2 0.7481 ms, 2871 GB/s (0.950 of copy,
// 0.994x geam; ncu 85.6% of DRAM peak) vs persistent sm90_tma 0.7636 ms (0.973x, 84.1%); f64 2851
// GB/s (sm90_tma 2706), bf16 2509 (2325). Persistence cost ~2% here; sm80_vec_tile is faster still.
#include "kernels/transpose/sm90_tma.cuh"

namespace gpuopt {

gpuopt_status_t transpose_launch_sm90_tma_onetile(const TransposeProblem& p, const ExecEnv& env) {
  return transpose_tma::launch_if_can<transpose_tma::Sm90Tma<true>>("sm90_tma_onetile", p, env);
}

}  // namespace gpuopt
