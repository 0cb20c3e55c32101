// sm90_tma_wgmma kernels: f16 inputs, f32 C, the cooperative schedule (four operand majorities,
// both cluster sizes). One of the instance files of sm90_tma_wgmma_instances.hpp.
#include "kernels/gemm/sm90_tma_wgmma_launch.cuh"

namespace gpuopt {
namespace sm90 {

template gpuopt_status_t launch_majors_of<__half, float, false>(const Plan&, const ExecEnv&);

}  // namespace sm90
}  // namespace gpuopt
