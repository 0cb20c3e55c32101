// Device-side helpers of the gemm rows: input fills (gemm_ref.hpp's values), the upcast to f64
// for the reference, the NaN poison, and the comparison with the reference as per-block sums.
// Every function enqueues on s and throws BenchError when a launch fails.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gemm_ref.hpp"
#include "gpuopt.h"

namespace bench {

// Writes count elements of dtype (F64, F32 or BF16) at ptr: element i is
// gemm_value_<dtype>(seed, stream_id, i).
void gemm_fill(void* ptr, gpuopt_dtype_t dtype, std::int64_t count, std::uint64_t seed,
               std::uint32_t stream_id, cudaStream_t s);

// dst[i] = (double)src[i] for i < count; src of dtype F32 or BF16 (exact conversions).
void gemm_upcast(const void* src, gpuopt_dtype_t dtype, std::int64_t count, double* dst,
                 cudaStream_t s);

// Fills bytes at ptr with 0xff: NaN as f64, f32 and bf16 alike.
void gemm_poison(void* ptr, std::size_t bytes, cudaStream_t s);

// Number of parts gemm_compare writes (one per block).
constexpr int kGemmCheckParts = 1024;

// Compares out (count elements of F64, F32 or BF16) with ref (count doubles), element by element
// in flat order; writes kGemmCheckParts GemmCheckPart sums to parts (device memory).
void gemm_compare(const void* out, gpuopt_dtype_t dtype, const double* ref, std::int64_t count,
                  GemmCheckPart* parts, cudaStream_t s);

// Bytes per element of F64 / F32 / BF16 / F16; throws for others.
std::size_t gemm_elem_bytes(gpuopt_dtype_t dtype);

}  // namespace bench
