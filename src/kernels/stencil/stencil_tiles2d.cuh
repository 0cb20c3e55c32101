// The 2D tile of the pipelined rungs (sm80_cpasync, sm90_tma): 32 * W x 32 outputs per tile,
// 128 threads of 8 output rows x W columns each, the tile order of the persistent loops and the
// epilogue (compute from a staged tile, store).
#pragma once
#include "kernels/stencil/stencil_tile.cuh"

namespace gpuopt {
namespace stencil {

template <class T, int R>
using Shape2d = TileShape<T, R, kRows2d, kRowGroups2d>;

// Origin of tile t (x fastest, so consecutive tiles share halos in L2).
template <class Shape>
__device__ __forceinline__ void tile_origin(i64 t, i64 tiles_x, i64* x0, i64* y0) {
  const i64 ty = t / tiles_x;
  *x0 = (t - ty * tiles_x) * Shape::TX;
  *y0 = ty * Shape::TY;
}

// Computes and stores the thread's outputs of the tile at (x0, y0) staged in s.
template <class Shape, int R, class T>
__device__ __forceinline__ void tile_epilogue_2d(const T* s, T* out, const StencilGrid& g,
                                                 const StencilCoeffs<T>& k, i64 x0, i64 y0) {
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  Lanes<T> acc[kRows2d];
  tile_compute<Shape, R, kRows2d>(s, tx, ty, k, acc);
  const i64 x = x0 + tx * Shape::W;
#pragma unroll
  for (int i = 0; i < kRows2d; ++i) store_vec(out, g, x, y0 + ty * kRows2d + i, 0, acc[i]);
}

}  // namespace stencil
}  // namespace gpuopt
