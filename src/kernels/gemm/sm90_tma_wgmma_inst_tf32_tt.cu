// sm90_tma_wgmma kernels: tf32 TT: the MN-major operand through registers (both cluster sizes). One
// of the instance files of sm90_tma_wgmma_instances.hpp.
#include "kernels/gemm/sm90_tma_wgmma_launch.cuh"

namespace gpuopt {
namespace sm90 {

template gpuopt_status_t launch_one<float, float, false, true, true, false, false>(const Plan&,
                                                                                   const ExecEnv&);

}  // namespace sm90
}  // namespace gpuopt
