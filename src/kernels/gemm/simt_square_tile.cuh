// Pieces shared by the one-output-per-thread shared-memory rungs (smem_tiled,
// smem_coalesced_padded): the block's kTile x kTile tile of C and its batch's operands, the
// predicated store of one output, and the launch over batch chunks with kTile x kTile threads.
#pragma once
#include "common/launch.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/gemm/gemm_tile_io.cuh"

namespace gpuopt {
namespace gemm_io {

// Origin (i0, j0) of the block's tile of C and the operands of its batch entry (blockIdx.z).
template <class T>
struct SquareTile {
  i64 i0, j0;
  const T* A;
  const T* B;
  T* C;
};

template <int kTile, class T>
__device__ __forceinline__ SquareTile<T> square_tile(const GemmArgs<T>& a) {
  i64 tm, tn;
  tile_coords(blockIdx.x, a.tiles_m, a.tiles_n, a.tiles_m, &tm, &tn);
  const i64 z = blockIdx.z;
  return {tm * kTile, tn * kTile, a.A + z * a.stride_a, a.B + z * a.stride_b, a.C + z * a.stride_c};
}

// C(i, j) = alpha * acc + beta * C(i, j) when (i, j) lies inside C.
template <class T>
__device__ __forceinline__ void store_square(const GemmArgs<T>& a, const SquareTile<T>& t, i64 i,
                                             i64 j, T acc) {
  if (i < a.m && j < a.n) store_c(t.C + j * a.ldc + i, acc, a.alpha, a.beta);
}

// Launches kernel over every tile and batch chunk of p, kTile x kTile threads a block.
template <int kTile, class T>
gpuopt_status_t launch_square_tiles(const GemmProblem& p, const ExecEnv& env,
                                    void (*kernel)(GemmArgs<T>), const char* what) {
  const GemmArgs<T> a = make_args<T>(p, kTile, kTile);
  return for_batch_chunks(a, [&](const GemmArgs<T>& c, dim3 grid) {
    kernel<<<grid, dim3(kTile, kTile), 0, env.stream>>>(c);
    return check_launch(env.fn, what);
  });
}

}  // namespace gemm_io
}  // namespace gpuopt
