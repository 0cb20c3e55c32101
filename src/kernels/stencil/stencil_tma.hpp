// Host side of the TMA stencil rungs: the tensor map of the input.
#pragma once
#include <cuda.h>

#include "kernels/stencil/stencil.hpp"

namespace gpuopt {
namespace stencil {

// Rank-3 tiled tensor map of p.in (nx x ny x nz, 2D problems as nz = 1) with boxes of
// box_cols x box_rows x 1 elements, no swizzle, out-of-bounds elements filled with zeros.
// False when the driver lacks the entry point or rejects the layout.
bool encode_plane_map(CUtensorMap* map, const StencilProblem& p, int box_cols, int box_rows);

}  // namespace stencil
}  // namespace gpuopt
