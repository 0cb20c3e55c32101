// Process grids, the block-cyclic index queries, and the scatter and gather helpers.
#include <cinttypes>
#include <memory>

#include "api/comm_agree.hpp"
#include "dist/block_cyclic.hpp"
#include "dist/redistribute.hpp"
#include "runtime/error.hpp"
#include "runtime/grid.hpp"
#include "runtime/handles.hpp"
#include "runtime/registry.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace {

gpuopt_status_t check_position(const char* fn, const gpuopt_dist_desc_t& d, int row, int col) {
  if (row < 0 || row >= d.grid_rows || col < 0 || col >= d.grid_cols)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "grid position (%d, %d) lies outside the %d x %d grid of desc", row, col,
                d.grid_rows, d.grid_cols);
  return GPUOPT_SUCCESS;
}

// The checks scatter and gather share; fills *d.
gpuopt_status_t check_redistribute(const char* fn, gpuopt_grid_t grid,
                                   const gpuopt_dist_desc_t* desc, int root, const void* full,
                                   const char* full_name, std::int64_t ld_full, const char* ld_name,
                                   const void* local, gpuopt_dist_desc_t* d) {
  GPUOPT_TRY(gpuopt::check_dist_desc(fn, "desc", desc, d));
  gpuopt::Grid& g = *grid;
  if (d->grid_rows != g.rows || d->grid_cols != g.cols)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "desc's grid is %d x %d; the grid is %d x %d",
                d->grid_rows, d->grid_cols, g.rows, g.cols);
  if (root < 0 || root >= g.comm->size)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "root is %d; expected 0 <= root < %d", root,
                g.comm->size);
  GPUOPT_TRY(gpuopt::check_dist_ld(fn, "desc", *d, g.my_row, g.my_col));
  const std::size_t e = gpuopt::dtype_size(d->dtype);
  const std::int64_t lr = gpuopt::block_cyclic_local(d->rows, d->row_block, g.my_row, g.rows);
  const std::int64_t lc = gpuopt::block_cyclic_local(d->cols, d->col_block, g.my_col, g.cols);
  if (lr > 0 && lc > 0)
    GPUOPT_TRY(gpuopt::check_device_operand(fn, "local", *g.comm->ctx, local, e,
                                            ((lc - 1) * d->ld + lr) * e));
  if (g.comm->rank == root && d->rows > 0 && d->cols > 0) {
    if (ld_full < (d->rows > 1 ? d->rows : 1))
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "%s is %" PRId64 "; expected >= rows (%" PRId64 ")", ld_name, ld_full, d->rows);
    if (!full) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "%s is NULL on the root", full_name);
  }
  return GPUOPT_SUCCESS;
}

// Scatter and gather: handles, the local checks, the agreement (checked mode), then move.
// kind tells scatter (11) from gather (12) in the checked mode's fingerprint.
template <class Move>
gpuopt_status_t redistribute(const char* fn, std::int64_t kind, gpuopt_grid_t grid,
                             gpuopt_stream_t stream, const gpuopt_dist_desc_t* desc, int root,
                             const void* full, const char* full_name, std::int64_t ld_full,
                             const char* ld_name, const void* local, Move&& move) {
  GPUOPT_TRY(gpuopt::check_grid(fn, grid));
  GPUOPT_TRY(gpuopt::check_stream(fn, stream, grid->comm->ctx));
  gpuopt_dist_desc_t d{};
  gpuopt_status_t local_st = gpuopt::make_current(fn, *grid->comm->ctx);
  if (local_st == GPUOPT_SUCCESS)
    local_st =
        check_redistribute(fn, grid, desc, root, full, full_name, ld_full, ld_name, local, &d);
  GPUOPT_TRY(gpuopt::comm_agree(
      fn, *grid->comm, *stream,
      gpuopt::fingerprint({kind, d.dtype, d.rows, d.cols, d.row_block, d.col_block, root}),
      local_st));
  return move(d);
}

}  // namespace

extern "C" {

GPUOPT_API gpuopt_status_t gpuopt_grid_create(gpuopt_comm_t comm, int grid_rows, int grid_cols,
                                              gpuopt_grid_t* grid) {
  static const char* fn = "gpuopt_grid_create";
  return guarded(fn, [&] {
    if (!grid) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "grid is NULL");
    *grid = nullptr;
    GPUOPT_TRY(gpuopt::check_comm(fn, comm));
    if (grid_rows < 1 || grid_cols < 1 ||
        static_cast<std::int64_t>(grid_rows) * grid_cols != comm->size)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "grid_rows x grid_cols is %d x %d; expected a factorization of the "
                  "communicator's %d ranks",
                  grid_rows, grid_cols, comm->size);
    if (gpuopt::thread_group_depth() > 0)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "called inside a group; call it from one thread per rank, outside groups");
    GPUOPT_TRY(gpuopt::check_not_capturing(fn));
    GPUOPT_TRY(gpuopt::make_current(fn, *comm->ctx));
    std::unique_ptr<gpuopt::Grid, void (*)(gpuopt::Grid*)> g(new gpuopt::Grid, gpuopt::grid_free);
    g->comm = comm;
    g->rows = grid_rows;
    g->cols = grid_cols;
    g->my_row = comm->rank / grid_cols;
    g->my_col = comm->rank % grid_cols;
    GPUOPT_TRY(gpuopt_comm_split(comm, g->my_row, g->my_col, &g->row_comm));
    GPUOPT_TRY(gpuopt_comm_split(comm, g->my_col, g->my_row, &g->col_comm));
    GPUOPT_TRY_CUDA(cudaStreamCreateWithFlags(&g->side, cudaStreamNonBlocking), fn,
                    "cudaStreamCreateWithFlags");
    for (cudaEvent_t* e :
         {&g->fork, &g->join, &g->ready[0], &g->ready[1], &g->done[0], &g->done[1]})
      GPUOPT_TRY_CUDA(cudaEventCreateWithFlags(e, cudaEventDisableTiming), fn,
                      "cudaEventCreateWithFlags");
    gpuopt::handle_register(g.get(), gpuopt::HandleKind::grid);
    *grid = g.release();
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_grid_info(gpuopt_grid_t grid, int* grid_rows, int* grid_cols,
                                            int* my_row, int* my_col) {
  static const char* fn = "gpuopt_grid_info";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_grid(fn, grid));
    if (grid_rows) *grid_rows = grid->rows;
    if (grid_cols) *grid_cols = grid->cols;
    if (my_row) *my_row = grid->my_row;
    if (my_col) *my_col = grid->my_col;
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_grid_destroy(gpuopt_grid_t grid) {
  static const char* fn = "gpuopt_grid_destroy";
  return guarded(fn, [&] {
    if (!grid) return GPUOPT_SUCCESS;
    GPUOPT_TRY(gpuopt::check_grid(fn, grid));
    GPUOPT_TRY(gpuopt::check_not_capturing(fn));
    gpuopt::handle_unregister(grid);
    gpuopt::make_current(fn, *grid->comm->ctx);
    cudaStreamSynchronize(grid->side);
    gpuopt::grid_free(grid);
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_dist_local_shape(const gpuopt_dist_desc_t* desc, int grid_row,
                                                   int grid_col, int64_t* local_rows,
                                                   int64_t* local_cols) {
  static const char* fn = "gpuopt_dist_local_shape";
  return guarded(fn, [&] {
    gpuopt_dist_desc_t d{};
    GPUOPT_TRY(gpuopt::check_dist_desc(fn, "desc", desc, &d));
    GPUOPT_TRY(check_position(fn, d, grid_row, grid_col));
    if (!local_rows) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "local_rows is NULL");
    if (!local_cols) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "local_cols is NULL");
    *local_rows = gpuopt::block_cyclic_local(d.rows, d.row_block, grid_row, d.grid_rows);
    *local_cols = gpuopt::block_cyclic_local(d.cols, d.col_block, grid_col, d.grid_cols);
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_dist_locate(const gpuopt_dist_desc_t* desc, int64_t i, int64_t j,
                                              int* grid_row, int* grid_col, int64_t* local_i,
                                              int64_t* local_j) {
  static const char* fn = "gpuopt_dist_locate";
  return guarded(fn, [&] {
    gpuopt_dist_desc_t d{};
    GPUOPT_TRY(gpuopt::check_dist_desc(fn, "desc", desc, &d));
    if (i < 0 || i >= d.rows || j < 0 || j >= d.cols)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "(i, j) is (%" PRId64 ", %" PRId64 "); outside the %" PRId64 " x %" PRId64
                  " matrix",
                  i, j, d.rows, d.cols);
    const gpuopt::BlockCyclicIndex r = gpuopt::block_cyclic_locate(i, d.row_block, d.grid_rows);
    const gpuopt::BlockCyclicIndex c = gpuopt::block_cyclic_locate(j, d.col_block, d.grid_cols);
    if (grid_row) *grid_row = r.owner;
    if (grid_col) *grid_col = c.owner;
    if (local_i) *local_i = r.local;
    if (local_j) *local_j = c.local;
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_dist_scatter(gpuopt_grid_t grid, gpuopt_stream_t stream,
                                               const gpuopt_dist_desc_t* desc, int root,
                                               const void* src, int64_t ld_src, void* local) {
  static const char* fn = "gpuopt_dist_scatter";
  return guarded(fn, [&] {
    return redistribute(fn, 11, grid, stream, desc, root, src, "src", ld_src, "ld_src", local,
                        [&](const gpuopt_dist_desc_t& d) {
                          return gpuopt::dist_scatter(fn, *grid, stream->stream, d, root, src,
                                                      ld_src, local);
                        });
  });
}

GPUOPT_API gpuopt_status_t gpuopt_dist_gather(gpuopt_grid_t grid, gpuopt_stream_t stream,
                                              const gpuopt_dist_desc_t* desc, int root,
                                              const void* local, void* dst, int64_t ld_dst) {
  static const char* fn = "gpuopt_dist_gather";
  return guarded(fn, [&] {
    return redistribute(fn, 12, grid, stream, desc, root, dst, "dst", ld_dst, "ld_dst", local,
                        [&](const gpuopt_dist_desc_t& d) {
                          return gpuopt::dist_gather(fn, *grid, stream->stream, d, root, local, dst,
                                                     ld_dst);
                        });
  });
}

}  // extern "C"
