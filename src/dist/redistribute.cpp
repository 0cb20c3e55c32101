#include "dist/redistribute.hpp"

#include "api/comm_agree.hpp"
#include "dist/block_cyclic.hpp"
#include "runtime/error.hpp"
#include "runtime/registry.hpp"

namespace gpuopt {
namespace {

constexpr NcclType kBytes = 0;  // ncclInt8: messages are counted in bytes

struct Part {
  std::int64_t rows, cols;
  std::size_t bytes(std::size_t elem) const {
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) * elem;
  }
};

Part part_of(const gpuopt_dist_desc_t& d, int row, int col) {
  return {block_cyclic_local(d.rows, d.row_block, row, d.grid_rows),
          block_cyclic_local(d.cols, d.col_block, col, d.grid_cols)};
}

// Stream-ordered device staging, freed on the stream when it goes out of scope.
struct Staging {
  void* p = nullptr;
  cudaStream_t s = nullptr;
  ~Staging() {
    if (p) cudaFreeAsync(p, s);
  }
};

gpuopt_status_t stage(const char* fn, Staging* st, std::size_t bytes, cudaStream_t s) {
  st->s = s;
  if (bytes == 0 || st->p) return GPUOPT_SUCCESS;
  GPUOPT_TRY_CUDA(cudaMallocAsync(&st->p, bytes, s), fn, "cudaMallocAsync (staging)");
  return GPUOPT_SUCCESS;
}

// Bytes of the largest local matrix of a rank other than root: the root's staging.
std::size_t largest_other_part(const Grid& g, const gpuopt_dist_desc_t& d, int root) {
  std::size_t most = 0;
  for (int q = 0; q < g.comm->size; ++q)
    if (q != root) {
      const std::size_t b = part_of(d, q / g.cols, q % g.cols).bytes(dtype_size(d.dtype));
      most = b > most ? b : most;
    }
  return most;
}

}  // namespace

cudaError_t copy_blocks(const gpuopt_dist_desc_t& d, int row, int col, const void* full,
                        std::int64_t ld_full, void* local, std::int64_t ld_local, bool to_local,
                        cudaStream_t stream) {
  const std::size_t e = dtype_size(d.dtype);
  const Part p = part_of(d, row, col);
  const std::int64_t mb = d.row_block, nb = d.col_block;
  for (std::int64_t lj = 0; lj < p.cols; lj += nb) {
    const std::int64_t gj = (lj / nb * d.grid_cols + col) * nb;  // first global column
    const std::int64_t w = p.cols - lj < nb ? p.cols - lj : nb;
    for (std::int64_t li = 0; li < p.rows; li += mb) {
      const std::int64_t gi = (li / mb * d.grid_rows + row) * mb;
      const std::int64_t h = p.rows - li < mb ? p.rows - li : mb;
      char* g = static_cast<char*>(const_cast<void*>(full)) + (gi + gj * ld_full) * e;
      char* l = static_cast<char*>(local) + (li + lj * ld_local) * e;
      cudaError_t err = to_local ? cudaMemcpy2DAsync(l, ld_local * e, g, ld_full * e, h * e, w,
                                                     cudaMemcpyDefault, stream)
                                 : cudaMemcpy2DAsync(g, ld_full * e, l, ld_local * e, h * e, w,
                                                     cudaMemcpyDefault, stream);
      if (err != cudaSuccess) return err;
    }
  }
  return cudaSuccess;
}

gpuopt_status_t dist_scatter(const char* fn, Grid& g, cudaStream_t stream,
                             const gpuopt_dist_desc_t& d, int root, const void* src,
                             std::int64_t ld_src, void* local) {
  Comm& c = *g.comm;
  const std::size_t e = dtype_size(d.dtype);
  Staging st;
  if (c.rank == root) {
    GPUOPT_TRY(stage(fn, &st, largest_other_part(g, d, root), stream));
    for (int q = 0; q < c.size; ++q) {
      const int r = q / g.cols, k = q % g.cols;
      const Part p = part_of(d, r, k);
      if (q == root) {
        GPUOPT_TRY_CUDA(copy_blocks(d, r, k, src, ld_src, local, d.ld, true, stream), fn,
                        "cudaMemcpy2DAsync (own blocks)");
        continue;
      }
      if (p.bytes(e) == 0) continue;
      GPUOPT_TRY_CUDA(copy_blocks(d, r, k, src, ld_src, st.p, p.rows, true, stream), fn,
                      "cudaMemcpy2DAsync (packing a rank's blocks)");
      GPUOPT_TRY(
          nccl_result(fn, c, c.api->Send(st.p, p.bytes(e), kBytes, q, c.nccl, stream), "ncclSend"));
    }
    return GPUOPT_SUCCESS;
  }
  const Part p = part_of(d, g.my_row, g.my_col);
  if (p.bytes(e) == 0) return GPUOPT_SUCCESS;
  const bool packed = d.ld == p.rows || p.cols == 1;
  if (!packed) GPUOPT_TRY(stage(fn, &st, p.bytes(e), stream));
  void* into = packed ? local : st.p;
  GPUOPT_TRY(
      nccl_result(fn, c, c.api->Recv(into, p.bytes(e), kBytes, root, c.nccl, stream), "ncclRecv"));
  if (!packed)
    GPUOPT_TRY_CUDA(cudaMemcpy2DAsync(local, d.ld * e, st.p, p.rows * e, p.rows * e, p.cols,
                                      cudaMemcpyDeviceToDevice, stream),
                    fn, "cudaMemcpy2DAsync (unpacking)");
  return GPUOPT_SUCCESS;
}

gpuopt_status_t dist_gather(const char* fn, Grid& g, cudaStream_t stream,
                            const gpuopt_dist_desc_t& d, int root, const void* local, void* dst,
                            std::int64_t ld_dst) {
  Comm& c = *g.comm;
  const std::size_t e = dtype_size(d.dtype);
  Staging st;
  if (c.rank == root) {
    GPUOPT_TRY(stage(fn, &st, largest_other_part(g, d, root), stream));
    for (int q = 0; q < c.size; ++q) {
      const int r = q / g.cols, k = q % g.cols;
      const Part p = part_of(d, r, k);
      if (q == root) {
        GPUOPT_TRY_CUDA(
            copy_blocks(d, r, k, dst, ld_dst, const_cast<void*>(local), d.ld, false, stream), fn,
            "cudaMemcpy2DAsync (own blocks)");
        continue;
      }
      if (p.bytes(e) == 0) continue;
      GPUOPT_TRY(
          nccl_result(fn, c, c.api->Recv(st.p, p.bytes(e), kBytes, q, c.nccl, stream), "ncclRecv"));
      GPUOPT_TRY_CUDA(copy_blocks(d, r, k, dst, ld_dst, st.p, p.rows, false, stream), fn,
                      "cudaMemcpy2DAsync (unpacking a rank's blocks)");
    }
    return GPUOPT_SUCCESS;
  }
  const Part p = part_of(d, g.my_row, g.my_col);
  if (p.bytes(e) == 0) return GPUOPT_SUCCESS;
  const bool packed = d.ld == p.rows || p.cols == 1;
  const void* from = local;
  if (!packed) {
    GPUOPT_TRY(stage(fn, &st, p.bytes(e), stream));
    GPUOPT_TRY_CUDA(cudaMemcpy2DAsync(st.p, p.rows * e, local, d.ld * e, p.rows * e, p.cols,
                                      cudaMemcpyDeviceToDevice, stream),
                    fn, "cudaMemcpy2DAsync (packing)");
    from = st.p;
  }
  GPUOPT_TRY(
      nccl_result(fn, c, c.api->Send(from, p.bytes(e), kBytes, root, c.nccl, stream), "ncclSend"));
  return GPUOPT_SUCCESS;
}

}  // namespace gpuopt
