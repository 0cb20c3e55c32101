#include "dist/block_cyclic.hpp"

#include <cinttypes>
#include <cstddef>

#include "runtime/error.hpp"
#include "runtime/versioned_struct.hpp"

namespace gpuopt {

std::int64_t block_cyclic_local(std::int64_t n, std::int64_t nb, int p, int procs) {
  const std::int64_t blocks = n / nb;
  std::int64_t local = blocks / procs * nb;
  const std::int64_t extra = blocks % procs;
  if (p < extra)
    local += nb;
  else if (p == extra)
    local += n % nb;
  return local;
}

BlockCyclicIndex block_cyclic_locate(std::int64_t i, std::int64_t nb, int procs) {
  const std::int64_t block = i / nb;
  return {static_cast<int>(block % procs), block / procs * nb + i % nb};
}

gpuopt_status_t check_dist_desc(const char* fn, const char* arg, const gpuopt_dist_desc_t* d,
                                gpuopt_dist_desc_t* out) {
  *out = gpuopt_dist_desc_t{};  // every field is needed
  GPUOPT_TRY(read_versioned(fn, arg, "gpuopt_dist_desc_t", d, sizeof(gpuopt_dist_desc_t), out));
  if (!gpuopt_dtype_name(d->dtype))
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "%s->dtype is %d; not a gpuopt_dtype_t", arg,
                static_cast<int>(d->dtype));
  if (d->rows < 0 || d->cols < 0)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "%s->rows, cols are %" PRId64 ", %" PRId64 "; expected >= 0", arg, d->rows,
                d->cols);
  if (d->row_block < 1 || d->col_block < 1)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "%s->row_block, col_block are %" PRId64 ", %" PRId64 "; expected >= 1", arg,
                d->row_block, d->col_block);
  if (d->grid_rows < 1 || d->grid_cols < 1)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "%s->grid_rows, grid_cols are %d, %d; expected >= 1", arg, d->grid_rows,
                d->grid_cols);
  if (d->rows > INT64_MAX / 16 / (d->cols ? d->cols : 1))
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "%s: rows x cols overflows", arg);
  return GPUOPT_SUCCESS;
}

gpuopt_status_t check_dist_ld(const char* fn, const char* arg, const gpuopt_dist_desc_t& d, int row,
                              int col) {
  const std::int64_t lr = block_cyclic_local(d.rows, d.row_block, row, d.grid_rows);
  const std::int64_t lc = block_cyclic_local(d.cols, d.col_block, col, d.grid_cols);
  const std::int64_t need = lr > 1 ? lr : 1;
  if (d.ld < need)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "%s->ld is %" PRId64 "; expected >= %" PRId64
                " (the local rows of grid position (%d, %d), whose local matrix is %" PRId64
                " x %" PRId64 ")",
                arg, d.ld, need, row, col, lr, lc);
  return GPUOPT_SUCCESS;
}

}  // namespace gpuopt
