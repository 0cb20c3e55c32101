// Inputs of the reduce rows: element i of a group's array as a pure function of (seed, i), filled
// on the device and recomputed on the host for the reference. i32: the full 32-bit range (so sums
// need the i64 result); f32/f64: sign * [1, 2) (data_gen.hpp's random values).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "data_gen.hpp"
#include "gpuopt.h"

namespace bench {

BENCH_HD std::int32_t reduce_i32(std::uint64_t seed, std::uint64_t i) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(value_hash(seed, kStreamX, i)));
}

// Fills n elements of dtype (i32, f32, f64) at ptr on stream s; throws BenchError on failure.
void fill_reduce_input(void* ptr, gpuopt_dtype_t dtype, std::int64_t n, std::uint64_t seed,
                       cudaStream_t s);

// cub::DeviceReduce::Sum (reduce_cub_ref.cu): temp storage size, and the call; f32 -> f32 (the
// latency suite's reference) and int32 -> int32.
std::size_t cub_sum_f32_temp_bytes(std::int64_t n);
void cub_sum_f32(void* temp, std::size_t bytes, const float* in, float* out, std::int64_t n,
                 cudaStream_t s);
std::size_t cub_sum_i32_temp_bytes(std::int64_t n);
void cub_sum_i32(void* temp, std::size_t bytes, const std::int32_t* in, std::int32_t* out,
                 std::int64_t n, cudaStream_t s);

}  // namespace bench
