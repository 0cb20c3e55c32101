// A process grid: a communicator arranged as pr x pc (rank = row * pc + col), its row and column
// communicators, and the second stream and events of SUMMA's look-ahead.
#pragma once
#include <cuda_runtime_api.h>

#include "comm.hpp"

struct gpuopt_grid_s {
  gpuopt_comm_s* comm = nullptr;      // borrowed: the caller's
  gpuopt_comm_s* row_comm = nullptr;  // owned: the ranks of this grid row, ranked by column
  gpuopt_comm_s* col_comm = nullptr;  // owned: the ranks of this grid column, ranked by row
  int rows = 1, cols = 1, my_row = 0, my_col = 0;
  cudaStream_t side = nullptr;  // panel broadcasts
  cudaEvent_t fork = nullptr, join = nullptr;
  cudaEvent_t ready[2] = {nullptr, nullptr};  // panel buffer b filled
  cudaEvent_t done[2] = {nullptr, nullptr};   // panel buffer b consumed by its GEMM
};

namespace gpuopt {

using Grid = gpuopt_grid_s;

// Validates a grid handle argument.
gpuopt_status_t check_grid(const char* fn, gpuopt_grid_t grid, const char* arg = "grid");

// Releases the stream, events and owned communicators (whichever exist) and the struct.
void grid_free(Grid* g);

}  // namespace gpuopt
