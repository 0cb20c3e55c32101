// gemm smem_tiled: 16x16 shared-memory tiles of op(A) and op(B), one output element per thread.
// Over naive: each element of A and B is read from global memory once per 16x16 tile instead of
// once per output, so global traffic drops 16x. Loads use one fixed thread mapping (coalesced
// only for A with trans N and B with trans N); the next rung arranges them per layout.
// Exact f32 / f64 (compute F32 / F64), every transpose, any ld, tails by predication, batches
// along grid.z. Figure: to be measured.
#include "kernels/gemm/simt_square_tile.cuh"

namespace gpuopt {
namespace {

using gemm_io::GemmArgs;
using gemm_io::i64;

constexpr int kTile = 16;

template <class T>
__global__ void __launch_bounds__(kTile* kTile) gemm_smem_tiled_kernel(GemmArgs<T> a) {
  __shared__ T As[kTile][kTile];  // As[kk][i]
  __shared__ T Bs[kTile][kTile];  // Bs[j][kk]
  const int tx = threadIdx.x, ty = threadIdx.y;
  const gemm_io::SquareTile<T> t = gemm_io::square_tile<kTile>(a);
  const i64 i = t.i0 + tx, j = t.j0 + ty;
  T acc = T(0);
  for (i64 k0 = 0; k0 < a.k; k0 += kTile) {
    // op(A)(i0 + tx, k0 + ty) and op(B)(k0 + tx, j0 + ty).
    As[ty][tx] = gemm_io::operand_or_zero(t.A, a.lda, a.a_kcontig, i, k0 + ty, a.m, a.k);
    Bs[ty][tx] = gemm_io::operand_or_zero(t.B, a.ldb, a.b_kcontig, j, k0 + tx, a.n, a.k);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTile; ++kk) acc = fma(As[kk][tx], Bs[ty][kk], acc);
    __syncthreads();
  }
  gemm_io::store_square(a, t, i, j, acc);
}

}  // namespace

gpuopt_status_t gemm_launch_smem_tiled(const GemmProblem& p, const ExecEnv& env) {
  return gemm_io::with_simt_type(p, env, "smem_tiled", [&](auto t) {
    return gemm_io::launch_square_tiles<kTile>(p, env, gemm_smem_tiled_kernel<decltype(t)>,
                                               "gemm smem_tiled kernel launch");
  });
}

}  // namespace gpuopt
