// sm90_tma_wgmma instantiations for bf16 inputs (f32 or bf16 C, all four transposes).
#include "kernels/gemm/sm90_tma_wgmma_launch.cuh"

namespace gpuopt {
namespace sm90 {

gpuopt_status_t launch_bf16(const Plan& plan, const GemmProblem& p, const ExecEnv& env) {
  return p.c_type == GPUOPT_DTYPE_BF16 ? launch_majors<__nv_bfloat16, __nv_bfloat16>(plan, env)
                                       : launch_majors<__nv_bfloat16, float>(plan, env);
}

}  // namespace sm90
}  // namespace gpuopt
