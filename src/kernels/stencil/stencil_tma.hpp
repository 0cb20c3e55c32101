// Host side of the TMA stencil rungs: the tensor map of the input and the launch setup.
#pragma once
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "kernels/stencil/stencil.hpp"
#include "runtime/error.hpp"
#include "runtime/registry.hpp"
#include "runtime/smem_limit.hpp"

namespace gpuopt {
namespace stencil {

// Rank-3 tiled tensor map of p.in (nx x ny x nz, 2D problems as nz = 1) with boxes of
// box_cols x box_rows x 1 elements, no swizzle, out-of-bounds elements filled with zeros.
// False when the driver lacks the entry point or rejects the layout.
bool encode_plane_map(CUtensorMap* map, const StencilProblem& p, int box_cols, int box_rows);

// encode_plane_map as a status: UNSUPPORTED, the message led by `what`, when it fails (a rung's
// second map: prepare_tma_launch encodes the first).
inline gpuopt_status_t encode_plane_map_or_fail(const char* what, const StencilProblem& p,
                                                int box_cols, int box_rows, const ExecEnv& env,
                                                CUtensorMap* map) {
  if (encode_plane_map(map, p, box_cols, box_rows)) return GPUOPT_SUCCESS;
  return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn,
              "%s: cuTensorMapEncodeTiled rejected the input's layout", what);
}

// Every TMA rung's launch setup: the input's plane map with boxes of box_cols x box_rows into
// *map, and kernel's dynamic shared-memory limit raised to smem (the size its can_implement
// checks). UNSUPPORTED or the CUDA status, the message led by `what`, when either fails.
template <class Kernel>
gpuopt_status_t prepare_tma_launch(const char* what, Kernel kernel, const StencilProblem& p,
                                   int box_cols, int box_rows, int smem, const ExecEnv& env,
                                   CUtensorMap* map) {
  GPUOPT_TRY(encode_plane_map_or_fail(what, p, box_cols, box_rows, env, map));
  GPUOPT_TRY(raise_smem_limit(kernel, smem, env.fn, what));
  return GPUOPT_SUCCESS;
}

}  // namespace stencil
}  // namespace gpuopt
