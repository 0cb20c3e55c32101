// sm90_tma_wgmma kernels: bf16 inputs, f32 C, the ping-pong schedule (four operand majorities, both
// cluster sizes). One of the instance files of sm90_tma_wgmma_instances.hpp.
#include "kernels/gemm/sm90_tma_wgmma_launch.cuh"

namespace gpuopt {
namespace sm90 {

#if GPUOPT_SM90_PINGPONG
template gpuopt_status_t launch_majors_of<__nv_bfloat16, float, true>(const Plan&, const ExecEnv&);
#endif

}  // namespace sm90
}  // namespace gpuopt
