// CUB references. cub::DeviceReduce::Sum of an int32 array into an int32 result (accumulating in
// int32, so it wraps): what a user calling CUB on an int array gets, and the case of the issue's
// anchor (3874 GB/s on an H200). gpuopt's own "cub" variant returns the documented i64 sum instead,
// which makes CUB accumulate in int64; this row keeps the anchor's comparison in the same run.
#include <cub/device/device_reduce.cuh>

#include "check.hpp"
#include "reduce_data.hpp"

namespace bench {

std::size_t cub_sum_i32_temp_bytes(std::int64_t n) {
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const std::int32_t*>(nullptr),
                                    static_cast<std::int32_t*>(nullptr), n));
  return bytes;
}

void cub_sum_i32(void* temp, std::size_t bytes, const std::int32_t* in, std::int32_t* out,
                 std::int64_t n, cudaStream_t s) {
  CUDA_CHECK(cub::DeviceReduce::Sum(temp, bytes, in, out, n, s));
}

std::size_t cub_sum_f32_temp_bytes(std::int64_t n) {
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const float*>(nullptr),
                                    static_cast<float*>(nullptr), n));
  return bytes;
}

void cub_sum_f32(void* temp, std::size_t bytes, const float* in, float* out, std::int64_t n,
                 cudaStream_t s) {
  CUDA_CHECK(cub::DeviceReduce::Sum(temp, bytes, in, out, n, s));
}

}  // namespace bench
