// transpose smem_padded: 32 x 32 tiles staged in shared memory padded to 33 columns. The block
// reads a tile line by line (coalesced) and writes it back line by line of B (coalesced too); the
// extra column puts the 32 elements of a tile column in 32 different banks, so the transposed
// read from shared memory does not serialize. 32 x 8 threads, 4 elements each. Improves on naive
// by making the write side coalesced. Figure (H200, d90ef43, 2 GiB moved): f32 16384^2
// 3149 GB/s (73.7% of the copy roof), f64 3858 (90.4%), bf16 2018 (47.3%): 4-byte f32 and 2-byte
// bf16 write only 128 / 64 bytes per output line and instruction
// (docs/notes/history/transpose-rounds.md).
#include "kernels/transpose/transpose_kernel.cuh"

namespace gpuopt {
namespace {

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8;  // threadIdx.y extent: each thread moves kTile / 8 elements

template <class W>
__global__ void __launch_bounds__(kTile* kRowsPerPass)
    transpose_smem_padded_kernel(TransposeArgs<W> t) {
  __shared__ W tile[kTile][kTile + 1];
  const long long i0 = static_cast<long long>(blockIdx.x) * kTile;
  const long long tiles_j = (t.cols + kTile - 1) / kTile;
  for (long long tj = blockIdx.y; tj < tiles_j; tj += gridDim.y) {
    const long long j0 = tj * kTile;
    // Input line j0 + y, element i0 + x -> tile[y][x].
    const long long i = i0 + threadIdx.x;
#pragma unroll
    for (int r = 0; r < kTile; r += kRowsPerPass) {
      const int y = r + static_cast<int>(threadIdx.y);
      const long long j = j0 + y;
      if (i < t.rows && j < t.cols) tile[y][threadIdx.x] = t.a[i + j * t.lda];
    }
    __syncthreads();
    // Output line i0 + y, element j0 + x <- tile[x][y].
    const long long jo = j0 + threadIdx.x;
#pragma unroll
    for (int r = 0; r < kTile; r += kRowsPerPass) {
      const int y = r + static_cast<int>(threadIdx.y);
      const long long io = i0 + y;
      if (io < t.rows && jo < t.cols) t.b[jo + io * t.ldb] = tile[threadIdx.x][y];
    }
    __syncthreads();
  }
}

struct SmemPadded {
  template <class W>
  static gpuopt_status_t run(const TransposeProblem& p, const ExecEnv& env) {
    return transpose_launch_tiled(transpose_smem_padded_kernel<W>, p, env, kTile, kTile,
                                  dim3(kTile, kRowsPerPass), "smem_padded",
                                  "transpose smem_padded kernel launch");
  }
};

}  // namespace

gpuopt_status_t transpose_launch_smem_padded(const TransposeProblem& p, const ExecEnv& env) {
  return transpose_by_size<SmemPadded>(p, env);
}

}  // namespace gpuopt
