// gemm warptiled_cpasync (sm_80+): warp tiles and a multistage cp.async pipeline, SIMT FMA.
// f32: 128x128x8 block tiles, 128 threads = 2x2 warps of 64x64, each thread an 8x16 sub-tile in
// chunks of 4x4 spread over the warp tile (a warp's fragment loads are then a few 64-128-byte
// lines: no bank conflicts), 4 stages. f64: 64x128x8 block tiles, 2x2 warps of 32x64, 8x8 per
// thread (chunks of 2x2), 3 stages. The shape of cuBLAS's own SIMT kernels: few warps, a large
// register tile (128 / 64 accumulators per thread, ~210-230 registers, 2 blocks per SM), so each
// shared-memory vector load feeds 16-32 FMAs.
// Global -> shared copies are cp.async: 16-byte cp.async.cg along the operand's contiguous
// dimension when that is m or n (A with trans N, B with trans T), else one element per copy
// (cp.async.ca, 4 or 8 bytes) placed transposed, lanes along k in 32-byte sectors; out-of-bounds
// elements are zero-filled through the src-size operand, so tails need no branches. Shared tiles
// are [kk][mn] with rows padded by 4 elements (conflict-free transposed stores, 16-byte aligned
// rows). Tile kt + STAGES - 1 is in flight while tile kt is computed; every thread commits one
// group per iteration (possibly empty, never in divergent code), then wait_group(STAGES - 2) and
// __syncthreads before a stage is read. Tiles are visited in groups of 8 tile rows for L2 reuse.
// Over register_blocked: loads overlap compute (no load -> sync -> compute stall per k-tile), and
// twice the FMAs per shared-memory load. Needs A, B, C, leading dimensions and batch strides
// 16-byte aligned (can_implement refuses otherwise; auto dispatch then takes register_blocked).
// Exact f32 / f64, every transpose, tails by predication, batches along grid.z.
// Tuning knobs: WtCfg below. Figure: to be measured.
#include "common/launch.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/gemm/gemm_tile_io.cuh"

namespace gpuopt {
namespace {

using gemm_io::GemmArgs;
using gemm_io::i64;
using gemm_io::kVecWidth;

template <class T>
struct WtCfg;
template <>
struct WtCfg<float> {
  static constexpr int kBM = 128, kBN = 128, kBK = 8;
  static constexpr int kWM = 64, kWN = 64, kTM = 8, kTN = 16;
  static constexpr int kStages = 4, kMinBlocks = 2;
};
template <>
struct WtCfg<double> {
  static constexpr int kBM = 64, kBN = 128, kBK = 8;
  static constexpr int kWM = 32, kWN = 64, kTM = 8, kTN = 8;
  static constexpr int kStages = 3, kMinBlocks = 2;
};

// Derived shape of a configuration.
template <class T>
struct WtShape : WtCfg<T> {
  using Cfg = WtCfg<T>;
  static constexpr int kW = kVecWidth<T>;
  static constexpr int kWarpsM = Cfg::kBM / Cfg::kWM, kWarpsN = Cfg::kBN / Cfg::kWN;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kLM = Cfg::kWM / Cfg::kTM, kLN = Cfg::kWN / Cfg::kTN;  // lanes along m, n
  static constexpr int kPad = 4;
  static constexpr int kLdA = Cfg::kBM + kPad, kLdB = Cfg::kBN + kPad;  // shared row strides
  static constexpr int kStageElems = Cfg::kBK * (kLdA + kLdB);
  static constexpr std::size_t kSmemBytes = sizeof(T) * Cfg::kStages * kStageElems;
  static_assert(kLM * kLN == 32, "a warp is 32 lanes");
  static_assert(Cfg::kTM % kW == 0 && Cfg::kTN % kW == 0, "sub-tiles of whole vectors");
  static_assert(Cfg::kStages >= 2, "a pipeline needs two stages");
};

template <class T, int BMN, int BK, int THREADS, int LDS, bool kKContig>
struct AsyncLoader;

// MN-contiguous operand: 16-byte copies along mn; bytes past the operand are zero-filled.
template <class T, int BMN, int BK, int THREADS, int LDS>
struct AsyncLoader<T, BMN, BK, THREADS, LDS, false> {
  static constexpr int kW = kVecWidth<T>;
  static constexpr int kVpr = BMN / kW;          // vectors per k row
  static constexpr int kKStep = THREADS / kVpr;  // k rows per pass of the block
  static constexpr int kIters = BK / kKStep;
  static_assert(THREADS % kVpr == 0 && BK % kKStep == 0, "whole passes");

  const T* ptr;  // X(mn0 + mn_t, k0 + kk_t) of the next tile
  i64 ld;
  i64 k_left;    // k_ext - (k0 + kk_t) of the next tile
  int mn_bytes;  // bytes of the thread's 16-byte vector inside the operand
  int soff;      // kk_t * LDS + mn_t

  __device__ __forceinline__ void init(const T* X, i64 ld_, i64 mn0, i64 mn_ext, i64 k_ext,
                                       int tid) {
    const int mn_t = (tid % kVpr) * kW, kk_t = tid / kVpr;
    const i64 rem = mn_ext - (mn0 + mn_t);
    mn_bytes = rem >= kW ? 16 : rem > 0 ? static_cast<int>(rem * sizeof(T)) : 0;
    ld = ld_;
    ptr = X + (mn0 + mn_t) + kk_t * ld_;
    k_left = k_ext - kk_t;
    soff = kk_t * LDS + mn_t;
  }

  // Issues the copies of the next k-tile into stage; safe is any readable address.
  __device__ __forceinline__ void load(T* stage, const T* safe) {
#pragma unroll
    for (int e = 0; e < kIters; ++e) {
      const int bytes = k_left > e * kKStep ? mn_bytes : 0;
      const T* src = bytes ? ptr + e * kKStep * ld : safe;
      gemm_io::cp_async_16(stage + soff + e * kKStep * LDS, src, bytes);
    }
    ptr += BK * ld;
    k_left -= BK;
  }
};

// K-contiguous operand: one element per copy, lanes along kk in 32-byte sectors (KG elements),
// written transposed into [kk][mn]; zero-filled outside the operand.
template <class T, int BMN, int BK, int THREADS, int LDS>
struct AsyncLoader<T, BMN, BK, THREADS, LDS, true> {
  static constexpr int kKG = 32 / static_cast<int>(sizeof(T));  // k elements per lane group
  static constexpr int kRP = THREADS / kKG;                     // mn rows per pass
  static constexpr int kIters = BK * BMN / THREADS;
  static constexpr int kRows = BMN / kRP;  // distinct rows per thread
  static_assert(BK % kKG == 0 && BMN % kRP == 0 && kRows <= 32, "whole passes");

  const T* ptr;     // X(mn0 + mn_t, k0 + kk_t) of the next tile
  i64 rp_ld;        // kRP * ld
  i64 k_left;       // k_ext - (k0 + kk_t) of the next tile
  unsigned row_ok;  // bit r: row mn_t + r * kRP is inside the operand
  int soff;         // kk_t * LDS + mn_t

  __device__ __forceinline__ void init(const T* X, i64 ld, i64 mn0, i64 mn_ext, i64 k_ext,
                                       int tid) {
    const int kk_t = tid % kKG, mn_t = tid / kKG;
    row_ok = 0;
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      if (mn0 + mn_t + r * kRP < mn_ext) row_ok |= 1u << r;
    }
    rp_ld = kRP * ld;
    ptr = X + kk_t + (mn0 + mn_t) * ld;
    k_left = k_ext - kk_t;
    soff = kk_t * LDS + mn_t;
  }

  __device__ __forceinline__ void load(T* stage, const T* safe) {
#pragma unroll
    for (int e = 0; e < kIters; ++e) {
      constexpr int kPerK = BMN / kRP;  // passes per k group
      const int r = e % kPerK, kh = e / kPerK;
      const bool ok = ((row_ok >> r) & 1u) && k_left > kh * kKG;
      const T* src = ok ? ptr + kh * kKG + r * rp_ld : safe;
      gemm_io::cp_async_elem<sizeof(T)>(stage + soff + kh * kKG * LDS + r * kRP, src, ok);
    }
    ptr += BK;
    k_left -= BK;
  }
};

template <class T, bool kAK, bool kBK>
__global__ void __launch_bounds__(WtShape<T>::kThreads, WtCfg<T>::kMinBlocks)
    gemm_warptiled_cpasync_kernel(GemmArgs<T> a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // cp.async needs sm_80; the registry never launches this below cc 8.0
#else
  using S = WtShape<T>;
  constexpr int BM = S::kBM, BN = S::kBN, BK = S::kBK, WM = S::kWM, WN = S::kWN;
  constexpr int TM = S::kTM, TN = S::kTN, W = S::kW, LM = S::kLM, LN = S::kLN;
  constexpr int LDA = S::kLdA, LDB = S::kLdB, STAGES = S::kStages;
  extern __shared__ __align__(16) unsigned char gemm_wt_smem[];
  T* smem = reinterpret_cast<T*>(gemm_wt_smem);

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp % S::kWarpsM, wn = warp / S::kWarpsM;
  const int a_off = wm * WM + (lane % LM) * W;  // first row of the thread's chunks in the tile
  const int b_off = wn * WN + (lane / LM) * W;  // first column
  i64 tm, tn;
  gemm_io::tile_coords(blockIdx.x, a.tiles_m, a.tiles_n, 8, &tm, &tn);
  const i64 i0 = tm * BM, j0 = tn * BN;
  const i64 ktiles = (a.k + BK - 1) / BK;

  const i64 z = blockIdx.z;
  AsyncLoader<T, BM, BK, S::kThreads, LDA, kAK> la;
  AsyncLoader<T, BN, BK, S::kThreads, LDB, kBK> lb;
  la.init(a.A + z * a.stride_a, a.lda, i0, a.m, a.k, tid);
  lb.init(a.B + z * a.stride_b, a.ldb, j0, a.n, a.k, tid);

  T acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = T(0);
  }

  // Prologue: stages 0 .. STAGES - 2 in flight (one commit group each, possibly empty).
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ktiles) {
      T* st = smem + s * S::kStageElems;
      la.load(st, a.A);
      lb.load(st + BK * LDA, a.B);
    }
    gemm_io::cp_async_commit();
  }

  int read_stage = 0, write_stage = STAGES - 1;
  for (i64 kt = 0; kt < ktiles; ++kt) {
    gemm_io::cp_async_wait<STAGES - 2>();  // this thread's copies of tile kt have landed
    __syncthreads();  // everyone's have; and everyone is done with tile kt - 1's stage
    if (kt + STAGES - 1 < ktiles) {
      T* st = smem + write_stage * S::kStageElems;
      la.load(st, a.A);
      lb.load(st + BK * LDA, a.B);
    }
    gemm_io::cp_async_commit();

    const T* As = smem + read_stage * S::kStageElems;
    const T* Bs = As + BK * LDA;
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      T af[TM], bf[TN];
#pragma unroll
      for (int c = 0; c < TM / W; ++c)
        gemm_io::ld_vec(af + c * W, As + kk * LDA + a_off + c * LM * W);
#pragma unroll
      for (int c = 0; c < TN / W; ++c)
        gemm_io::ld_vec(bf + c * W, Bs + kk * LDB + b_off + c * LN * W);
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fma(af[i], bf[j], acc[i][j]);
      }
    }
    read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
    write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
  }
  gemm_io::cp_async_wait<0>();  // only empty groups remain; leave none in flight at exit

  T* C = a.C + z * a.stride_c;
#pragma unroll
  for (int j = 0; j < TN; ++j) {
    const i64 col = j0 + b_off + (j / W) * LN * W + j % W;
#pragma unroll
    for (int c = 0; c < TM / W; ++c) {
      T v[W];
#pragma unroll
      for (int w = 0; w < W; ++w) v[w] = acc[c * W + w][j];
      gemm_io::store_c_rows(C, a.ldc, a.m, a.n, i0 + a_off + c * LM * W, col, v, a.alpha, a.beta,
                            true);
    }
  }
#endif
}

template <class T>
gpuopt_status_t launch(const GemmProblem& p, const ExecEnv& env) {
  using S = WtShape<T>;
  const GemmArgs<T> a = gemm_io::make_args<T>(p, S::kBM, S::kBN);
  return gemm_io::with_layouts(a.a_kcontig, a.b_kcontig, [&](auto ak, auto bk) {
    constexpr bool kA = decltype(ak)::value, kB = decltype(bk)::value;
    auto kernel = gemm_warptiled_cpasync_kernel<T, kA, kB>;
    if constexpr (S::kSmemBytes > 48 * 1024) {  // above the default: opt in (no stream work)
      const cudaError_t err = cudaFuncSetAttribute(
          kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(S::kSmemBytes));
      if (err != cudaSuccess) {
        return fail_cuda(err, env.fn, "gemm warptiled_cpasync: shared memory opt-in");
      }
    }
    return gemm_io::for_batch_chunks(a, [&](const GemmArgs<T>& c, dim3 grid) {
      kernel<<<grid, S::kThreads, S::kSmemBytes, env.stream>>>(c);
      return check_launch(env.fn, "gemm warptiled_cpasync kernel launch");
    });
  });
}

}  // namespace

const char* gemm_can_warptiled_cpasync(const GemmProblem& p, const DeviceDesc& dev) {
  if (const char* why = gemm_can_simt_exact(p, dev)) return why;
  if (const char* why = gemm_need_alignment(p, 16)) return why;  // 16-byte cp.async
  const std::size_t need =
      p.a_type == GPUOPT_DTYPE_F64 ? WtShape<double>::kSmemBytes : WtShape<float>::kSmemBytes;
  if (dev.smem_optin != 0 && dev.smem_optin < need)
    return "needs more shared memory per block than the device allows";
  return nullptr;
}

gpuopt_status_t gemm_launch_warptiled_cpasync(const GemmProblem& p, const ExecEnv& env) {
  if (p.a_type == GPUOPT_DTYPE_F64) return launch<double>(p, env);
  if (p.a_type == GPUOPT_DTYPE_F32) return launch<float>(p, env);
  return fail(GPUOPT_ERROR_INTERNAL, env.fn, "gemm warptiled_cpasync: unexpected dtype");
}

}  // namespace gpuopt
