#include <cuda.h>

#include "launch_probe.hpp"

namespace bench {
namespace {

__global__ void empty_kernel() {}

using LaunchKernel = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                  unsigned, unsigned, CUstream, void**, void**);

LaunchKernel driver_launch() {
  static const LaunchKernel fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuLaunchKernel", &p, 12000, cudaEnableDefault, &q) !=
            cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      return static_cast<LaunchKernel>(nullptr);
    return reinterpret_cast<LaunchKernel>(p);
  }();
  return fn;
}

}  // namespace

bool launch_empty_runtime(cudaStream_t s) {
  empty_kernel<<<1, 32, 0, s>>>();
  return cudaGetLastError() == cudaSuccess;
}

bool launch_empty_driver(cudaStream_t s) {
  static int device = -1;
  static cudaFunction_t f = nullptr;
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) return false;
  if (current != device) {
    if (cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(empty_kernel)) != cudaSuccess)
      return false;
    device = current;
  }
  const LaunchKernel launch = driver_launch();
  return launch && launch(reinterpret_cast<CUfunction>(f), 1, 1, 1, 32, 1, 1, 0,
                          reinterpret_cast<CUstream>(s), nullptr, nullptr) == CUDA_SUCCESS;
}

}  // namespace bench
