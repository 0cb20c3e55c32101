// gemm warptiled_cpasync (sm_80+): warp tiles and a multistage pipeline, SIMT FMA.
// f32: BK = 16, 3 stages, warps of 64x64, each thread an 8x16 sub-tile in chunks of 4x4 spread
// over the warp tile (a warp's fragment loads are then a few 64-128-byte lines: no bank
// conflicts). Layout NT (both operands MN-contiguous): 128x128 block tiles, 128 threads = 2x2
// warps, 2 blocks/SM. Any K-contiguous operand (NN, TN, TT): 128x256 tiles, 256 threads = 2x4
// warps, 1 block/SM. f64: 64x128x8 block tiles, 2x2 warps of 32x64, 8x8 per thread (chunks of
// 2x2), 3 stages. The shape of cuBLAS's own SIMT kernels: 8 warps per SM, a large register tile
// (128 / 64 accumulators per thread, ~220-254 registers), so each shared-memory vector load
// feeds 16-32 FMAs.
// Global -> shared: MN-contiguous operands (A with trans N, B with trans T) by 16-byte
// cp.async.cg, zero-filled through the src-size operand. K-contiguous f32 operands through
// registers: 16-byte loads along k (lane pairs cover whole 32-byte sectors), stored after the
// compute of the current tile, transposed as 8-byte vectors of two mn rows (this replaced
// one-element cp.async.ca copies: +5-15% on NN/TN/TT); tails read element by element or zero.
// f64 keeps one-element cp.async copies for K-contiguous operands. Shared tiles are [kk][mn]
// with rows padded by 4 elements (16-byte aligned rows). Tile kt + STAGES - 1 is in flight while
// tile kt is computed; every thread commits one group per iteration (possibly empty, never in
// divergent code), then wait_group(STAGES - 2) and __syncthreads before a stage is read; the
// register-staged tile goes to the stage read in iteration kt - 1, free after that barrier.
// NN and TT (kFullTiles): while the tile being loaded lies entirely inside K, a loop of its own
// loads it with no k tests (predicated 16-byte loads, zero-fill only at the mn edge); the
// partial last tile and the drain run the general loop.
// Tiles are visited in groups of 8 tile rows for L2 reuse. Needs A, B, C, leading dimensions
// and batch strides 16-byte aligned (can_implement refuses otherwise; auto dispatch then takes
// register_blocked). Exact f32 / f64, every transpose, tails by predication, batches along
// grid.z.
// Measured (H100, harness beside cuBLAS's exact-f32 calls, same process, interleaved, medians of
// 25 / 9): f32 4096^3 NN 48.7 TFLOP/s (0.96 of cuBLAS), NT 0.94, TN 0.95, TT 1.01; 8192^3 NN
// 49.4 (0.96); 8192x8192x1024 0.97; batched 512 x 256^3 0.95 (docs/notes/gemm-sgemm.md).
// Tuning knobs: WtCfg / WtPick below.
#include <cstddef>
#include <type_traits>

#include "arch/sm80/cp_async.cuh"
#include "common/launch.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/gemm/gemm_tile_io.cuh"
#include "runtime/smem_limit.hpp"

namespace gpuopt {
namespace {

using gemm_io::GemmArgs;
using gemm_io::i64;
using gemm_io::kVecWidth;

// kRegK / kRegMN: K- / MN-contiguous operands go through registers (16-byte global loads,
// stored after the compute; K-contiguous ones transposed as kRegRows-element vectors) instead
// of cp.async. kFullTiles: k-tiles entirely inside K are loaded without k tests (load_full; the
// loaders of kLoadMnAsync and kLoadKRegs have it). WtCfg<T> serves every layout of
// T unless WtPick below says otherwise.
template <class T>
struct WtCfg;
template <>
struct WtCfg<float> {  // f32, both operands MN-contiguous (A N, B T)
  static constexpr int kBM = 128, kBN = 128, kBK = 16;
  static constexpr int kWM = 64, kWN = 64, kTM = 8, kTN = 16;
  static constexpr int kStages = 3, kMinBlocks = 2;
  static constexpr bool kRegK = true, kRegMN = false;
  static constexpr int kRegRows = 2;
  static constexpr bool kFullTiles = false;
};
// f32 with a K-contiguous operand: 2x4 warps, 1 block/SM. kFullTiles measured per layout (H100,
// ratio to cuBLAS without -> with): NN 0.943 -> 0.959, TT 0.999 -> 1.011, TN (both operands
// K-contiguous) 0.945 -> 0.803, NT (WtCfg<float>) 0.935 -> 0.882; so NN and TT only.
struct WtCfgF32Wide : WtCfg<float> {
  static constexpr int kBN = 256, kMinBlocks = 1;
};
struct WtCfgF32WideFull : WtCfgF32Wide {
  static constexpr bool kFullTiles = true;
};
template <>
struct WtCfg<double> {
  static constexpr int kBM = 64, kBN = 128, kBK = 8;
  static constexpr int kWM = 32, kWN = 64, kTM = 8, kTN = 8;
  static constexpr int kStages = 3, kMinBlocks = 2;
  static constexpr bool kRegK = false, kRegMN = false;
  static constexpr int kRegRows = 1;
  static constexpr bool kFullTiles = false;
};

// The configuration of one element type and operand layout pair (kAK: A K-contiguous, i.e.
// trans_a T; kBK: B K-contiguous, i.e. trans_b N).
template <class T, bool kAK, bool kBK>
struct WtPick {
  using type = WtCfg<T>;
};
template <bool kAK, bool kBK>
struct WtPick<float, kAK, kBK> {
  using type = std::conditional_t<kAK != kBK, WtCfgF32WideFull,
                                  std::conditional_t<kAK, WtCfgF32Wide, WtCfg<float>>>;
};

// Derived shape of a configuration.
template <class T, class Cfg_ = WtCfg<T>>
struct WtShape : Cfg_ {
  using Cfg = Cfg_;
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

// Operand loaders: load(stage, safe) starts the next k-tile's copy into stage, store(stage)
// finishes it (register-staged loader only; called after the compute of the current tile).
enum LoadMode { kLoadMnAsync, kLoadKAsync, kLoadKRegs, kLoadMnRegs };

template <class T, int BMN, int BK, int THREADS, int LDS, int kMode, int kP>
struct AsyncLoader;

// The walk of the MN-contiguous loaders: 16-byte vectors along mn, kKStep k rows per pass of the
// block. mn_in: how much of the thread's vector lies inside the operand, in units of kScale bytes
// (sizeof(T): the byte count of a zero-filling copy; 1: elements).
template <class T, int BMN, int BK, int THREADS, int LDS, std::size_t kScale>
struct MnVectorWalk {
  static constexpr int kW = kVecWidth<T>;
  static constexpr int kVpr = BMN / kW;          // vectors per k row
  static constexpr int kKStep = THREADS / kVpr;  // k rows per pass of the block
  static constexpr int kIters = BK / kKStep;
  static_assert(THREADS % kVpr == 0 && BK % kKStep == 0, "whole passes");

  const T* ptr;  // X(mn0 + mn_t, k0 + kk_t) of the next tile
  i64 ld;
  i64 k_left;  // k_ext - (k0 + kk_t) of the next tile
  int mn_in;   // kScale * elements of the thread's vector inside the operand (0..kW)
  int soff;    // kk_t * LDS + mn_t

  __device__ __forceinline__ void init(const T* X, i64 ld_, i64 mn0, i64 mn_ext, i64 k_ext,
                                       int tid) {
    const int mn_t = (tid % kVpr) * kW, kk_t = tid / kVpr;
    const i64 rem = mn_ext - (mn0 + mn_t);
    mn_in = rem >= kW ? static_cast<int>(kW * kScale)
            : rem > 0 ? static_cast<int>(rem * kScale)
                      : 0;
    // A vector outside the operand copies nothing from a fixed valid address (X itself).
    ld = mn_in ? ld_ : 0;
    ptr = mn_in ? X + (mn0 + mn_t) + kk_t * ld_ : X;
    k_left = k_ext - kk_t;
    soff = kk_t * LDS + mn_t;
  }

  // On to the next k-tile.
  __device__ __forceinline__ void advance() {
    ptr += BK * ld;
    k_left -= BK;
  }
};

// MN-contiguous operand: 16-byte copies along mn; bytes past the operand are zero-filled.
template <class T, int BMN, int BK, int THREADS, int LDS, int kP>
struct AsyncLoader<T, BMN, BK, THREADS, LDS, kLoadMnAsync, kP>
    : MnVectorWalk<T, BMN, BK, THREADS, LDS, sizeof(T)> {
  using Walk = MnVectorWalk<T, BMN, BK, THREADS, LDS, sizeof(T)>;

  // Issues the copies of the next k-tile into stage; safe is any readable address.
  __device__ __forceinline__ void load(T* stage, const T* safe) {
#pragma unroll
    for (int e = 0; e < Walk::kIters; ++e) {
      const int bytes = this->k_left > e * Walk::kKStep ? this->mn_in : 0;
      const T* src = bytes ? this->ptr + e * Walk::kKStep * this->ld : safe;
      sm80::cp_async_cg16_zfill(stage + this->soff + e * Walk::kKStep * LDS, src, bytes);
    }
    this->advance();
  }
  // A k-tile entirely inside K: no k tests.
  __device__ __forceinline__ void load_full(T* stage) {
#pragma unroll
    for (int e = 0; e < Walk::kIters; ++e) {
      sm80::cp_async_cg16_zfill(stage + this->soff + e * Walk::kKStep * LDS,
                                this->ptr + e * Walk::kKStep * this->ld, this->mn_in);
    }
    this->advance();
  }
  __device__ __forceinline__ void store(T*) {}
};

// K-contiguous operand: one element per copy, lanes along kk in 32-byte sectors (KG elements),
// written transposed into [kk][mn]; zero-filled outside the operand.
template <class T, int BMN, int BK, int THREADS, int LDS, int kP>
struct AsyncLoader<T, BMN, BK, THREADS, LDS, kLoadKAsync, kP> {
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
      sm80::cp_async_ca_zfill<sizeof(T)>(stage + soff + kh * kKG * LDS + r * kRP, src, ok);
    }
    ptr += BK;
    k_left -= BK;
  }
  __device__ __forceinline__ void store(T*) {}
};

// K-contiguous operand through registers: each thread loads 16-byte vectors along kk (W
// elements) of P consecutive mn rows, lanes along kk first (whole 32-byte sectors per lane
// pair), and after the compute stores them transposed as W vectors of P elements along mn.
// Outside the operand: zeros (a partial vector at the k tail is read element by element).
template <class T, int BMN, int BK, int THREADS, int LDS, int kP>
struct AsyncLoader<T, BMN, BK, THREADS, LDS, kLoadKRegs, kP> {
  static constexpr int W = kVecWidth<T>;
  static constexpr int kKV = BK / W;                            // vectors along kk per row
  static constexpr int P = kP * THREADS <= BMN * kKV ? kP : 1;  // rows per thread
  static constexpr int kRowsPass = THREADS / kKV * P;           // mn rows per pass of the block
  static constexpr int kPasses = BMN / kRowsPass;
  static_assert(BK % W == 0 && THREADS % kKV == 0 && BMN % kRowsPass == 0, "whole passes");
  static_assert(kPasses * P <= 32, "row mask bits");
  static_assert(P == 1 || P * sizeof(T) == 8 || P * sizeof(T) == 16, "store width");

  const T* ptr;  // X(mn0 + mn_t, k0 + kk_t) of the next tile
  i64 ld;
  i64 k_left;       // k_ext - (k0 + kk_t) of the next tile
  unsigned row_ok;  // bit pass * P + p: row mn_t + pass * kRowsPass + p is inside
  int soff;         // kk_t * LDS + mn_t
  T v[kPasses][P][W];

  __device__ __forceinline__ void init(const T* X, i64 ld_, i64 mn0, i64 mn_ext, i64 k_ext,
                                       int tid) {
    const int kk_t = (tid % kKV) * W, mn_t = (tid / kKV) * P;
    row_ok = 0;
#pragma unroll
    for (int r = 0; r < kPasses; ++r) {
#pragma unroll
      for (int p = 0; p < P; ++p) {
        if (mn0 + mn_t + r * kRowsPass + p < mn_ext) row_ok |= 1u << (r * P + p);
      }
    }
    ld = ld_;
    ptr = X + kk_t + (mn0 + mn_t) * ld_;
    k_left = k_ext - kk_t;
    soff = kk_t * LDS + mn_t;
#pragma unroll
    for (int r = 0; r < kPasses; ++r) {
#pragma unroll
      for (int p = 0; p < P; ++p) {
#pragma unroll
        for (int w = 0; w < W; ++w) v[r][p][w] = T(0);
      }
    }
  }

  // A k-tile entirely inside K: one predicated vector load per row, no k tests and no branch.
  // A row outside the operand keeps its zeros (it only feeds rows / columns of C never stored).
  __device__ __forceinline__ void load_full(T*) {
#pragma unroll
    for (int r = 0; r < kPasses; ++r) {
#pragma unroll
      for (int p = 0; p < P; ++p) {
        if ((row_ok >> (r * P + p)) & 1u) gemm_io::ld_vec(v[r][p], ptr + (r * kRowsPass + p) * ld);
      }
    }
    ptr += BK;
    k_left -= BK;
  }

  __device__ __forceinline__ void load(T*, const T*) {
#pragma unroll
    for (int r = 0; r < kPasses; ++r) {
#pragma unroll
      for (int p = 0; p < P; ++p) {
        const T* src = ptr + (r * kRowsPass + p) * ld;
        const bool ok = (row_ok >> (r * P + p)) & 1u;
        if (ok && k_left >= W) {
          gemm_io::ld_vec(v[r][p], src);
        } else {
#pragma unroll
          for (int w = 0; w < W; ++w) v[r][p][w] = ok && k_left > w ? src[w] : T(0);
        }
      }
    }
    ptr += BK;
    k_left -= BK;
  }

  __device__ __forceinline__ void store(T* stage) {
#pragma unroll
    for (int r = 0; r < kPasses; ++r) {
#pragma unroll
      for (int w = 0; w < W; ++w) {
        T* dst = stage + soff + w * LDS + r * kRowsPass;
        if constexpr (P * sizeof(T) == 16) {
          T e[P];
#pragma unroll
          for (int p = 0; p < P; ++p) e[p] = v[r][p][w];
          gemm_io::st_vec(dst, e);
        } else if constexpr (P * sizeof(T) == 8) {
          *reinterpret_cast<float2*>(dst) = make_float2(v[r][0][w], v[r][1][w]);
        } else {
          *dst = v[r][0][w];
        }
      }
    }
  }
};

// MN-contiguous operand through registers: the same 16-byte vectors as the cp.async loader,
// loaded into registers and stored unchanged after the compute.
template <class T, int BMN, int BK, int THREADS, int LDS, int kP>
struct AsyncLoader<T, BMN, BK, THREADS, LDS, kLoadMnRegs, kP>
    : MnVectorWalk<T, BMN, BK, THREADS, LDS, 1> {
  using Walk = MnVectorWalk<T, BMN, BK, THREADS, LDS, 1>;
  static constexpr int W = Walk::kW;
  T v[Walk::kIters][W];

  __device__ __forceinline__ void load(T*, const T*) {
#pragma unroll
    for (int e = 0; e < Walk::kIters; ++e) {
      const T* src = this->ptr + e * Walk::kKStep * this->ld;
      const int n = this->k_left > e * Walk::kKStep ? this->mn_in : 0;
      if (n == W) {
        gemm_io::ld_vec(v[e], src);
      } else {
#pragma unroll
        for (int w = 0; w < W; ++w) v[e][w] = w < n ? src[w] : T(0);
      }
    }
    this->advance();
  }

  __device__ __forceinline__ void store(T* stage) {
#pragma unroll
    for (int e = 0; e < Walk::kIters; ++e)
      gemm_io::st_vec(stage + this->soff + e * Walk::kKStep * LDS, v[e]);
  }
};

template <class Cfg, bool kKContig>
constexpr int kLoadModeOf = !kKContig    ? (Cfg::kRegMN ? kLoadMnRegs : kLoadMnAsync)
                            : Cfg::kRegK ? kLoadKRegs
                                         : kLoadKAsync;

template <class T, class Cfg, bool kAK, bool kBK>
__global__ void __launch_bounds__(WtShape<T, Cfg>::kThreads, Cfg::kMinBlocks)
    gemm_warptiled_cpasync_kernel(GemmArgs<T> a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // cp.async needs sm_80; the registry never launches this below cc 8.0
#else
  using S = WtShape<T, Cfg>;
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
  AsyncLoader<T, BM, BK, S::kThreads, LDA, kLoadModeOf<Cfg, kAK>, Cfg::kRegRows> la;
  AsyncLoader<T, BN, BK, S::kThreads, LDB, kLoadModeOf<Cfg, kBK>, Cfg::kRegRows> lb;
  la.init(a.A + z * a.stride_a, a.lda, i0, a.m, a.k, tid);
  lb.init(a.B + z * a.stride_b, a.ldb, j0, a.n, a.k, tid);

  T acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = T(0);
  }

  // Tiles 0 .. kfull - 1 lie entirely inside K: with kFullTiles they load without k tests.
  const i64 kfull = a.k / BK;
  auto load_tile = [&](T* st, i64 t) {
    if constexpr (Cfg::kFullTiles) {
      if (t < kfull) {
        la.load_full(st);
        lb.load_full(st + BK * LDA);
        return;
      }
    }
    la.load(st, a.A);
    lb.load(st + BK * LDA, a.B);
  };

  // Prologue: stages 0 .. STAGES - 2 in flight (one commit group each, possibly empty).
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ktiles) {
      T* st = smem + s * S::kStageElems;
      load_tile(st, s);
      la.store(st);
      lb.store(st + BK * LDA);
    }
    sm80::cp_async_commit_group();
  }

  // The inner product of one stage into acc.
  auto compute = [&](const T* As) {
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
  };

  int read_stage = 0, write_stage = STAGES - 1;
  i64 kt = 0;
  if constexpr (Cfg::kFullTiles) {
    // Steady state: the tile loaded in each iteration (kt + STAGES - 1) is a full one.
    for (; kt + STAGES - 1 < kfull; ++kt) {
      sm80::cp_async_wait_group<STAGES - 2>();  // this thread's copies of tile kt have landed
      __syncthreads();  // everyone's have; and everyone is done with tile kt - 1's stage
      T* const wst = smem + write_stage * S::kStageElems;
      // Always true here (kfull <= ktiles), but nvcc cannot tell: the test keeps the loads in a
      // basic block of their own. In one block with the FMAs, ptxas sinks the register-staged
      // loads towards their stores (long-scoreboard stalls): 3-7% slower (H100, design page).
      if (kt + STAGES - 1 < ktiles) {
        la.load_full(wst);
        lb.load_full(wst + BK * LDA);
      }
      sm80::cp_async_commit_group();
      compute(smem + read_stage * S::kStageElems);
      la.store(wst);  // register-staged tiles: stage write_stage was last read in iteration kt - 1
      lb.store(wst + BK * LDA);
      read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
      write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
    }
  }
  // Every tile without kFullTiles; with it the partial last tile's load and the drain.
  for (; kt < ktiles; ++kt) {
    sm80::cp_async_wait_group<STAGES - 2>();  // this thread's copies of tile kt have landed
    __syncthreads();  // everyone's have; and everyone is done with tile kt - 1's stage
    const bool more = kt + STAGES - 1 < ktiles;
    T* const wst = smem + write_stage * S::kStageElems;
    if (more) load_tile(wst, kt + STAGES - 1);
    sm80::cp_async_commit_group();
    compute(smem + read_stage * S::kStageElems);
    if (more) {  // register-staged tiles: stage write_stage was last read in iteration kt - 1
      la.store(wst);
      lb.store(wst + BK * LDA);
    }
    read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
    write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
  }
  sm80::cp_async_wait_group<0>();  // only empty groups remain; leave none in flight at exit

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

// Largest shared-memory need over the layouts of T.
template <class T>
constexpr std::size_t smem_need() {
  const std::size_t n = WtShape<T, typename WtPick<T, false, false>::type>::kSmemBytes;
  const std::size_t k = WtShape<T, typename WtPick<T, true, true>::type>::kSmemBytes;
  return n > k ? n : k;
}

template <class T>
gpuopt_status_t launch(const GemmProblem& p, const ExecEnv& env) {
  const bool a_kcontig = p.trans_a == GPUOPT_TRANS_T, b_kcontig = p.trans_b == GPUOPT_TRANS_N;
  return gemm_io::with_layouts(a_kcontig, b_kcontig, [&](auto ak, auto bk) {
    constexpr bool kA = decltype(ak)::value, kB = decltype(bk)::value;
    using Cfg = typename WtPick<T, kA, kB>::type;
    using S = WtShape<T, Cfg>;
    const GemmArgs<T> a = gemm_io::make_args<T>(p, S::kBM, S::kBN);
    auto kernel = gemm_warptiled_cpasync_kernel<T, Cfg, kA, kB>;
    if constexpr (S::kSmemBytes > 48 * 1024) {  // above the default: opt in (no stream work)
      GPUOPT_TRY(raise_smem_limit(kernel, static_cast<int>(S::kSmemBytes), env.fn,
                                  "gemm warptiled_cpasync"));
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
  const std::size_t need = p.a_type == GPUOPT_DTYPE_F64 ? smem_need<double>() : smem_need<float>();
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
