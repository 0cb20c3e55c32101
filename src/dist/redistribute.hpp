// Moving a matrix between one rank's full copy and the grid's block-cyclic local matrices:
// the copies between a full matrix and one grid position's local matrix (one 2D copy per block)
// and the scatter and gather over the grid's communicator.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "runtime/grid.hpp"

namespace gpuopt {

// Copies grid position (row, col)'s blocks between the full column-major matrix `full` (leading
// dimension ld_full, any memory cudaMemcpy2DAsync reaches) and the packed local matrix `local`
// (leading dimension ld_local): to_local selects the direction. Enqueued on stream.
cudaError_t copy_blocks(const gpuopt_dist_desc_t& d, int row, int col, const void* full,
                        std::int64_t ld_full, void* local, std::int64_t ld_local, bool to_local,
                        cudaStream_t stream);

// The scatter and gather of gpuopt_dist_scatter / _gather, arguments already checked.
gpuopt_status_t dist_scatter(const char* fn, Grid& g, cudaStream_t stream,
                             const gpuopt_dist_desc_t& d, int root, const void* src,
                             std::int64_t ld_src, void* local);
gpuopt_status_t dist_gather(const char* fn, Grid& g, cudaStream_t stream,
                            const gpuopt_dist_desc_t& d, int root, const void* local, void* dst,
                            std::int64_t ld_dst);

}  // namespace gpuopt
