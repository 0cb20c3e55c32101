// sm90_tma_wgmma instantiation for tf32 (f32 inputs and C; both operands K-major: TN only).
#include "kernels/gemm/sm90_tma_wgmma_launch.cuh"

namespace gpuopt {
namespace sm90 {

gpuopt_status_t launch_tf32(const Plan& plan, const GemmProblem&, const ExecEnv& env) {
  return launch_one<float, float, true, true>(plan, env);
}

}  // namespace sm90
}  // namespace gpuopt
