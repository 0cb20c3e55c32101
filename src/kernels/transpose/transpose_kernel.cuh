// Device-side pieces shared by the transpose rungs: the kernel arguments (element bits, no
// arithmetic), the per-dtype launch switch, and the 16-byte packing of V elements.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "common/launch.hpp"
#include "kernels/transpose/transpose.hpp"

namespace gpuopt {

// Unsigned word of an element size: the kernels copy bits, so f32, f64 and bf16 are u32, u64, u16.
template <int kBytes>
struct Word;
template <>
struct Word<2> {
  using type = std::uint16_t;
};
template <>
struct Word<4> {
  using type = std::uint32_t;
};
template <>
struct Word<8> {
  using type = std::uint64_t;
};

// Kernel view of a problem: `cols` input lines of `rows` elements (pitch lda) become `rows`
// output lines of `cols` elements (pitch ldb): B[j + i * ldb] = A[i + j * lda].
template <class W>
struct TransposeArgs {
  const W* a;
  W* b;
  long long rows, cols, lda, ldb;
};

template <class W>
TransposeArgs<W> transpose_args(const TransposeProblem& p) {
  return {static_cast<const W*>(p.A), static_cast<W*>(p.B), p.rows, p.cols, p.lda, p.ldb};
}

// Calls Launch::template run<W>(p, env) with W the word of p's element size.
template <class Launch>
gpuopt_status_t transpose_by_size(const TransposeProblem& p, const ExecEnv& env) {
  switch (transpose_elem_size(p.dtype)) {
    case 2:
      return Launch::template run<std::uint16_t>(p, env);
    case 4:
      return Launch::template run<std::uint32_t>(p, env);
    case 8:
      return Launch::template run<std::uint64_t>(p, env);
    default:
      return fail(GPUOPT_ERROR_INTERNAL, env.fn, "transpose: unexpected dtype");
  }
}

// Grid of the tiled rungs: x over the tiles along i (consecutive CTAs read neighbouring runs of
// the same input lines), y over the tiles along j up to 65535 (the kernels loop over further j
// tiles). Refuses, naming the rung, when the rows need more than one grid's x.
inline gpuopt_status_t transpose_tile_grid(const TransposeProblem& p, const ExecEnv& env,
                                           long long tile_i, long long tile_j, const char* rung,
                                           dim3* grid) {
  const long long gx = ceil_div(p.rows, tile_i), gy = ceil_div(p.cols, tile_j);
  if (gx > kMaxGridX)
    return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn, "transpose %s: rows exceed the grid", rung);
  *grid = dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy < 65535 ? gy : 65535));
  return GPUOPT_SUCCESS;
}

// Launches kernel, a tiled rung's kernel that takes TransposeArgs<W> alone, over the grid of
// tile_i x tile_j-element tiles (transpose_tile_grid) in blocks of block threads. rung names the
// rung in messages; launch_what the launch ("transpose <rung> kernel launch").
template <class W>
gpuopt_status_t transpose_launch_tiled(void (*kernel)(TransposeArgs<W>), const TransposeProblem& p,
                                       const ExecEnv& env, long long tile_i, long long tile_j,
                                       dim3 block, const char* rung, const char* launch_what) {
  dim3 grid;
  GPUOPT_TRY(transpose_tile_grid(p, env, tile_i, tile_j, rung, &grid));
  kernel<<<grid, block, 0, env.stream>>>(transpose_args<W>(p));
  return check_launch(env.fn, launch_what);
}

// 16 bytes as V words of W.
template <class W>
union Pack16 {
  static constexpr int kWidth = 16 / static_cast<int>(sizeof(W));
  uint4 v;
  W w[kWidth];
};

}  // namespace gpuopt
