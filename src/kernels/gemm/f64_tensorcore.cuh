// f64 tensor-core GEMM (the "f64_tensorcore" rung): mma.sync f64, multistage cp.async, shared
// memory laid out so that every fragment load is bank-conflict free. One kernel template serves
// both architectures; only the MMA instruction differs:
//   kK16 = false: mma.sync.m8n8k4.f64 (sm_80+), 32 per 64x32x16 warp step;
//   kK16 = true:  mma.sync.m16n8k16.f64 (sm_90+), 16 per warp step (2x the work each).
// The fragments hold the same values in both cases. Design notes: docs/notes/gemm-f64.md.
// On sm_90a (cc 9.0) the launcher runs f64_tensorcore_ws.cuh instead: the same tiles, layouts and
// fragment loads with the loader moved to a producer warpgroup (mbarrier ring, no __syncthreads);
// the shared pieces (load_tile, FragL/FragR, mma_step, tile_origin, store_tile) live here.
// Measured (H200 at its 700 W cap, same process as cuBLAS, Sm90Config): 49-56 TFLOP/s at
// n = 4096 and 50-52 at 8192 for all four transposes, 0.89-0.97 of cublasDgemm (NN 0.92 / 0.90).
//
// The kernel computes D = L * R (D: mk x nk) with L in the MMA's A slot and R in its B slot:
// L = op(A), R = op(B), D = C normally; for TT the operands swap (L = op(B)^T, R = op(A)^T,
// D = C^T), so that TT runs the NN code. An operand is "K-major" when k is its contiguous index
// (A with trans T, B with trans N) and "MN-major" otherwise.
//
// Index permutations (exact: they only decide which thread multiplies which pair):
//  * m: rows g and g+8 of a 16-row MMA atom (g = lane / 4) are physical rows 2g, 2g+1, so an
//    MN-major L fragment pair is one 16-byte load and a thread's C rows are adjacent.
//  * k: MMA slot t + 4j (t = lane % 4) reads global k = kp(t, j) of the 16-deep step, the same
//    for L and R: "blocked" kp = 4t + j when L is MN-major and R K-major (NN, TT: each R
//    fragment pair is one 16-byte load), "natural" kp = t + 4j otherwise (conflict-free 8-byte
//    loads for K-major L, NT/TN).
//  * n: natural (column g of n-atom an is column 8 an + g).
// Shared memory per operand and stage:
//  * K-major: [rows][kBK + pad] (pad 2 doubles, or 4 for R with the natural k order); the pitch
//    puts the rows a half-warp reads in distinct banks.
//  * MN-major: [kBK][rows], 16-byte chunk c of k-row kr stored at c ^ sw(kr), sw = 2 ((kr >> 2)
//    & 3) (blocked k) or 2 (kr & 3) (natural k): 2t for the k-rows a thread reads.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "arch/sm80/cp_async.cuh"
#include "arch/sm80/mma_sync.cuh"
#include "kernels/gemm/gemm.hpp"

namespace gpuopt {
namespace f64mma {

// Block configuration: kWarpsM x kWarpsN warps, each computing a 64 x 32 tile of D; tile order
// in groups of kGroup tile-rows, m fastest.
template <int kWarpsM_, int kWarpsN_, int kBK_, int kStages_, int kGroup_ = 8, bool kLate_ = false>
struct Config {
  static constexpr int kWarpsM = kWarpsM_, kWarpsN = kWarpsN_;
  static constexpr int kBM = 64 * kWarpsM, kBN = 32 * kWarpsN, kBK = kBK_;
  static constexpr int kStages = kStages_, kGroup = kGroup_;
  static constexpr bool kLate = kLate_;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static_assert(kBK % 16 == 0, "k tile must be a multiple of the 16-deep MMA step");
  static_assert(kStages >= 2, "need at least double buffering");
};

// sm_80 (A100, 164 KB opt-in): 128x128x16, 3 stages, 96-114 KB depending on the layouts.
using Sm80Config = Config<2, 4, 16, 3>;
// sm_90 (227 KB opt-in): 128x128x32, 3 stages, 192-210 KB, late refill (H200 tuning log in
// docs/notes/history/gemm-f64-rounds.md).
using Sm90Config = Config<2, 4, 32, 3, 8, true>;

// Shared-memory layout of one instantiation (kLK / kRK: L / R is K-major).
template <class Cfg, bool kLK, bool kRK>
struct Layout {
  static constexpr bool kBlocked = !kLK && kRK;
  static constexpr int kPitchL = Cfg::kBK + 2;                   // K-major L: 2 mod 8
  static constexpr int kPitchR = Cfg::kBK + (kBlocked ? 2 : 4);  // K-major R: 2 mod 4 / 4 mod 8
  static constexpr int kLDoubles = kLK ? Cfg::kBM * kPitchL : Cfg::kBK * Cfg::kBM;
  static constexpr int kRDoubles = kRK ? Cfg::kBN * kPitchR : Cfg::kBK * Cfg::kBN;
  static constexpr int kStageDoubles = kLDoubles + kRDoubles;
  static constexpr int kSmemBytes = kStageDoubles * Cfg::kStages * 8;
  static_assert(kLDoubles % 16 == 0 && kStageDoubles % 16 == 0, "128-byte aligned parts");
};

// Shared memory needed for a problem's layouts (host side, for can_implement).
template <class Cfg>
constexpr int smem_bytes(bool a_trans, bool b_trans) {
  // NN, NT, TN, TT (TT runs as NN with swapped operands)
  return !a_trans ? (!b_trans ? Layout<Cfg, false, true>::kSmemBytes
                              : Layout<Cfg, false, false>::kSmemBytes)
                  : (!b_trans ? Layout<Cfg, true, true>::kSmemBytes
                              : Layout<Cfg, false, true>::kSmemBytes);
}

// Kernel arguments. k_tiles == 0 means D = beta * D without reading L or R.
struct Params {
  const double* L;
  const double* R;
  double* C;
  long long mk, nk, k, ldl, ldr, ldc, stride_l, stride_r, stride_c, batch;
  double alpha, beta;
  int tiles_m, tiles_n, k_tiles;
  int k_full;  // k-tiles with no k tail
};

// ---------------------------------------------------------------------------------------------
// Device helpers.

__device__ __forceinline__ double2 lds128(const double* p) {
  return *reinterpret_cast<const double2*>(p);
}

// The thread index read through a volatile asm: values derived from it cannot be hoisted out of
// the main loop, so the loaders' per-thread indices are recomputed at each k tile (a few integer
// instructions) instead of holding registers that the accumulators and fragments need.
__device__ __forceinline__ int fresh_tid() {
  unsigned v;
  asm volatile("mov.u32 %0, %%tid.x;\n" : "=r"(v));
  return static_cast<int>(v);
}

// k permutation: global k (within a 16-deep step) of MMA slot t + 4j.
template <bool kBlocked>
__device__ __forceinline__ constexpr int kperm(int t, int j) {
  return kBlocked ? 4 * t + j : t + 4 * j;
}

// MN-major swizzle term of k-row kr (XORed into the 16-byte chunk index).
template <bool kBlocked>
__device__ __forceinline__ int mn_swizzle(int kr) {
  return kBlocked ? ((kr >> 2) & 3) << 1 : (kr & 3) << 1;
}

// One 16-deep step of MMAs for n-atoms [kN0, kN1) of one 16-row slice of the warp tile:
// acc[an] += a * b[an]. a[i]: row g + 8 (i % 2), slot t + 4 (i / 2); b[an][j]: slot t + 4j,
// column g; acc[an][i]: row g + 8 (i / 2), column 2t + i % 2 (the PTX ISA layouts of m16n8k16
// .f64). m8n8k4 is the same picture cut into 2 rows x 4 slots of 8x8x4 pieces; its loop runs the
// k slot outermost so that consecutive MMAs are independent.
template <bool kK16, int kN0, int kN1>
__device__ __forceinline__ void mma_step(double (&acc)[4][4], const double (&a)[8],
                                         const double (&b)[4][4]) {
  if constexpr (kK16) {
#pragma unroll
    for (int an = kN0; an < kN1; ++an) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
      sm80::mma_m16n8k16_f64(acc[an], a, b[an]);
#elif defined(__CUDA_ARCH__)
      __trap();  // never launched below sm_90 (the launcher checks the device)
#endif
    }
  } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#pragma unroll
    for (int s = 0; s < 4; ++s) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
#pragma unroll
        for (int an = kN0; an < kN1; ++an) {
          sm80::mma_m8n8k4_f64(acc[an][2 * e], acc[an][2 * e + 1], a[2 * s + e], b[an][s]);
        }
      }
    }
#endif
  }
}

// ---------------------------------------------------------------------------------------------
// Global -> shared: k-tile kt of one operand (kRows = its tile extent along m or n, starting at
// mn0 of mn) into its part of a stage. g: the operand (batch applied), ld its leading dimension,
// dummy: a valid address for the copies that read nothing (tails are zero-filled); tid: the
// loader thread's index in 0 .. Cfg::kThreads - 1 (fresh_tid() in the one-role kernel).
//  K-major: a thread's chunks are kLineStep rows apart at the same chunk column; each quarter
//    warp writes one row's 128 contiguous bytes.
//  MN-major: a thread's chunks lie along one k-row, kPerLine chunks apart (same swizzle term);
//    each quarter warp writes 8 consecutive chunks, permuted within their 128 bytes.
template <class Cfg, bool kKMajor, int kRows, int kPitch, bool kBlocked>
__device__ __forceinline__ void load_tile(double* part, const double* g, long long ld,
                                          long long mn0, long long mn, long long k, int kt,
                                          bool full, const double* dummy, int tid) {
  constexpr int kT = Cfg::kThreads, kBK = Cfg::kBK;
  constexpr int kChunks = kRows * kBK / 2 / kT;
  static_assert((kRows * kBK / 2) % kT == 0, "chunks must divide among the threads");
  const unsigned s = sm80::smem_addr(part);
  const long long k0 = static_cast<long long>(kt) * kBK;
  if constexpr (kKMajor) {
    constexpr int kPerLine = kBK / 2, kLineStep = kT / kPerLine;
    static_assert(kT % kPerLine == 0, "K-major loader shape");
    const int c = tid % kPerLine, line0 = tid / kPerLine;
    const unsigned d = s + (line0 * kPitch + 2 * c) * 8;
    if (full) {  // interior tile: no predicates, 64-bit pointer steps only
      unsigned long long q = __cvta_generic_to_global(g + (mn0 + line0) * ld + k0 + 2 * c);
      const unsigned long long step = static_cast<unsigned long long>(kLineStep * ld) * 8;
#pragma unroll
      for (int r = 0; r < kChunks; ++r) {
        sm80::cp_async_cg16(d + r * kLineStep * kPitch * 8, q);
        q += step;
      }
      return;
    }
    const long long kleft = k - k0 - 2 * c;
    const int kbytes = kleft >= 2 ? 16 : (kleft == 1 ? 8 : 0);
    const long long rows_left = mn - mn0 - line0;
    const double* p = g + (mn0 + line0) * ld + k0 + 2 * c;
    const long long step = kLineStep * ld;
#pragma unroll
    for (int r = 0; r < kChunks; ++r) {
      const int bytes = rows_left > r * kLineStep ? kbytes : 0;
      sm80::cp_async_cg16_zfill(d + r * kLineStep * kPitch * 8,
                                __cvta_generic_to_global(bytes ? p : dummy), bytes);
      p += step;
    }
  } else {
    constexpr int kPerLine = kT / kBK;  // threads per k-row
    static_assert(kT % kBK == 0 && (kRows / 2) % kPerLine == 0 && kPerLine % 8 == 0,
                  "MN-major loader shape");
    const int c0 = tid % kPerLine, line = tid / kPerLine;
    // kPerLine is a multiple of 8: the chunks c0 + kPerLine r share the swizzle of c0
    const unsigned d = s + (line * kRows + 2 * (c0 ^ mn_swizzle<kBlocked>(line))) * 8;
    const double* p = g + (k0 + line) * ld + mn0 + 2 * c0;
    if (full) {  // interior tile: one base address, compile-time offsets
      const unsigned long long q = __cvta_generic_to_global(p);
#pragma unroll
      for (int r = 0; r < kChunks; ++r)
        sm80::cp_async_cg16(d + r * kPerLine * 16, q + r * kPerLine * 16);
      return;
    }
    const long long left = mn - mn0 - 2 * c0;
    const bool line_ok = k0 + line < k;
#pragma unroll
    for (int r = 0; r < kChunks; ++r) {
      const long long l = left - 2 * kPerLine * r;
      const int bytes = line_ok ? (l >= 2 ? 16 : (l == 1 ? 8 : 0)) : 0;
      sm80::cp_async_cg16_zfill(d + r * kPerLine * 16,
                                __cvta_generic_to_global(bytes ? p + 2 * kPerLine * r : dummy),
                                bytes);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Shared -> registers. Per-thread base offsets (doubles) are computed once; every load adds a
// compile-time offset. g = lane / 4, t = lane % 4, w0: the warp's first row of L or column of R.

// L (A slot) fragment of 16-row slice am at step ks: a[2j + e] = L(row 2g + e, k kp(t, j)).
//  MN-major: one 16-byte load per j (rows 2g, 2g+1 adjacent; swizzle term 2t).
//  K-major (natural k only): one 8-byte load per value; pitch = 2 mod 8 puts a half warp's four
//    rows (2g + e) x four k (t + 4j) on 16 distinct banks pairs.
template <class Cfg, class Lay, bool kKMajor>
struct FragL {
  int base;
  __device__ __forceinline__ void init(int w0, int g, int t) {
    if constexpr (kKMajor) {
      base = (w0 + 2 * g) * Lay::kPitchL + t;
    } else {
      base = kperm<Lay::kBlocked>(t, 0) * Cfg::kBM + w0 + 2 * (g ^ (2 * t));
    }
  }
  __device__ __forceinline__ void load(const double* sL, int ks, int am, double (&a)[8]) const {
    if constexpr (kKMajor) {
      static_assert(!Lay::kBlocked, "K-major L uses the natural k order");
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e)
          a[2 * j + e] = sL[base + (16 * am + e) * Lay::kPitchL + 16 * ks + 4 * j];
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int dk = kperm<Lay::kBlocked>(0, j);  // kp(t, j) - kp(t, 0)
        const double2 v = lds128(sL + base + (16 * ks + dk) * Cfg::kBM + 16 * am);
        a[2 * j] = v.x;
        a[2 * j + 1] = v.y;
      }
    }
  }
};

// R (B slot) fragment of n-atom an at step ks: b[an][j] = R(k kp(t, j), column 8 an + g).
//  K-major, blocked k: two 16-byte loads (k 4t + 2h, 4t + 2h + 1); pitch = 2 mod 4.
//  K-major, natural k: four 8-byte loads; pitch = 4 mod 8.
//  MN-major: four 8-byte loads; chunk (8 an + g) / 2 of k-row kp(t, j), swizzle term 2t; the
//    XOR depends on an's low bit, hence two bases.
template <class Cfg, class Lay, bool kKMajor>
struct FragR {
  int base0, base1;
  __device__ __forceinline__ void init(int w0, int g, int t) {
    if constexpr (kKMajor) {
      base0 = (w0 + g) * Lay::kPitchR + kperm<Lay::kBlocked>(t, 0);
      base1 = 0;
    } else {
      const int k0 = kperm<Lay::kBlocked>(t, 0) * Cfg::kBN + w0 + (g & 1);
      base0 = k0 + 2 * ((g >> 1) ^ (2 * t));
      base1 = k0 + 2 * ((4 + (g >> 1)) ^ (2 * t));
    }
  }
  __device__ __forceinline__ void load(const double* sR, int ks, int an, double (&b)[4]) const {
    if constexpr (kKMajor) {
      const double* p = sR + base0 + 8 * an * Lay::kPitchR + 16 * ks;
      if constexpr (Lay::kBlocked) {
        const double2 v0 = lds128(p), v1 = lds128(p + 2);
        b[0] = v0.x;
        b[1] = v0.y;
        b[2] = v1.x;
        b[3] = v1.y;
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) b[j] = p[4 * j];
      }
    } else {
      const double* p = sR + ((an & 1) ? base1 : base0) + 16 * (an >> 1) + 16 * ks * Cfg::kBN;
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = p[kperm<Lay::kBlocked>(0, j) * Cfg::kBN];
    }
  }
};

// Tile order: groups of kGroup tile-rows, m fastest, so concurrent blocks share panels in L2.
// m0, n0: the first row and column of D of tile `tile` (0 .. tiles_m * tiles_n - 1).
template <class Cfg>
__device__ __forceinline__ void tile_origin_of(const Params& prm, int tile, long long& m0,
                                               long long& n0) {
  constexpr int kGroup = Cfg::kGroup;
  const int per_group = kGroup * prm.tiles_n;
  const int grp = tile / per_group;
  const int first_m = grp * kGroup;
  const int gsize = min(prm.tiles_m - first_m, kGroup);
  const int local = tile - grp * per_group;
  m0 = static_cast<long long>(first_m + local % gsize) * Cfg::kBM;
  n0 = static_cast<long long>(local / gsize) * Cfg::kBN;
}

// The tile of this block (one block per tile).
template <class Cfg>
__device__ __forceinline__ void tile_origin(const Params& prm, long long& m0, long long& n0) {
  tile_origin_of<Cfg>(prm, static_cast<int>(blockIdx.x), m0, n0);
}

// Epilogue: acc[am][an][2e + f] is D(i0 + 16 am + e, j0 + 8 an + f), i0 = m0 + wm0 + 2g,
// j0 = n0 + wn0 + 2t. D = C: (e = 0, 1) are adjacent in a column; D = C^T: (f = 0, 1) are.
// 16-byte accesses; use_ab false (k == 0 or alpha == 0) stores beta C. With beta != 0 each 16-row
// slice's 8 C pairs are loaded before its stores: the compiler keeps a C load behind any earlier C
// store (same pointer, runtime ldc), so loading pair by pair costs 64 L2 round trips in series.
template <bool kSwap>
__device__ __forceinline__ void store_tile(const Params& prm, const double (&acc)[4][4][4],
                                           long long z, long long i00, long long j00, bool use_ab) {
  double* C = prm.C + z * prm.stride_c;
  const bool read_c = prm.beta != 0.0;
  const long long rows = kSwap ? prm.nk : prm.mk;  // C's m
  const long long cols = kSwap ? prm.mk : prm.nk;  // C's n
#pragma unroll
  for (int am = 0; am < 4; ++am) {
    const long long i0 = i00 + 16 * am;
    // pair (an, h): (i0, j0 + h), (i0 + 1, j0 + h) for C; (i0 + h, j0), (i0 + h, j0 + 1) for C^T,
    // j0 = j00 + 8 an; at C row ci, column cj of the pair's first element
    const auto row = [&](int an) { return kSwap ? j00 + 8 * an : i0; };
    const auto col = [&](int an, int h) { return kSwap ? i0 + h : j00 + 8 * an + h; };
    double2 c[4][2];
#pragma unroll
    for (int an = 0; an < 4; ++an) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const long long ci = row(an), cj = col(an, h);
        c[an][h] = make_double2(0.0, 0.0);
        if (!read_c || ci >= rows || cj >= cols) continue;
        const double* in = C + cj * prm.ldc + ci;
        if (ci + 1 < rows) {
          c[an][h] = *reinterpret_cast<const double2*>(in);
        } else {
          c[an][h].x = *in;
        }
      }
    }
#pragma unroll
    for (int an = 0; an < 4; ++an) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const long long ci = row(an), cj = col(an, h);
        if (ci >= rows || cj >= cols) continue;
        const double x0 = kSwap ? acc[am][an][2 * h] : acc[am][an][h];
        const double x1 = kSwap ? acc[am][an][2 * h + 1] : acc[am][an][2 + h];
        double v0 = use_ab ? prm.alpha * x0 : 0.0;
        double v1 = use_ab ? prm.alpha * x1 : 0.0;
        if (read_c) {
          v0 = fma(prm.beta, c[an][h].x, v0);
          v1 = fma(prm.beta, c[an][h].y, v1);
        }
        double* out = C + cj * prm.ldc + ci;
        if (ci + 1 < rows) {
          *reinterpret_cast<double2*>(out) = make_double2(v0, v1);
        } else {
          *out = v0;
        }
      }
    }
  }
}

// Slices 0..2 of step ks: slice am's MMAs with the L fragment of slice am + 1 loading meanwhile
// (af double-buffered); after(am) runs behind each slice's MMAs (the one-role kernel's refill).
template <bool kK16, class FL, class After>
__device__ __forceinline__ void first_slices(double (&acc)[4][4][4], double (&af)[2][8],
                                             const double (&bf)[4][4], const FL& fl,
                                             const double* sL, int ks, After after) {
#pragma unroll
  for (int am = 0; am < 3; ++am) {
    fl.load(sL, ks, am + 1, af[(am + 1) & 1]);
    mma_step<kK16, 0, 4>(acc[am], af[am & 1], bf);
    after(am);
  }
}

// Slice 3 of a step, the MMAs that read the last L fragment (af1) and the R fragments (bf),
// interleaved with the next step's loads when there is one (`more`; nL / nR / nks: its stage
// and step): its slice-0 L fragment, then R n-atoms 0-1 behind the first two MMAs, 2-3 behind
// the last two. `mid` runs between the two MMA pairs (the one-role kernel's eager refill).
template <bool kK16, class FL, class FR, class Mid>
__device__ __forceinline__ void last_slice(double (&acc3)[4][4], double (&af0)[8],
                                           const double (&af1)[8], double (&bf)[4][4], const FL& fl,
                                           const FR& fr, const double* nL, const double* nR,
                                           int nks, bool more, Mid mid) {
  if (more) fl.load(nL, nks, 0, af0);
  mma_step<kK16, 0, 2>(acc3, af1, bf);
  mid();
  if (more) {
    fr.load(nR, nks, 0, bf[0]);
    fr.load(nR, nks, 1, bf[1]);
  }
  mma_step<kK16, 2, 4>(acc3, af1, bf);
  if (more) {
    fr.load(nR, nks, 2, bf[2]);
    fr.load(nR, nks, 3, bf[3]);
  }
}

// ---------------------------------------------------------------------------------------------
// The kernel. kLK / kRK: L / R is K-major; kSwap: D = C^T (TT run as NN).
template <class Cfg, bool kLK, bool kRK, bool kSwap, bool kK16>
__global__ void __launch_bounds__(Cfg::kThreads, 1) f64_mma_kernel(const Params prm) {
  using Lay = Layout<Cfg, kLK, kRK>;
  extern __shared__ __align__(128) double smem[];
  constexpr int kS = Cfg::kStages, kSteps = Cfg::kBK / 16;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wm0 = (warp % Cfg::kWarpsM) * 64, wn0 = (warp / Cfg::kWarpsM) * 32;

  long long m0, n0;
  tile_origin<Cfg>(prm, m0, n0);

  for (long long z = blockIdx.z; z < prm.batch; z += gridDim.z) {
    double acc[4][4][4];
    sm80::zero_fragments(acc);

    const int KT = prm.k_tiles;
    if (KT > 0) {
      const double* gL = prm.L + z * prm.stride_l;
      const double* gR = prm.R + z * prm.stride_r;
      // Interior tiles (no m/n/k tail) take the loaders' unpredicated path.
      const bool in_l = m0 + Cfg::kBM <= prm.mk, in_r = n0 + Cfg::kBN <= prm.nk;
      auto load_l = [&](int st, int kt) {
        load_tile<Cfg, kLK, Cfg::kBM, Lay::kPitchL, Lay::kBlocked>(
            smem + st * Lay::kStageDoubles, gL, prm.ldl, m0, prm.mk, prm.k, kt,
            in_l && kt < prm.k_full, prm.L, fresh_tid());
      };
      auto load_r = [&](int st, int kt) {
        load_tile<Cfg, kRK, Cfg::kBN, Lay::kPitchR, Lay::kBlocked>(
            smem + st * Lay::kStageDoubles + Lay::kLDoubles, gR, prm.ldr, n0, prm.nk, prm.k, kt,
            in_r && kt < prm.k_full, prm.R, fresh_tid());
      };
      auto load_stage = [&](int st, int kt) {
        load_l(st, kt);
        load_r(st, kt);
      };
      FragL<Cfg, Lay, kLK> fl;
      FragR<Cfg, Lay, kRK> fr;
      fl.init(wm0, g, t);
      fr.init(wn0, g, t);

      // Prologue: k-tiles 0 .. S-1 in flight (one commit group each, empty past the end).
#pragma unroll
      for (int s = 0; s < kS; ++s) {
        if (s < KT) load_stage(s, s);
        sm80::cp_async_commit_group();
      }
      sm80::cp_async_wait_group<kS - 1>();
      __syncthreads();

      double af[2][8], bf[4][4];
      const double* sL = smem;
      const double* sR = smem + Lay::kLDoubles;
#pragma unroll
      for (int an = 0; an < 4; ++an) fr.load(sR, 0, an, bf[an]);
      fl.load(sL, 0, 0, af[0]);

      int stage = 0;
      for (int kt = 0; kt < KT; ++kt) {
#pragma unroll
        for (int ks = 0; ks < kSteps; ++ks) {
          // Slices 0..2 of the warp tile: the next slice's L fragment loads during the MMAs.
          first_slices<kK16>(acc, af, bf, fl, sL, ks, [&](int am) {
            if constexpr (Cfg::kLate) {
              // Late refill: the stage released at the previous tile's barrier gets k-tile
              // kt - 1 + S during this tile, L behind the first step's slice-0 MMAs and R behind
              // the last step's (slice 1 when there is one step), so the two warps of a
              // sub-partition never run the loader with an empty MMA queue.
              constexpr int kRSlice = kSteps == 1 ? 1 : 0;
              const bool is_l = am == 0 && ks == 0;  // (compile-time after unrolling)
              const bool is_r = am == kRSlice && ks == kSteps - 1;
              if ((is_l || is_r) && kt > 0) {
                const int rst = stage == 0 ? kS - 1 : stage - 1;
                if (kt - 1 + kS < KT) {
                  if (is_l) load_l(rst, kt - 1 + kS);
                  if (is_r) load_r(rst, kt - 1 + kS);
                }
                if (is_r) sm80::cp_async_commit_group();
              }
            }
          });
          // Slice 3: fetch the next step's fragments. At the end of the k tile, first wait for
          // the next tile and release this one (after the barrier every warp has read it); it is
          // refilled with k-tile kt + S once the first MMAs of this slice are queued.
          const double* nL = sL;
          const double* nR = sR;
          int nks = ks + 1;
          const int done_stage = stage;
          if (ks + 1 == kSteps) {
            sm80::cp_async_wait_group<kS - 2>();
            __syncthreads();
            stage = stage + 1 == kS ? 0 : stage + 1;
            nL = smem + stage * Lay::kStageDoubles;
            nR = nL + Lay::kLDoubles;
            nks = 0;
          }
          const bool more = ks + 1 < kSteps || kt + 1 < KT;  // (uniform)
          last_slice<kK16>(acc[3], af[0], af[1], bf, fl, fr, nL, nR, nks % kSteps, more, [&] {
            if (!Cfg::kLate && ks + 1 == kSteps) {
              if (kt + kS < KT) load_stage(done_stage, kt + kS);
              sm80::cp_async_commit_group();
            }
          });
          sL = nL;
          sR = nR;
        }
      }
      sm80::cp_async_wait_group<0>();
      __syncthreads();  // the next batch's prologue overwrites the stages
    }

    store_tile<kSwap>(prm, acc, z, m0 + wm0 + 2 * g, n0 + wn0 + 2 * t, prm.k_tiles > 0);
  }
}

}  // namespace f64mma
}  // namespace gpuopt
