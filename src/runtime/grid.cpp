#include "runtime/grid.hpp"

#include "runtime/handles.hpp"

namespace gpuopt {

gpuopt_status_t check_grid(const char* fn, gpuopt_grid_t grid, const char* arg) {
  return check_handle(fn, grid, HandleKind::grid, arg);
}

void grid_free(Grid* g) {
  if (g->side) cudaStreamDestroy(g->side);
  for (cudaEvent_t e : {g->fork, g->join, g->ready[0], g->ready[1], g->done[0], g->done[1]})
    if (e) cudaEventDestroy(e);
  cudaGetLastError();
  if (g->row_comm) comm_close("gpuopt_grid_destroy", g->row_comm, false);
  if (g->col_comm) comm_close("gpuopt_grid_destroy", g->col_comm, false);
  delete g;
}

}  // namespace gpuopt
