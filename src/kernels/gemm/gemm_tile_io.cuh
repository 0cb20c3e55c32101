// Shared pieces of the SIMT gemm rungs (smem_tiled, smem_coalesced_padded, register_blocked,
// warptiled_cpasync), in one place: the kernel arguments, batch and tile indexing, operand access
// with transposes, predicated (zero-filling) loads, 16-byte vector loads/stores, and the epilogue
// C = alpha * acc + beta * C that never reads C when beta == 0. (The cp.async wrappers are in
// arch/sm80/cp_async.cuh.)
//
// Operand view. Both operands are seen as "MN x K" matrices X(mn, kk): op(A)(i, kk) and
// op(B)(kk, j) with mn = j. X is either MN-contiguous (X(mn, kk) at X[mn + kk * ld]: A with
// trans N, B with trans T) or K-contiguous (X[kk + mn * ld]: A with trans T, B with trans N).
// Shared-memory k-tiles are always stored [kk][mn] (mn contiguous), so the inner product reads
// consecutive mn and can use 16-byte vector loads.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "common/launch.hpp"
#include "common/vector_types.cuh"
#include "kernels/gemm/gemm.hpp"

namespace gpuopt {
namespace gemm_io {

using i64 = long long;

// Kernel arguments (passed by value). Pointers are typed; alpha and beta are in the element type.
template <class T>
struct GemmArgs {
  const T* A;
  const T* B;
  T* C;
  i64 m, n, k;
  i64 lda, ldb, ldc;
  i64 stride_a, stride_b, stride_c;
  i64 batch;             // a launch's grid.z covers its batches
  i64 tiles_m, tiles_n;  // output tiles of the launching kernel's block shape
  T alpha, beta;
  int a_kcontig;  // trans_a == T
  int b_kcontig;  // trans_b == N
};

template <class T>
inline GemmArgs<T> make_args(const GemmProblem& p, int tile_m, int tile_n) {
  GemmArgs<T> a;
  a.A = static_cast<const T*>(p.A);
  a.B = static_cast<const T*>(p.B);
  a.C = static_cast<T*>(p.C);
  a.m = p.m;
  a.n = p.n;
  a.k = p.k;
  a.lda = p.lda;
  a.ldb = p.ldb;
  a.ldc = p.ldc;
  a.stride_a = p.stride_a;
  a.stride_b = p.stride_b;
  a.stride_c = p.stride_c;
  a.batch = p.batch;
  a.tiles_m = ceil_div(p.m, tile_m);
  a.tiles_n = ceil_div(p.n, tile_n);
  a.alpha = static_cast<T>(p.alpha);
  a.beta = static_cast<T>(p.beta);
  a.a_kcontig = p.trans_a == GPUOPT_TRANS_T;
  a.b_kcontig = p.trans_b == GPUOPT_TRANS_N;
  return a;
}

// Launches launch_chunk(args, grid) for each chunk of at most 65535 batches: one block per
// output tile along grid.x (gemm_can_simt_exact has checked that they fit), the chunk's batches
// along grid.z, the chunk's pointers advanced to its first batch. Kernels index the batch by
// blockIdx.z alone (an in-kernel batch loop made nvcc hoist the epilogue's addressing out of it
// and spill). Returns the first failure.
template <class T, class F>
gpuopt_status_t for_batch_chunks(const GemmArgs<T>& a, F&& launch_chunk) {
  constexpr i64 kMaxZ = 65535;
  for (i64 z0 = 0; z0 < a.batch; z0 += kMaxZ) {
    GemmArgs<T> c = a;
    if (z0 > 0) {
      c.A += z0 * a.stride_a;
      c.B += z0 * a.stride_b;
      c.C += z0 * a.stride_c;
    }
    c.batch = a.batch - z0 < kMaxZ ? a.batch - z0 : kMaxZ;
    const dim3 grid(static_cast<unsigned>(a.tiles_m * a.tiles_n), 1,
                    static_cast<unsigned>(c.batch));
    const gpuopt_status_t st = launch_chunk(c, grid);
    if (st != GPUOPT_SUCCESS) return st;
  }
  return GPUOPT_SUCCESS;
}

// Calls f(T{}) with T = double or float, the input type of the SIMT rungs (f64, exact f32).
template <class F>
gpuopt_status_t with_simt_type(const GemmProblem& p, const ExecEnv& env, const char* variant,
                               F&& f) {
  if (p.a_type == GPUOPT_DTYPE_F64) return f(double{});
  if (p.a_type == GPUOPT_DTYPE_F32) return f(float{});
  return fail(GPUOPT_ERROR_INTERNAL, env.fn, "gemm %s: unexpected dtype", variant);
}

// Calls f(std::integral_constant<bool, a_kcontig>, std::integral_constant<bool, b_kcontig>):
// one kernel instantiation per operand layout pair.
template <class F>
gpuopt_status_t with_layouts(bool a_kcontig, bool b_kcontig, F&& f) {
  using Y = std::true_type;
  using N = std::false_type;
  if (a_kcontig) return b_kcontig ? f(Y{}, Y{}) : f(Y{}, N{});
  return b_kcontig ? f(N{}, Y{}) : f(N{}, N{});
}

// Tile (tm, tn) of linear block id: groups of `group` tile rows, m fastest within a group, so the
// blocks resident at one time share A and B panels in L2 (group >= tiles_m: plain m-fastest).
__device__ __forceinline__ void tile_coords(i64 id, i64 tiles_m, i64 tiles_n, i64 group, i64* tm,
                                            i64* tn) {
  const i64 per_group = group * tiles_n;
  const i64 g = id / per_group;
  const i64 first = g * group;
  const i64 rows = tiles_m - first < group ? tiles_m - first : group;
  const i64 r = id - g * per_group;
  *tm = first + r % rows;
  *tn = r / rows;
}

// X(mn, kk) of an operand stored MN-contiguous (kcontig false) or K-contiguous (true).
template <class T>
__device__ __forceinline__ T operand_at(const T* x, i64 ld, bool kcontig, i64 mn, i64 kk) {
  return x[kcontig ? kk + mn * ld : mn + kk * ld];
}

// Same, zero outside mn < mn_ext, kk < k_ext.
template <class T>
__device__ __forceinline__ T operand_or_zero(const T* x, i64 ld, bool kcontig, i64 mn, i64 kk,
                                             i64 mn_ext, i64 k_ext) {
  return (mn < mn_ext && kk < k_ext) ? operand_at(x, ld, kcontig, mn, kk) : T(0);
}

// 16-byte vector <-> W = 16 / sizeof(T) scalars. src/dst 16-byte aligned.
template <class T>
constexpr int kVecWidth = Vec16<T>::width;

__device__ __forceinline__ void ld_vec(float* d, const float* s) {
  const float4 v = *reinterpret_cast<const float4*>(s);
  d[0] = v.x;
  d[1] = v.y;
  d[2] = v.z;
  d[3] = v.w;
}
__device__ __forceinline__ void ld_vec(double* d, const double* s) {
  const double2 v = *reinterpret_cast<const double2*>(s);
  d[0] = v.x;
  d[1] = v.y;
}
__device__ __forceinline__ void st_vec(float* d, const float* s) {
  *reinterpret_cast<float4*>(d) = make_float4(s[0], s[1], s[2], s[3]);
}
__device__ __forceinline__ void st_vec(double* d, const double* s) {
  *reinterpret_cast<double2*>(d) = make_double2(s[0], s[1]);
}

// Epilogue of one element: C = alpha * acc + beta * C; C is not read when beta == 0.
template <class T>
__device__ __forceinline__ void store_c(T* c, T acc, T alpha, T beta) {
  T out = alpha * acc;
  if (beta != T(0)) out = fma(beta, *c, out);
  *c = out;
}

// Epilogue of W consecutive rows of one column (c 16-byte aligned, all W rows inside C).
template <class T>
__device__ __forceinline__ void store_c_vec(T* c, const T* acc, T alpha, T beta) {
  constexpr int W = kVecWidth<T>;
  T out[W];
#pragma unroll
  for (int v = 0; v < W; ++v) out[v] = alpha * acc[v];
  if (beta != T(0)) {
    T old[W];
    ld_vec(old, c);
#pragma unroll
    for (int v = 0; v < W; ++v) out[v] = fma(beta, old[v], out[v]);
  }
  st_vec(c, out);
}

// Epilogue of up to W consecutive rows (row0 .. row0 + W - 1) of column col: one vector store
// when vec (the layout is aligned) and all rows are inside C, else one predicated store per row.
template <class T>
__device__ __forceinline__ void store_c_rows(T* C, i64 ldc, i64 m, i64 n, i64 row0, i64 col,
                                             const T* acc, T alpha, T beta, bool vec) {
  constexpr int W = kVecWidth<T>;
  if (col >= n) return;
  T* c = C + col * ldc + row0;
  if (vec && row0 + W <= m) {
    store_c_vec(c, acc, alpha, beta);
    return;
  }
#pragma unroll
  for (int v = 0; v < W; ++v) {
    if (row0 + v < m) store_c(c + v, acc[v], alpha, beta);
  }
}

}  // namespace gemm_io
}  // namespace gpuopt
