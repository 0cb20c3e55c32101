// gemm register_blocked: 2D register tiling. A block of 256 threads computes a 128x128 tile of C
// (f32; 64x64 for f64), each thread an 8x8 (f32; 4x4 for f64) sub-tile held in registers. The
// k-tiles (8 deep) of op(A) and op(B) are staged in shared memory as [kk][mn], transposed when the
// operand is stored k-contiguous, so each step of the inner product reads the thread's rows and
// columns with 16-byte vector loads (in 16-byte chunks spread so a quarter-warp reads 128
// consecutive bytes: no bank conflicts) and does TM x TN FMAs from registers. Global loads are
// 16-byte vectors along the operand's contiguous dimension when A, B, C, the leading dimensions
// and batch strides are 16-byte aligned (scalar loads otherwise); C is written with vector stores.
// Over smem_coalesced_padded: each shared-memory value feeds 8 FMAs instead of 1, and a thread
// computes 64 (f64: 16) outputs, so the kernel is no longer bound by shared-memory bandwidth.
// Exact f32 / f64, every transpose, any ld, tails by predication, batches along grid.z.
// Figure: to be measured.
#include "common/launch.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/gemm/gemm_tile_io.cuh"

namespace gpuopt {
namespace {

using gemm_io::GemmArgs;
using gemm_io::i64;
using gemm_io::kVecWidth;

template <class T>
struct RbCfg;
template <>
struct RbCfg<float> {
  static constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;
};
template <>
struct RbCfg<double> {
  static constexpr int kBM = 64, kBN = 64, kBK = 8, kTM = 4, kTN = 4;
};

constexpr int kThreads = 256;
constexpr int kPad = 4;  // row padding of the shared tiles (keeps rows 16-byte aligned)

// Loads the BK x BMN k-tile X(mn0 .., k0 ..) into S[kk * LDS + mn], zero outside the operand.
template <class T, int BMN, int BK, int LDS, bool kKContig, bool kVec>
__device__ __forceinline__ void load_tile(T* S, const T* X, i64 ld, i64 mn0, i64 k0, i64 mn_ext,
                                          i64 k_ext, int tid) {
  constexpr int W = kVecWidth<T>;
  if constexpr (!kKContig && kVec) {  // vectors along mn, stored as vectors
    constexpr int VPR = BMN / W;
    static_assert((BK * VPR) % kThreads == 0, "whole vectors per thread");
#pragma unroll
    for (int e = 0; e < BK * VPR / kThreads; ++e) {
      const int lin = tid + e * kThreads;
      const int kk = lin / VPR, mn = (lin % VPR) * W;
      const i64 gm = mn0 + mn, gk = k0 + kk;
      T v[W];
      if (gk < k_ext && gm + W <= mn_ext) {
        gemm_io::ld_vec(v, X + gm + gk * ld);
      } else {
#pragma unroll
        for (int w = 0; w < W; ++w)
          v[w] = (gk < k_ext && gm + w < mn_ext) ? X[gm + w + gk * ld] : T(0);
      }
      gemm_io::st_vec(S + kk * LDS + mn, v);
    }
  } else if constexpr (kKContig && kVec) {  // vectors along kk, stored transposed
    constexpr int VPR = BK / W;
    static_assert((BMN * VPR) % kThreads == 0, "whole vectors per thread");
#pragma unroll
    for (int e = 0; e < BMN * VPR / kThreads; ++e) {
      const int lin = tid + e * kThreads;
      const int kq = lin % VPR, mn = lin / VPR;
      const i64 gm = mn0 + mn, gk = k0 + kq * W;
      T v[W];
      if (gm < mn_ext && gk + W <= k_ext) {
        gemm_io::ld_vec(v, X + gk + gm * ld);
      } else {
#pragma unroll
        for (int w = 0; w < W; ++w)
          v[w] = (gm < mn_ext && gk + w < k_ext) ? X[gk + w + gm * ld] : T(0);
      }
#pragma unroll
      for (int w = 0; w < W; ++w) S[(kq * W + w) * LDS + mn] = v[w];
    }
  } else {  // scalars, lanes along the contiguous dimension
    static_assert((BK * BMN) % kThreads == 0, "whole elements per thread");
#pragma unroll
    for (int e = 0; e < BK * BMN / kThreads; ++e) {
      const int lin = tid + e * kThreads;
      const int kk = kKContig ? lin % BK : lin / BMN;
      const int mn = kKContig ? lin / BK : lin % BMN;
      S[kk * LDS + mn] =
          gemm_io::operand_or_zero(X, ld, kKContig, mn0 + mn, k0 + kk, mn_ext, k_ext);
    }
  }
}

template <class T, bool kAK, bool kBK, bool kVec>
__global__ void __launch_bounds__(kThreads) gemm_register_blocked_kernel(GemmArgs<T> a) {
  using Cfg = RbCfg<T>;
  constexpr int W = kVecWidth<T>;
  constexpr int BM = Cfg::kBM, BN = Cfg::kBN, BK = Cfg::kBK, TM = Cfg::kTM, TN = Cfg::kTN;
  constexpr int TXM = BM / TM, TYN = BN / TN;  // threads along m and n
  static_assert(TXM * TYN == kThreads, "one thread per TM x TN sub-tile");
  static_assert(TM % W == 0 && TN % W == 0, "sub-tiles of whole vectors");
  constexpr int LDA = BM + kPad, LDB = BN + kPad;
  __shared__ __align__(16) T As[BK * LDA];  // As[kk][i]
  __shared__ __align__(16) T Bs[BK * LDB];  // Bs[kk][j]

  const int tid = threadIdx.x;
  const int tx = tid % TXM, ty = tid / TXM;
  i64 tm, tn;
  gemm_io::tile_coords(blockIdx.x, a.tiles_m, a.tiles_n, 8, &tm, &tn);
  const i64 i0 = tm * BM, j0 = tn * BN;

  const i64 z = blockIdx.z;
  const T* A = a.A + z * a.stride_a;
  const T* B = a.B + z * a.stride_b;
  T acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = T(0);
  }
  for (i64 k0 = 0; k0 < a.k; k0 += BK) {
    load_tile<T, BM, BK, LDA, kAK, kVec>(As, A, a.lda, i0, k0, a.m, a.k, tid);
    load_tile<T, BN, BK, LDB, kBK, kVec>(Bs, B, a.ldb, j0, k0, a.n, a.k, tid);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      // Thread rows: c * TXM * W + tx * W + v; columns likewise with TYN, ty.
      T af[TM], bf[TN];
#pragma unroll
      for (int c = 0; c < TM / W; ++c)
        gemm_io::ld_vec(af + c * W, As + kk * LDA + c * TXM * W + tx * W);
#pragma unroll
      for (int c = 0; c < TN / W; ++c)
        gemm_io::ld_vec(bf + c * W, Bs + kk * LDB + c * TYN * W + ty * W);
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fma(af[i], bf[j], acc[i][j]);
      }
    }
    __syncthreads();
  }
  T* C = a.C + z * a.stride_c;
#pragma unroll
  for (int j = 0; j < TN; ++j) {
    const i64 col = j0 + (j / W) * TYN * W + ty * W + j % W;
#pragma unroll
    for (int c = 0; c < TM / W; ++c) {
      T v[W];
#pragma unroll
      for (int w = 0; w < W; ++w) v[w] = acc[c * W + w][j];
      gemm_io::store_c_rows(C, a.ldc, a.m, a.n, i0 + c * TXM * W + tx * W, col, v, a.alpha, a.beta,
                            kVec);
    }
  }
}

template <class T>
gpuopt_status_t launch(const GemmProblem& p, const ExecEnv& env) {
  const GemmArgs<T> a = gemm_io::make_args<T>(p, RbCfg<T>::kBM, RbCfg<T>::kBN);
  // 16-byte vectors need A, B, C, lda, ldb, ldc and the batch strides 16-byte aligned.
  const bool vec = gemm_need_alignment(p, 16) == nullptr;
  return gemm_io::with_layouts(a.a_kcontig, a.b_kcontig, [&](auto ak, auto bk) {
    constexpr bool kA = decltype(ak)::value, kB = decltype(bk)::value;
    auto kernel = vec ? gemm_register_blocked_kernel<T, kA, kB, true>
                      : gemm_register_blocked_kernel<T, kA, kB, false>;
    return gemm_io::for_batch_chunks(a, [&](const GemmArgs<T>& c, dim3 grid) {
      kernel<<<grid, kThreads, 0, env.stream>>>(c);
      return check_launch(env.fn, "gemm register_blocked kernel launch");
    });
  });
}

}  // namespace

gpuopt_status_t gemm_launch_register_blocked(const GemmProblem& p, const ExecEnv& env) {
  return gemm_io::with_simt_type(p, env, "register_blocked",
                                 [&](auto t) { return launch<decltype(t)>(p, env); });
}

}  // namespace gpuopt
