// The no-device answer: tells "no NVIDIA driver" (libcuda.so.1 does not load), "a driver too old
// for this runtime" and "a driver but no usable device" apart, with what to check for each.
#pragma once
#include <cuda_runtime_api.h>

#include "gpuopt.h"

namespace gpuopt {

// Records why no device is usable after the CUDA runtime answered `err` (cudaSuccess: it counted
// zero devices) and returns GPUOPT_ERROR_NO_DEVICE. Clears CUDA's sticky error state.
gpuopt_status_t fail_no_device(const char* fn, cudaError_t err);

}  // namespace gpuopt
