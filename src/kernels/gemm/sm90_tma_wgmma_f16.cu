// sm90_tma_wgmma instantiations for f16 inputs (f32 or f16 C, all four transposes).
#include "kernels/gemm/sm90_tma_wgmma_launch.cuh"

namespace gpuopt {
namespace sm90 {

gpuopt_status_t launch_f16(const Plan& plan, const GemmProblem& p, const ExecEnv& env) {
  return p.c_type == GPUOPT_DTYPE_F16 ? launch_majors<__half, __half>(plan, env)
                                      : launch_majors<__half, float>(plan, env);
}

}  // namespace sm90
}  // namespace gpuopt
