// sm90_tma_wgmma kernels: tf32 TN: both operands K-major from shared memory (both cluster sizes).
// One of the instance files of sm90_tma_wgmma_instances.hpp.
#include "kernels/gemm/sm90_tma_wgmma_launch.cuh"

namespace gpuopt {
namespace sm90 {

template gpuopt_status_t launch_one<float, float, true, true, false, false, false>(const Plan&,
                                                                                   const ExecEnv&);

}  // namespace sm90
}  // namespace gpuopt
