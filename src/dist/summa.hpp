// SUMMA over a process grid with one panel of look-ahead: panel broadcasts on the grid's second
// stream, local products through gpuopt_gemm on the caller's stream.
#pragma once
#include <cstddef>

#include "runtime/grid.hpp"
#include "runtime/stream.hpp"

namespace gpuopt {

// The local extents of A (mloc x kloc), B (kloc_b x nloc) and C (mloc x nloc) of this rank.
struct SummaShape {
  std::int64_t mloc, nloc, kloc_a, kloc_b;
  std::size_t panel_a_bytes, panel_b_bytes;  // one A panel (mloc x kb), one B panel (kb x nloc)
  std::size_t workspace_bytes;               // two of each, 256-byte aligned
};
SummaShape summa_shape(const Grid& g, const gpuopt_gemm_dist_desc_t& d);

// Enqueues C = alpha A B + beta C (arguments checked; workspace of summa_shape's size).
gpuopt_status_t summa(const char* fn, Grid& g, Stream& s, const gpuopt_gemm_dist_desc_t& d,
                      const void* A, const void* B, void* C, void* workspace);

}  // namespace gpuopt
