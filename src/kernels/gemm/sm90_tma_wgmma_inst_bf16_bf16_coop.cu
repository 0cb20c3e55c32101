// sm90_tma_wgmma kernels: bf16 inputs, bf16 C, the cooperative schedule (four operand majorities,
// both cluster sizes). One of the instance files of sm90_tma_wgmma_instances.hpp.
#include "kernels/gemm/sm90_tma_wgmma_launch.cuh"

namespace gpuopt {
namespace sm90 {

template gpuopt_status_t launch_majors_of<__nv_bfloat16, __nv_bfloat16, false>(const Plan&,
                                                                               const ExecEnv&);

}  // namespace sm90
}  // namespace gpuopt
