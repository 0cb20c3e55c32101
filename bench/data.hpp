// Device-side input fills: random, patterned or exact values (data_gen.hpp), never zeros.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "data_gen.hpp"
#include "gpuopt.h"

namespace bench {

// Writes element i (0 <= i < n) of the dtype array at ptr as
// gen_value(kind, seed, stream, first_index + i), enqueued on s. dtype: F32 or F64.
// Throws BenchError on a bad dtype or a failed launch.
void fill_device(void* ptr, gpuopt_dtype_t dtype, std::int64_t n, DataKind kind, std::uint64_t seed,
                 std::uint32_t stream_id, std::uint64_t first_index, cudaStream_t s);

// Bytes per element of F32 / F64; throws for other dtypes.
std::size_t dtype_bytes(gpuopt_dtype_t dtype);

// "random", "patterned", "exact".
const char* data_kind_name(DataKind kind);

}  // namespace bench
