// An empty kernel launched two ways, for the latency suite's host-cost rows: through the
// runtime's triple-chevron launch (what gpuopt's own kernels use) and through the driver's
// cuLaunchKernel with the function looked up once.
#pragma once
#include <cuda_runtime_api.h>

namespace bench {

// One empty kernel (1 block of 32 threads) on s, <<<>>>; false when the launch failed.
bool launch_empty_runtime(cudaStream_t s);

// The same kernel through cuLaunchKernel (its CUfunction looked up at the first call on the
// current device); false when it failed or the driver entry point is missing.
bool launch_empty_driver(cudaStream_t s);

}  // namespace bench
