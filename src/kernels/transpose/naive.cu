// transpose naive: one thread per element. A warp reads 32 consecutive elements of an input line
// (coalesced) and writes them to 32 different output lines (one sector per element: the strided
// side wastes most of each 32-byte write). The textbook rung every other one is measured against.
// Figure (H200, d90ef43, 2 GiB moved): f32 16384^2 517 GB/s (12.1% of the copy roof), f64 854,
// bf16 277 GB/s (docs/notes/history/transpose-rounds.md).
#include "kernels/transpose/transpose_kernel.cuh"

namespace gpuopt {
namespace {

constexpr int kBlockX = 32;  // along an input line (i)
constexpr int kBlockY = 8;   // across input lines (j)

template <class W>
__global__ void __launch_bounds__(kBlockX* kBlockY) transpose_naive_kernel(TransposeArgs<W> t) {
  const long long i = static_cast<long long>(blockIdx.x) * kBlockX + threadIdx.x;
  if (i >= t.rows) return;
  for (long long j = static_cast<long long>(blockIdx.y) * kBlockY + threadIdx.y; j < t.cols;
       j += static_cast<long long>(gridDim.y) * kBlockY)
    t.b[j + i * t.ldb] = t.a[i + j * t.lda];
}

struct Naive {
  template <class W>
  static gpuopt_status_t run(const TransposeProblem& p, const ExecEnv& env) {
    return transpose_launch_tiled(transpose_naive_kernel<W>, p, env, kBlockX, kBlockY,
                                  dim3(kBlockX, kBlockY), "naive", "transpose naive kernel launch");
  }
};

}  // namespace

gpuopt_status_t transpose_launch_naive(const TransposeProblem& p, const ExecEnv& env) {
  return transpose_by_size<Naive>(p, env);
}

}  // namespace gpuopt
