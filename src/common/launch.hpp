// Host-side helpers shared by kernel launchers.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "runtime/error.hpp"

namespace gpuopt {

// Status of the launch just made (configuration errors surface here, not at the next sync).
inline gpuopt_status_t check_launch(const char* fn, const char* kernel) {
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return fail_cuda(err, fn, kernel);
  return GPUOPT_SUCCESS;
}

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Largest grid.x a launch may use.
constexpr std::int64_t kMaxGridX = 2147483647;

}  // namespace gpuopt
