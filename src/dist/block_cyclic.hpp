// 2D block-cyclic index math (ScaLAPACK's layout, first block on grid position (0, 0)) and the
// checks of a distributed-matrix descriptor. Host only.
#pragma once
#include <cstdint>

#include "gpuopt.h"

namespace gpuopt {

// Elements of an n-element dimension cut in blocks of nb that process `p` of `procs` holds
// (NUMROC).
std::int64_t block_cyclic_local(std::int64_t n, std::int64_t nb, int p, int procs);

// Owner process and local index of global index i.
struct BlockCyclicIndex {
  int owner;
  std::int64_t local;
};
BlockCyclicIndex block_cyclic_locate(std::int64_t i, std::int64_t nb, int procs);

// The descriptor's own fields (struct_size, dtype, sizes, blocks, grid >= 1). fn names the
// call, arg the descriptor argument.
gpuopt_status_t check_dist_desc(const char* fn, const char* arg, const gpuopt_dist_desc_t* d,
                                gpuopt_dist_desc_t* out);

// ld >= max(1, local rows of grid position (row, col)).
gpuopt_status_t check_dist_ld(const char* fn, const char* arg, const gpuopt_dist_desc_t& d, int row,
                              int col);

}  // namespace gpuopt
