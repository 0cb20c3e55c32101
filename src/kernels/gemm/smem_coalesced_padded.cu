// gemm smem_coalesced_padded: 32x32 shared-memory tiles, one output element per thread, the tile
// loads arranged per operand layout so that consecutive threads of a warp read consecutive
// addresses (for N and for T operands alike), and the tiles padded by one element so that the
// transposed stores and the column reads of the inner product hit 32 different banks.
// Over smem_tiled: every global load is coalesced whatever the transposes (smem_tiled's are
// strided for A with trans T and B with trans T), no bank conflicts, 4x fewer tile loads per
// output. Exact f32 / f64, every transpose, any ld, tails by predication, batches along grid.z.
// Figure: to be measured.
#include "kernels/gemm/simt_square_tile.cuh"

namespace gpuopt {
namespace {

using gemm_io::GemmArgs;
using gemm_io::i64;

constexpr int kTile = 32;

template <class T>
__global__ void __launch_bounds__(kTile* kTile) gemm_smem_coalesced_padded_kernel(GemmArgs<T> a) {
  __shared__ T As[kTile][kTile + 1];             // As[kk][i], padded
  __shared__ T Bs[kTile][kTile + 1];             // Bs[j][kk], padded
  const int tx = threadIdx.x, ty = threadIdx.y;  // a warp is one ty, tx = 0..31
  const gemm_io::SquareTile<T> t = gemm_io::square_tile<kTile>(a);
  const i64 i0 = t.i0, j0 = t.j0;
  const bool ak = a.a_kcontig, bk = a.b_kcontig;
  T acc = T(0);
  for (i64 k0 = 0; k0 < a.k; k0 += kTile) {
    // The lane index tx runs along the operand's contiguous dimension.
    if (!ak) {  // A[i + kk * lda]: lanes along i
      As[ty][tx] = gemm_io::operand_or_zero(t.A, a.lda, false, i0 + tx, k0 + ty, a.m, a.k);
    } else {  // A[kk + i * lda]: lanes along kk, stored transposed (stride 33: no conflicts)
      As[tx][ty] = gemm_io::operand_or_zero(t.A, a.lda, true, i0 + ty, k0 + tx, a.m, a.k);
    }
    if (bk) {  // B[kk + j * ldb]: lanes along kk
      Bs[ty][tx] = gemm_io::operand_or_zero(t.B, a.ldb, true, j0 + ty, k0 + tx, a.n, a.k);
    } else {  // B[j + kk * ldb]: lanes along j, stored transposed
      Bs[tx][ty] = gemm_io::operand_or_zero(t.B, a.ldb, false, j0 + tx, k0 + ty, a.n, a.k);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTile; ++kk) acc = fma(As[kk][tx], Bs[ty][kk], acc);
    __syncthreads();
  }
  gemm_io::store_square(a, t, i0 + tx, j0 + ty, acc);
}

}  // namespace

gpuopt_status_t gemm_launch_smem_coalesced_padded(const GemmProblem& p, const ExecEnv& env) {
  return gemm_io::with_simt_type(p, env, "smem_coalesced_padded", [&](auto t) {
    return gemm_io::launch_square_tiles<kTile>(p, env,
                                               gemm_smem_coalesced_padded_kernel<decltype(t)>,
                                               "gemm smem_coalesced_padded kernel launch");
  });
}

}  // namespace gpuopt
