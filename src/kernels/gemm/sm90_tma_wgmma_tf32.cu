// sm90_tma_wgmma instantiations for tf32 (f32 inputs and C): TN with both operands from shared
// memory; NN (swapped roles) and TT with the MN-major operand through registers.
#include "kernels/gemm/sm90_tma_wgmma_launch.cuh"

namespace gpuopt {
namespace sm90 {

gpuopt_status_t launch_tf32(const Plan& plan, const GemmProblem&, const ExecEnv& env) {
  if (!plan.p_regs) return launch_one<float, float, true, true>(plan, env);
  return plan.swap ? launch_one<float, float, false, true, true, true>(plan, env)
                   : launch_one<float, float, false, true, true, false>(plan, env);
}

}  // namespace sm90
}  // namespace gpuopt
