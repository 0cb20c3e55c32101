// out[s] = parts[0 * segs + s] + parts[1 * segs + s] + ... + parts[(ranks - 1) * segs + s],
// added in rank order in the type itself (f32 or f64): the deterministic combination of the
// ranks' partial sums of gpuopt_reduce_dist.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "gpuopt.h"

namespace gpuopt {

cudaError_t launch_rank_order_sum(gpuopt_dtype_t type, const void* parts, std::int64_t segs,
                                  int ranks, void* out, cudaStream_t stream);

}  // namespace gpuopt
