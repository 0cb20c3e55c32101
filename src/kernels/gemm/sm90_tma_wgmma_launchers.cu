// sm90_tma_wgmma's per-type launchers: each picks the instance of the problem's output type,
// schedule and (tf32) layout, compiled in its own translation unit (sm90_tma_wgmma_inst_*.cu,
// declared in sm90_tma_wgmma_instances.hpp). No kernel is compiled here.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/gemm/sm90_tma_wgmma_instances.hpp"

namespace gpuopt {
namespace sm90 {
namespace {

// 16-bit inputs T with a T or an f32 C, all four transposes.
template <class T>
gpuopt_status_t launch_16bit(const Plan& plan, bool same_c, const ExecEnv& env) {
#if GPUOPT_SM90_PINGPONG
  if (plan.pingpong)
    return same_c ? launch_majors_of<T, T, true>(plan, env)
                  : launch_majors_of<T, float, true>(plan, env);
#endif
  return same_c ? launch_majors_of<T, T, false>(plan, env)
                : launch_majors_of<T, float, false>(plan, env);
}

}  // namespace

gpuopt_status_t launch_bf16(const Plan& plan, const GemmProblem& p, const ExecEnv& env) {
  return launch_16bit<__nv_bfloat16>(plan, p.c_type == GPUOPT_DTYPE_BF16, env);
}

gpuopt_status_t launch_f16(const Plan& plan, const GemmProblem& p, const ExecEnv& env) {
  return launch_16bit<__half>(plan, p.c_type == GPUOPT_DTYPE_F16, env);
}

// tf32 (f32 inputs and C): TN with both operands from shared memory; NN (swapped roles) and TT
// with the MN-major operand through registers.
gpuopt_status_t launch_tf32(const Plan& plan, const GemmProblem&, const ExecEnv& env) {
  if (!plan.p_regs) return launch_one<float, float, true, true, false, false, false>(plan, env);
  return plan.swap ? launch_one<float, float, false, true, true, true, false>(plan, env)
                   : launch_one<float, float, false, true, true, false, false>(plan, env);
}

}  // namespace sm90
}  // namespace gpuopt
