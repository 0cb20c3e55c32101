// gemm f64_tensorcore, sm_90 instantiation: mma.sync.aligned.m16n8k16.row.col.f64 (plain sm_90, not
// sm_90a; twice the work per instruction of m8n8k4 and the shape that reaches the Hopper f64
// tensor peak), 128x128x32 tiles, 3 cp.async stages with late refill, 192-210 KB of shared
// memory. Kernel in f64_tensorcore.cuh; built for every target, the MMA traps below sm_90 where it
// is never launched. On cc 9.0 with the sm_90a SASS built, the warp-specialized kernel of
// f64_tensorcore_sm90a.cu runs instead (H100: 0.94-0.98 of cublasDgemm at n = 4096 and 8192
// against 0.88-0.95 for this one; docs/notes/gemm-f64.md).
#include "kernels/gemm/f64_tensorcore_launch.cuh"

namespace gpuopt {
namespace f64mma {

gpuopt_status_t launch_sm90(const GemmProblem& p, const ExecEnv& env) {
  if (env.device && env.device->cc == 90 && sm90a_built()) return launch_sm90a(p, env);
  return launch_config<Sm90Config, true>(p, env);
}

}  // namespace f64mma
}  // namespace gpuopt
