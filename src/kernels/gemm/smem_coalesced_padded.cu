// gemm smem_coalesced_padded: 32x32 shared-memory tiles, one output element per thread, the tile
// loads arranged per operand layout so that consecutive threads of a warp read consecutive
// addresses (for N and for T operands alike), and the tiles padded by one element so that the
// transposed stores and the column reads of the inner product hit 32 different banks.
// Over smem_tiled: every global load is coalesced whatever the transposes (smem_tiled's are
// strided for A with trans T and B with trans T), no bank conflicts, 4x fewer tile loads per
// output. Exact f32 / f64, every transpose, any ld, tails by predication, batches along grid.z.
// Figure: to be measured.
#include "common/launch.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/gemm/gemm_tile_io.cuh"

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
  i64 tm, tn;
  gemm_io::tile_coords(blockIdx.x, a.tiles_m, a.tiles_n, a.tiles_m, &tm, &tn);
  const i64 i0 = tm * kTile, j0 = tn * kTile;
  const bool ak = a.a_kcontig, bk = a.b_kcontig;
  const i64 z = blockIdx.z;
  const T* A = a.A + z * a.stride_a;
  const T* B = a.B + z * a.stride_b;
  T acc = T(0);
  for (i64 k0 = 0; k0 < a.k; k0 += kTile) {
    // The lane index tx runs along the operand's contiguous dimension.
    if (!ak) {  // A[i + kk * lda]: lanes along i
      As[ty][tx] = gemm_io::operand_or_zero(A, a.lda, false, i0 + tx, k0 + ty, a.m, a.k);
    } else {  // A[kk + i * lda]: lanes along kk, stored transposed (stride 33: no conflicts)
      As[tx][ty] = gemm_io::operand_or_zero(A, a.lda, true, i0 + ty, k0 + tx, a.m, a.k);
    }
    if (bk) {  // B[kk + j * ldb]: lanes along kk
      Bs[ty][tx] = gemm_io::operand_or_zero(B, a.ldb, true, j0 + ty, k0 + tx, a.n, a.k);
    } else {  // B[j + kk * ldb]: lanes along j, stored transposed
      Bs[tx][ty] = gemm_io::operand_or_zero(B, a.ldb, false, j0 + tx, k0 + ty, a.n, a.k);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTile; ++kk) acc = fma(As[kk][tx], Bs[ty][kk], acc);
    __syncthreads();
  }
  const i64 i = i0 + tx, j = j0 + ty;
  if (i < a.m && j < a.n) {
    gemm_io::store_c(a.C + z * a.stride_c + j * a.ldc + i, acc, a.alpha, a.beta);
  }
}

template <class T>
gpuopt_status_t launch(const GemmProblem& p, const ExecEnv& env) {
  const GemmArgs<T> a = gemm_io::make_args<T>(p, kTile, kTile);
  return gemm_io::for_batch_chunks(a, [&](const GemmArgs<T>& c, dim3 grid) {
    gemm_smem_coalesced_padded_kernel<T><<<grid, dim3(kTile, kTile), 0, env.stream>>>(c);
    return check_launch(env.fn, "gemm smem_coalesced_padded kernel launch");
  });
}

}  // namespace

gpuopt_status_t gemm_launch_smem_coalesced_padded(const GemmProblem& p, const ExecEnv& env) {
  return gemm_io::with_simt_type(p, env, "smem_coalesced_padded",
                                 [&](auto t) { return launch<decltype(t)>(p, env); });
}

}  // namespace gpuopt
