// The sm90_tma_wgmma GEMM kernel (sm_90a): a persistent, warp-specialized TMA + wgmma pipeline.
// Design and layout mapping: docs/notes/gemm-sm90.md.
//
// The kernel computes D = P * Q^T in wgmma terms, with D(j, i) = C(i, j): the wgmma M dimension
// runs over gpuopt's n (columns of C), the wgmma N dimension over gpuopt's m (rows of C), so each
// thread's accumulator pairs are two consecutive rows of one column of C (8-byte stores).
//   P (wgmma A, kBlockM x K tile): P(j, kk) = op(B)(kk, j); K-major when trans_b == N.
//   Q (wgmma B, kBlockN x K tile): Q(i, kk) = op(A)(i, kk); K-major when trans_a == T.
// Block: 384 threads = producer warpgroup (one thread issues TMA) + 2 consumer warpgroups, each
// computing 64 x 256 of the 128 x 256 tile with wgmma m64n256 (cooperative), or each a whole
// 128 x 128 tile with two m64n128, alternating tiles (ping-pong, kPP). Shared memory: stages of
// (P tile, Q tile), each row of a tile 128 bytes of K, 128-byte swizzled by TMA. tf32 NN / TT:
// the MN-major operand becomes P and is read into registers (kPRegs; NN also swaps P and Q).
// Fused users' hooks (register-P path): resident P, split-K coordinates, and 3xTF32 with Q's low
// part formed in shared memory (kQSplitSmem: the GDN dgamma GEMM in f32 mode, 0.158 ms on the
// H100 against 0.285 for its mma.sync version, docs/notes/history/gdn-rounds.md round 11).
#pragma once
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "arch/sm90/cluster.cuh"
#include "arch/sm90/fence.cuh"
#include "arch/sm90/mbarrier.cuh"
#include "arch/sm90/named_barrier.cuh"
#include "arch/sm90/registers.cuh"
#include "arch/sm90/smem.cuh"
#include "arch/sm90/tma.cuh"
#include "arch/sm90/wgmma.cuh"
#include "kernels/gemm/sm90_tma_wgmma.hpp"

namespace gpuopt {
namespace sm90 {

struct TileCoord {
  int x, y, b;  // column tile (kBlockM columns), row tile (kBlockN rows), batch
};

// Unit u of the persistent order, for the CTA of cluster rank `rank`: batch-major; inside a
// batch, groups of kGroupX column tiles, each group walked column unit fastest, so the CTAs
// running together share panels in L2.
template <int kCluster>
__device__ __forceinline__ TileCoord decode_unit(int u, const Params& p, int rank) {
  constexpr int kGroupUnits = kGroupX / kCluster;
  TileCoord tc;
  tc.b = u / p.units_per_batch;
  const int r = u - tc.b * p.units_per_batch;
  const int group_units = kGroupUnits * p.tiles_y;
  const int g = r / group_units;
  const int first_x = g * kGroupUnits;
  const int width = min(p.units_x - first_x, kGroupUnits);
  const int w = r - g * group_units;
  tc.x = (first_x + w % width) * kCluster + rank;
  tc.y = w / width;
  return tc;
}

template <class T>
__device__ __forceinline__ float out_to_float(T v) {
  return static_cast<float>(v);
}
template <>
__device__ __forceinline__ float out_to_float<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <>
__device__ __forceinline__ float out_to_float<__half>(__half v) {
  return __half2float(v);
}
template <class T>
__device__ __forceinline__ T float_to_out(float v) {
  return v;
}
template <>
__device__ __forceinline__ __nv_bfloat16 float_to_out<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ __forceinline__ __half float_to_out<__half>(float v) {
  return __float2half_rn(v);
}

// Stores rows i and i + 1 (valid of them: 0, 1 or 2) of one column of C at ptr:
// alpha * v + beta * C, reading C only when kReadC.
template <class TOut, bool kReadC>
__device__ __forceinline__ void store_pair(TOut* ptr, float v0, float v1, int valid, bool pair,
                                           float alpha, float beta) {
  v0 *= alpha;
  v1 *= alpha;
  if (valid == 2 && pair) {
    if constexpr (sizeof(TOut) == 4) {
      float2* q = reinterpret_cast<float2*>(ptr);
      if constexpr (kReadC) {
        const float2 c = *q;
        v0 = fmaf(beta, c.x, v0);
        v1 = fmaf(beta, c.y, v1);
      }
      *q = make_float2(v0, v1);
    } else if constexpr (std::is_same<TOut, __nv_bfloat16>::value) {
      __nv_bfloat162* q = reinterpret_cast<__nv_bfloat162*>(ptr);
      if constexpr (kReadC) {
        const float2 c = __bfloat1622float2(*q);
        v0 = fmaf(beta, c.x, v0);
        v1 = fmaf(beta, c.y, v1);
      }
      *q = __floats2bfloat162_rn(v0, v1);
    } else {
      __half2* q = reinterpret_cast<__half2*>(ptr);
      if constexpr (kReadC) {
        const float2 c = __half22float2(*q);
        v0 = fmaf(beta, c.x, v0);
        v1 = fmaf(beta, c.y, v1);
      }
      *q = __floats2half2_rn(v0, v1);
    }
    return;
  }
  if (valid >= 1) {
    if constexpr (kReadC) v0 = fmaf(beta, out_to_float(ptr[0]), v0);
    ptr[0] = float_to_out<TOut>(v0);
  }
  if (valid == 2) {
    if constexpr (kReadC) v1 = fmaf(beta, out_to_float(ptr[1]), v1);
    ptr[1] = float_to_out<TOut>(v1);
  }
}

// Hooks of the register-P path, for fused users of this kernel (the GDN variant
// sm90_wgmma_fused): a Hook type with these members is a template argument of the kernel and
// travels beside Params. IdentityHook (the GEMM's) compiles to the plain GEMM.
//   kPRepeat: each k block of P serves kPRepeat consecutive k blocks of Q (P's k block is
//     kb / kPRepeat): several products of one P block with different Q data (3xTF32 parts).
//   kQShared: Q is the same matrix for every batch (its map has one batch, coordinate 0).
//   kPResident: the resident-P schedule (kResXBlocks in sm90_tma_wgmma.hpp; kSwap, K <= 256,
//     one tile of Q rows): the epilogue's Pre of rows r, r + 1 of column col is P(r.., col) read
//     from the resident tile (a float2), not load(); kEpiGroup must be 4 (one P k block a group).
//   operand(a, kb): rewrites the 16 P registers of k block kb after their shared loads.
//   Pre, load(ptr, col, valid, pair): what the store of rows r, r + 1 of column col needs from
//     memory, read for the kEpiGroup j steps of a group before their stores (a serial
//     load-use-store chain per column cost the first GDN build 2.4x:
//     docs/notes/history/gdn-rounds.md, run 6).
//   store<TOut, kReadC>(ptr, col, v0, v1, valid, pair, p, pre): writes rows r, r + 1 (valid of
//     them) of column col of C at ptr; the identity is store_pair's alpha * v + beta * C.
struct IdentityHook {
  static constexpr int kPRepeat = 1;
  static constexpr int kEpiGroup = 32;  // (no loads: one group, the plain store loop)
  static constexpr bool kQShared = false;
  static constexpr bool kPResident = false;
  struct Pre {};
  __device__ __forceinline__ void operand(std::uint32_t (&)[16], int) const {}
  template <class TOut>
  __device__ __forceinline__ Pre load(const TOut*, int, int, bool) const {
    return {};
  }
  template <class TOut, bool kReadC>
  __device__ __forceinline__ void store(TOut* ptr, int, float v0, float v1, int valid, bool pair,
                                        const Params& p, const Pre&) const {
    store_pair<TOut, kReadC>(ptr, v0, v1, valid, pair, p.alpha, p.beta);
  }
};

// Split-K hooks (optional; the GDN dgamma GEMM): a hook with `static constexpr bool kSplitK =
// true` supplies the TMA coordinates of each k block itself: coords(b, kb, pk, pb, qk, qb) gets
// the unit's batch b and k block kb and sets P's (k, batch) and Q's (k, batch) coordinates (the
// defaults: kb / kPRepeat and kb blocks of k, batch b (Q: 0 when kQShared)), so one "batch" of
// the kernel can be a k range of a larger sum whose partial the epilogue writes at batch b.
template <class H, class = void>
struct HookSplitK : std::false_type {};
template <class H>
struct HookSplitK<H, std::void_t<decltype(H::kSplitK)>> : std::integral_constant<bool, H::kSplitK> {
};

// 3xTF32 with Q split in shared memory (optional; the GDN dgamma GEMM in f32 mode): a hook with
// `static constexpr bool kQSplitSmem = true` gets each k block's P registers as
// operand_split(hi, lo, kb) (P's raw values in hi; it leaves P's hi and lo TF32 parts), and the
// consumers form Q's low part t_lo = t - trunc_tf32(t) (rounded: the tensor cores truncate) from
// each stage's Q tile into one of two shared buffers of the same swizzled layout (kQsStages
// stages, kQsSmemBytes), so per 8-deep k step three wgmma accumulate P_lo Q + P_hi Q_lo + P_hi Q
// (Q's hi part: the tensor cores' truncation of Q itself). One stage load per k block (kPRepeat
// 1): no low part of Q in global memory. H100, GDN dgamma (51.5 GFLOP): 0.158 ms, 71% of the
// SM's compute throughput (docs/notes/history/gdn-rounds.md, round 11).
template <class H, class = void>
struct HookQSplitSmem : std::false_type {};
template <class H>
struct HookQSplitSmem<H, std::void_t<decltype(H::kQSplitSmem)>>
    : std::integral_constant<bool, H::kQSplitSmem> {};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// Writes a 64 x (8 kJ) accumulator block (one m64n256 or m64n128 wgmma's D). Accumulator layout
// (f32): for 8-column chunk j, d[4j + {0,1}] = D(r, 8j + 2q + {0,1}), d[4j + {2,3}] = D(r + 8,
// ...), with r = 16 * warp + lane / 4 and q = lane % 4. D row r is column dcol0 + r of C, D column
// c is row drow0 + c.
template <class TOut, bool kReadC, int kJ>
__device__ __forceinline__ void epilogue(const float (&d)[4 * kJ], const Params& p, int dcol0,
                                         int drow0, int b) {
  const int warp = (threadIdx.x >> 5) & 3, lane = threadIdx.x & 31;
  const int col = dcol0 + warp * 16 + (lane >> 2);  // column of C
  const int row0 = drow0 + 2 * (lane & 3);          // row of C
  TOut* base = static_cast<TOut*>(p.C) + static_cast<long long>(b) * p.stride_c;
  const bool pair = p.pair_store != 0;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int c = col + 8 * half;
    if (c >= p.n) continue;
    TOut* column = base + static_cast<long long>(c) * p.ldc;
#pragma unroll
    for (int j = 0; j < kJ; ++j) {
      const int i = row0 + 8 * j;
      const int valid = p.m - i >= 2 ? 2 : (p.m - i == 1 ? 1 : 0);
      if (valid == 0) continue;
      store_pair<TOut, kReadC>(column + i, d[4 * j + 2 * half], d[4 * j + 2 * half + 1], valid,
                               pair, p.alpha, p.beta);
    }
  }
}

// Low TF32 part of each of the four floats in v, for tensor cores that truncate: v - trunc(v),
// plus half a TF32 ulp in the bits (round to nearest on the tensor cores' truncation).
__device__ __forceinline__ uint4 tf32_low_parts(uint4 v) {
  auto low = [](std::uint32_t u) {
    return __float_as_uint(__uint_as_float(u) - __uint_as_float(u & 0xffffe000u)) + 0x1000u;
  };
  return make_uint4(low(v.x), low(v.y), low(v.z), low(v.w));
}

// Register-P path (tf32, P MN-major in shared memory): which P rows a thread holds. Logical
// wgmma rows 16 * warp + lane / 4 and that + 8 are the physical P rows prow and prow + 1 of the
// consumer's 64 (two consecutive rows: 8-byte shared loads), chosen so that each half-warp's
// loads hit 8 distinct 16-byte chunks of the 128-byte swizzled lines (no bank conflicts): half h
// of warp w reads chunks {c, c + 4}, c = 2 * (w % 2) + h, of the 32-row box w / 2.
struct RegRows {
  int box;    // 0 or 1: the 32-row box (4 KiB, 32 K rows x 128 B) of the consumer's 64 rows
  int chunk;  // 16-byte chunk of the unswizzled 128-byte line
  int prow;   // physical P row (0..63) of logical row 16 * warp + lane / 4
};
__device__ __forceinline__ RegRows reg_rows() {
  const int warp = (threadIdx.x >> 5) & 3, g = (threadIdx.x & 31) >> 2;
  const int t = g & 3, h = g >> 2;
  RegRows r;
  r.box = warp >> 1;
  r.chunk = 2 * (warp & 1) + h + 4 * (t >> 1);
  r.prow = 32 * r.box + 4 * r.chunk + 2 * (t & 1);
  return r;
}

// Epilogue of the register-P path: rows prow, prow + 1 of D (see reg_rows). kSwap: D(r, c) =
// C(r, c) (rows r, r + 1 of a column of C: one pair); else D(r, c) = C(c, r) as in `epilogue`.
// Resident-P schedule (Hook::kPResident): xbuf is the resident P tile, x_blocks its loaded k
// blocks, xempty0 their release barriers (one arrive per warp once its epilogue has read them).
template <class TOut, bool kReadC, bool kSwap, class Hook>
__device__ __forceinline__ void epilogue_regs(const float (&d)[128], const Params& p, TileCoord tc,
                                              int consumer, const Hook& hook,
                                              std::uint32_t xbuf = 0, int x_blocks = 0,
                                              std::uint32_t xempty0 = 0) {
  constexpr int kEpiGroup = Hook::kEpiGroup;
  constexpr bool kRes = Hook::kPResident;
  static_assert(32 % kEpiGroup == 0, "epilogue groups of j steps");
  static_assert(!kRes || (kSwap && kEpiGroup == 4), "resident P: one P k block per group");
  const int lane = threadIdx.x & 31;
  const RegRows rr = reg_rows();
  const int r0 = tc.x * kBlockM + consumer * 64 + rr.prow;  // D row (P extent: p.n)
  const int c0 = tc.y * kBlockN + 2 * (lane & 3);           // D column (p.m)
  TOut* base = static_cast<TOut*>(p.C) + static_cast<long long>(tc.b) * p.stride_c;
  const bool pair = p.pair_store != 0;
  if constexpr (kSwap) {
    const int valid = p.n - r0 >= 2 ? 2 : (p.n - r0 == 1 ? 1 : 0);
    if constexpr (!kRes) {
      if (valid == 0) return;
    }
    // Resident P: the swizzled shared address of P rows prow, prow + 1 at k row 0 of block 0
    // (see the main loop's off0: chunk box, 16-byte unit rr.chunk ^ (k % 8)).
    const std::uint32_t xrow =
        xbuf + (consumer * 2 + rr.box) * (kRowBytes / 4) * kRowBytes + (rr.prow & 3) * 4;
#pragma unroll
    for (int j0 = 0; j0 < 32; j0 += kEpiGroup) {
      typename Hook::Pre pre[kEpiGroup][2] = {};
#pragma unroll
      for (int j = j0; j < j0 + kEpiGroup; ++j) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int c = c0 + 8 * j + e;
          if constexpr (kRes) {
            // Column c is k row kr = 8 (j % 4) + 2 q + e of P k block j / 4 (tc.y == 0).
            const int kr = 8 * (j & 3) + (c0 & 7) + e;
            std::uint32_t v0, v1;
            lds64(xrow + (j >> 2) * kTilePBytes + kr * kRowBytes + ((rr.chunk ^ (kr & 7)) << 4), v0,
                  v1);
            pre[j - j0][e] = make_float2(__uint_as_float(v0), __uint_as_float(v1));
          } else {
            if (c < p.m)
              pre[j - j0][e] =
                  hook.load(base + static_cast<long long>(c) * p.ldc + r0, c, valid, pair);
          }
        }
      }
      if constexpr (kRes) {
        // This warp is done with P k block j0 / 4: hand it to the producer (next tile).
        __syncwarp();
        if (lane == 0 && j0 / kEpiGroup < x_blocks) mbar_arrive(xempty0 + 8 * (j0 / kEpiGroup));
      }
#pragma unroll
      for (int j = j0; j < j0 + kEpiGroup; ++j) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int c = c0 + 8 * j + e;
          if (c >= p.m) continue;
          if constexpr (kRes) {
            if (valid == 0) continue;
          }
          hook.template store<TOut, kReadC>(base + static_cast<long long>(c) * p.ldc + r0, c,
                                            d[4 * j + e], d[4 * j + 2 + e], valid, pair, p,
                                            pre[j - j0][e]);
        }
      }
    }
  } else {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = r0 + half;
      if (r >= p.n) continue;
      TOut* column = base + static_cast<long long>(r) * p.ldc;
#pragma unroll
      for (int j0 = 0; j0 < 32; j0 += kEpiGroup) {
        typename Hook::Pre pre[kEpiGroup] = {};
#pragma unroll
        for (int j = j0; j < j0 + kEpiGroup; ++j) {
          const int i = c0 + 8 * j;
          const int valid = p.m - i >= 2 ? 2 : (p.m - i == 1 ? 1 : 0);
          if (valid != 0) pre[j - j0] = hook.load(column + i, r, valid, pair);
        }
#pragma unroll
        for (int j = j0; j < j0 + kEpiGroup; ++j) {
          const int i = c0 + 8 * j;
          const int valid = p.m - i >= 2 ? 2 : (p.m - i == 1 ? 1 : 0);
          if (valid == 0) continue;
          hook.template store<TOut, kReadC>(column + i, r, d[4 * j + 2 * half],
                                            d[4 * j + 2 * half + 1], valid, pair, p, pre[j - j0]);
        }
      }
    }
  }
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// TIn: the input element type (__nv_bfloat16, __half, or float for tf32); TOut: C's type.
// kPK / kQK: the P / Q operand is K-major in global memory (else MN-major, 16-bit types only).
// kCluster: 1, or 2 CTAs (launched as a cluster) on consecutive column tiles of one row tile,
// each loading half of the shared Q tile and multicasting it to both.
// kPRegs (tf32, !kPK; kPK too with a split-K hook, 4-byte shared loads of K-major rows): P is
// read from shared memory into registers (wgmma RS form), since tf32 wgmma reads only K-major
// shared operands; kSwap: P = op(A), Q = op(B)^T (D(i, j) = C(i, j)).
// kPP: the ping-pong schedule (Cfg<true>): each consumer computes whole kBlockM x kPpBlockN tiles
// with two m64n128 wgmma per k step, the consumers taking alternate tiles of the CTA's sequence.
// Hook: IdentityHook, or a fused user's hooks of the register-P path (see IdentityHook).
template <class TIn, class TOut, bool kPK, bool kQK, int kCluster, bool kPRegs = false,
          bool kSwap = false, bool kPP = false, class Hook = IdentityHook>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_sm90_tma_wgmma_kernel(const __grid_constant__ CUtensorMap map_p,
                               const __grid_constant__ CUtensorMap map_q, const Params p,
                               const Hook hook) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Mma = MmaFor<TIn>;
  using Cf = Cfg<kPP>;
  static_assert(!kPP || (sizeof(TIn) == 2 && !kPRegs), "ping-pong: 16-bit inputs");
  constexpr int kElem = static_cast<int>(sizeof(TIn));
  constexpr int kKElems = kRowBytes / kElem;        // K elements per stage
  constexpr int kChunkBytes = kKElems * kRowBytes;  // MN-major: one 64-wide chunk of a tile
  constexpr int kMnBox = kRowBytes / kElem;         // MN-major box width (elements)
  // Descriptor strides: K-major SBO = 8 rows x 128 B; MN-major LBO = chunk, SBO = 8 K-rows.
  constexpr std::uint32_t kLboP = kPK ? 16 : kChunkBytes, kLboQ = kQK ? 16 : kChunkBytes;
  constexpr std::uint32_t kSbo = 1024;
  // Start-address step per wgmma: 32 bytes of K (K-major), or 32 / kElem K-rows (MN-major).
  constexpr std::uint32_t kStepP = kPK ? 32 : (32 / kElem) * kRowBytes;
  constexpr std::uint32_t kStepQ = kQK ? 32 : (32 / kElem) * kRowBytes;
  static_assert(kPK || kElem == 2 || kPRegs, "MN-major shared operands need a 16-bit type");
  // (register P K-major: 4-byte shared loads; only the split-K hooks use it)
  static_assert(!kPRegs || (kElem == 4 && (!kPK || HookSplitK<Hook>::value) && kQK),
                "register P: tf32, P MN-major (or K-major with split-K hooks), Q K-major");
  static_assert(!kSwap || kPRegs, "swapped roles only on the register-P path");
  static_assert(kQK || kElem == 2, "MN-major operands need a 16-bit type");
  static_assert(kCluster == 1 || kCluster == 2, "clusters of 1 or 2");
  static_assert(kPRegs || std::is_same<Hook, IdentityHook>::value, "hooks: register-P path only");
  constexpr int kQRows = Cf::kBN / kCluster;  // rows of Q this CTA loads (and multicasts)
  // Resident-P schedule: the P tile's k blocks at the start of shared memory, then a ring of
  // Q-only stages (sm90_tma_wgmma.hpp).
  constexpr bool kRes = Hook::kPResident;
  static_assert(!kRes || (kPRegs && kSwap && !kPP), "resident P: register-P, swapped roles");
  // Q split in shared memory: kQsStages stages, then the two buffers of Q's low parts.
  constexpr bool kQs = HookQSplitSmem<Hook>::value;
  static_assert(!kQs || (kPRegs && !kRes && Hook::kPRepeat == 1), "Q split: register P, no repeat");
  constexpr int kNumStages = kRes ? kResStages : kQs ? kQsStages : Cf::kNumStages;
  constexpr int kRingBase = kRes ? kResXBlocks * kTilePBytes : 0;  // offset of the stage ring
  constexpr int kNumBars = 2 * kNumStages + (kRes ? 2 * kResXBlocks : 0);

  extern __shared__ unsigned char smem_raw[];
  // full[0..S), empty[S..2S); resident P: then xfull[0..X), xempty[0..X) of its k blocks
  __shared__ alignas(8) std::uint64_t bars[kNumBars];
  const std::uint32_t tiles = (smem_addr(smem_raw) + 1023u) & ~1023u;
  const std::uint32_t full0 = smem_addr(&bars[0]);
  const std::uint32_t empty0 = smem_addr(&bars[kNumStages]);
  const std::uint32_t xfull0 = full0 + 8 * 2 * kNumStages, xempty0 = xfull0 + 8 * kResXBlocks;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kNumStages; ++s) {
      mbar_init(full0 + 8 * s, 1);  // the producer's arrive.expect_tx
      // Each warp of the stage's consumers (both, or with ping-pong the one), in each CTA.
      mbar_init(empty0 + 8 * s, 4 * (kPP ? 1 : kConsumers) * kCluster);
    }
    if constexpr (kRes) {
      for (int b = 0; b < kResXBlocks; ++b) {
        mbar_init(xfull0 + 8 * b, 1);                // the producer's arrive.expect_tx
        mbar_init(xempty0 + 8 * b, 4 * kConsumers);  // each consumer warp of this CTA
      }
    }
    mbar_init_fence();
  }
  // The peer's barriers must be initialised before any multicast or remote arrive reaches them.
  cluster_or_cta_sync<kCluster>();
  const int rank = kCluster > 1 ? static_cast<int>(cluster_ctarank()) : 0;
  const int cluster_id = blockIdx.x / kCluster, num_clusters = gridDim.x / kCluster;

  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    // Producer warpgroup: one thread walks the tiles and k blocks and issues the TMA loads.
    setmaxnreg_dec<kProducerRegs>();
    if (threadIdx.x == 0) {
      tma_prefetch_desc(&map_p);
      tma_prefetch_desc(&map_q);
      int stage = 0;
      std::uint32_t phase = 0, xphase = 0;
      for (int u = cluster_id; u < p.total_units; u += num_clusters) {
        const TileCoord tc = decode_unit<kCluster>(u, p, rank);
        const int x0 = tc.x * kBlockM, y0 = tc.y * Cf::kBN;
        for (int kb = 0; kb < p.k_blocks; ++kb) {
          if constexpr (kRes) {
            // Resident P: its k block once per tile, when the consumers' epilogue of the
            // previous tile has read the block (parity xphase ^ 1: passes at once on tile 0).
            if (kb % Hook::kPRepeat == 0) {
              const int xb = kb / Hook::kPRepeat;
              mbar_wait(xempty0 + 8 * xb, xphase ^ 1u);
              mbar_arrive_expect_tx(xfull0 + 8 * xb, kTilePBytes);
#pragma unroll
              for (int c = 0; c < kBlockM / kMnBox; ++c)
                tma_load_3d(tiles + xb * kTilePBytes + c * kChunkBytes, &map_p, xfull0 + 8 * xb,
                            x0 + c * kMnBox, xb * kKElems, tc.b);
            }
          }
          // Round r of a stage waits for the consumers' release of round r - 1 (parity of
          // phase ^ 1: passes at once in round 0); with a cluster, both CTAs' consumers release
          // (the multicast writes the peer's stage too).
          mbar_wait(empty0 + 8 * stage, phase ^ 1u);
          const std::uint32_t full = full0 + 8 * stage;
          mbar_arrive_expect_tx(full, kRes ? kTileQBytes : Cf::kStage);
          const std::uint32_t sp = tiles + stage * Cf::kStage;
          const std::uint32_t sq =
              kRes ? tiles + kRingBase + stage * kTileQBytes : sp + kTilePBytes;
          int k0 = kb * kKElems, kp = (kb / Hook::kPRepeat) * kKElems;
          int qb = Hook::kQShared ? 0 : tc.b, pb = tc.b;
          if constexpr (HookSplitK<Hook>::value) hook.coords(tc.b, kb, kp, pb, k0, qb);
          if constexpr (kRes) {
            // (P loaded above)
          } else if constexpr (kPK) {
            tma_load_3d(sp, &map_p, full, kp, x0, pb);
          } else {
#pragma unroll
            for (int c = 0; c < kBlockM / kMnBox; ++c)
              tma_load_3d(sp + c * kChunkBytes, &map_p, full, x0 + c * kMnBox, kp, tc.b);
          }
          // Q: this CTA's kQRows rows; with a cluster, multicast into both CTAs (each CTA's
          // full barrier expects the whole stage: its P, its half of Q and the peer's half).
          if constexpr (kQK) {
            const std::uint32_t dst = sq + rank * kQRows * kRowBytes;
            if constexpr (kCluster > 1)
              tma_load_3d_multicast(dst, &map_q, full, k0, y0 + rank * kQRows, qb, 0x3);
            else
              tma_load_3d(dst, &map_q, full, k0, y0, qb);
          } else {
#pragma unroll
            for (int i = 0; i < kQRows / kMnBox; ++i) {
              const int c = rank * (kQRows / kMnBox) + i;
              if constexpr (kCluster > 1)
                tma_load_3d_multicast(sq + c * kChunkBytes, &map_q, full, y0 + c * kMnBox, k0, qb,
                                      0x3);
              else
                tma_load_3d(sq + c * kChunkBytes, &map_q, full, y0 + c * kMnBox, k0, qb);
            }
          }
          if (++stage == kNumStages) {
            stage = 0;
            phase ^= 1u;
          }
        }
        xphase ^= 1u;
      }
    }
  } else {
    // Consumer warpgroups: wgmma over each stage, one wgmma group kept in flight.
    setmaxnreg_inc<kConsumerRegs>();
    const int consumer = wg - 1;
    const int lane = threadIdx.x & 31;
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; ++i) d[i] = 0.f;
    int stage = 0;
    std::uint32_t phase = 0;
    // Hands a stage back: to this CTA's producer and, with a cluster, the peer's (whose
    // multicast also fills this CTA's stage).
    auto release = [&](int s) { release_stage<kCluster>(empty0 + 8 * s); };
    if constexpr (kPP) {
      // Ping-pong: this consumer computes the CTA's tiles 2t + consumer and skips the stages of
      // the other consumer's tiles (the producer fills the stages in tile order). The main loops
      // take turns (named barrier 1 + consumer): a consumer starts waiting on its tile's stages
      // only after the other has issued its previous tile's last k block, since a parity wait
      // cannot tell a phase from the one two ahead; its epilogue then overlaps the other's loop.
      float d0[64], d1[64];
      const int kbn = p.k_blocks;
      auto skip = [&](int n) {  // advances (stage, phase) over n k blocks
        const int t = stage + n;
        const int wraps = t / Cf::kNumStages;
        phase ^= static_cast<std::uint32_t>(wraps & 1);
        stage = t - wraps * Cf::kNumStages;
      };
      if (consumer == 1) skip(kbn);
      for (int u = cluster_id + consumer * num_clusters; u < p.total_units; u += 2 * num_clusters) {
        const TileCoord tc = decode_unit<kCluster>(u, p, rank);
        // The CTA's tile before this one (the other consumer's) exists unless this is tile 0.
        if (u - num_clusters >= cluster_id) named_sync(1 + consumer, 256);
        int prev = 0;
        for (int kb = 0; kb < kbn; ++kb) {
          mbar_wait(full0 + 8 * stage, phase);
          const std::uint32_t sp = tiles + stage * Cf::kStage;
          const std::uint32_t sq = sp + kTilePBytes;
          fence_operands(d0);
          fence_operands(d1);
          wgmma_fence();
#pragma unroll
          for (int s = 0; s < kMmaPerStage; ++s) {
            const std::uint64_t dq = gmma_desc(sq + s * kStepQ, kLboQ, kSbo);
            const std::uint32_t scale = (kb | s) != 0 ? 1u : 0u;
            Mma::template mma<kPK ? 0 : 1, kQK ? 0 : 1>(d0, gmma_desc(sp + s * kStepP, kLboP, kSbo),
                                                        dq, scale);
            Mma::template mma<kPK ? 0 : 1, kQK ? 0 : 1>(
                d1, gmma_desc(sp + 64 * kRowBytes + s * kStepP, kLboP, kSbo), dq, scale);
          }
          wgmma_commit();
          fence_operands(d0);
          fence_operands(d1);
          if (kb > 0) {
            wgmma_wait<1>();
            fence_operands(d0);
            fence_operands(d1);
            release(prev);
          }
          prev = stage;
          if (++stage == Cf::kNumStages) {
            stage = 0;
            phase ^= 1u;
          }
        }
        // Hand the main loop over to the other consumer if it has the next tile.
        if (u + num_clusters < p.total_units) named_arrive(2 - consumer, 256);
        wgmma_wait<0>();
        fence_operands(d0);
        fence_operands(d1);
        release(prev);
        const int x0 = tc.x * kBlockM, y0 = tc.y * Cf::kBN;
        if (p.beta == 0.f) {
          epilogue<TOut, false, 16>(d0, p, x0, y0, tc.b);
          epilogue<TOut, false, 16>(d1, p, x0 + 64, y0, tc.b);
        } else {
          epilogue<TOut, true, 16>(d0, p, x0, y0, tc.b);
          epilogue<TOut, true, 16>(d1, p, x0 + 64, y0, tc.b);
        }
        skip(kbn);
      }
    } else if constexpr (kPRegs) {
      // P from registers: per stage 8 x 8-byte shared loads (4 k8 steps x rows prow, prow + 1 at
      // k = 8s + lane % 4 and + 4), double-buffered across k blocks (a buffer is rewritten only
      // after wait_group 1 has retired the group that read it).
      const RegRows rr = reg_rows();
      const int q = lane & 3;
      const std::uint32_t box = (consumer * 2 + rr.box) * kChunkBytes + (rr.prow & 3) * 4;
      [[maybe_unused]] const std::uint32_t off0 = box + 128 * q + ((rr.chunk ^ q) << 4);
      [[maybe_unused]] const std::uint32_t off1 = box + 128 * (q + 4) + ((rr.chunk ^ q ^ 4) << 4);
      std::uint32_t a0[16], a1[16];
      int prev = 0;
      std::uint32_t xphase = 0;  // resident P: parity of this tile's P k blocks
      // The 16 P registers of a k block from the stage's P tile at sp.
      auto load_p = [&](std::uint32_t(&a)[16], std::uint32_t sp) {
        if constexpr (kPK) {
          // K-major P (128-byte rows of 32 k, 16-byte unit u of row r at u ^ (r % 8)): rows
          // r0 = prow, prow + 1 of this consumer, k = 8 s + q and + 4 (4-byte loads).
#pragma unroll
          for (int s = 0; s < kMmaPerStage; ++s) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const int r = consumer * 64 + rr.prow + e;
              const std::uint32_t row = sp + r * kRowBytes + 4 * q;
              a[4 * s + e] = lds32(row + (((2 * s) ^ (r & 7)) << 4));
              a[4 * s + 2 + e] = lds32(row + (((2 * s + 1) ^ (r & 7)) << 4));
            }
          }
        } else {
#pragma unroll
          for (int s = 0; s < kMmaPerStage; ++s) {
            lds64(sp + off0 + 1024 * s, a[4 * s], a[4 * s + 1]);
            lds64(sp + off1 + 1024 * s, a[4 * s + 2], a[4 * s + 3]);
          }
        }
      };
      [[maybe_unused]] auto step = [&](std::uint32_t(&a)[16], std::uint32_t(&other)[16], int kb) {
        mbar_wait(full0 + 8 * stage, phase);
        if constexpr (kRes) {
          if (kb % Hook::kPRepeat == 0) mbar_wait(xfull0 + 8 * (kb / Hook::kPRepeat), xphase);
        }
        const std::uint32_t sp =
            kRes ? tiles + (kb / Hook::kPRepeat) * kTilePBytes : tiles + stage * Cf::kStage;
        const std::uint32_t sq = kRes ? tiles + kRingBase + stage * kTileQBytes : sp + kTilePBytes;
        load_p(a, sp);
        hook.operand(a, kb);
        fence_operands(d);
        wgmma_fence();
#pragma unroll
        for (int s = 0; s < kMmaPerStage; ++s)
          WgmmaTf32Rs::mma(d, &a[4 * s], gmma_desc(sq + s * kStepQ, kLboQ, kSbo),
                           (kb | s) != 0 ? 1u : 0u);
        wgmma_commit();
        fence_operands(d);
        if (kb > 0) {
          wgmma_wait<1>();
          fence_operands(d);
          fence_regs(other);  // the retired group's registers stayed in place until here
          release(prev);
        }
        prev = stage;
        if (++stage == kNumStages) {
          stage = 0;
          phase ^= 1u;
        }
      };
      // Q split in shared memory (kQs): P's lo parts beside a0 / a1, and per k block kb: the
      // consumers' wgmma reading Q-low buffer kb % 2 (k block kb - 2) have all completed
      // (barrier 1: each consumer passed its wait_group 1 of k block kb - 1, or its tile's
      // wait_group 0), the consumers form the stage's Q low parts in it (8 of the tile's 2048
      // 16-byte units per thread, same offsets, so Q's descriptors serve it at another base),
      // fence them to the async proxy and meet again (barrier 2) before the wgmma read them.
      [[maybe_unused]] std::uint32_t l0[16], l1[16];
      [[maybe_unused]] auto step3 = [&](std::uint32_t(&a)[16], std::uint32_t(&al)[16],
                                        std::uint32_t(&other)[16], std::uint32_t(&other_l)[16],
                                        int kb) {
        if constexpr (kQs) {
          constexpr std::uint32_t kQsBar = 3;  // named barrier id (1, 2: ping-pong's)
          constexpr int kUnits = kTileQBytes / 16 / (128 * kConsumers);
          mbar_wait(full0 + 8 * stage, phase);
          const std::uint32_t sp = tiles + stage * Cf::kStage;
          const std::uint32_t sq = sp + kTilePBytes;
          const std::uint32_t sl = tiles + kNumStages * Cf::kStage + (kb & 1) * kTileQBytes;
          load_p(a, sp);
          hook.operand_split(a, al, kb);
          named_sync(kQsBar, 128 * kConsumers);
          const std::uint32_t unit = (threadIdx.x - 128) * 16;
#pragma unroll
          for (int i = 0; i < kUnits; ++i) {
            const std::uint32_t off = unit + i * (128 * kConsumers * 16);
            sts128(sl + off, tf32_low_parts(lds128(sq + off)));
          }
          fence_proxy_async_shared();
          named_sync(kQsBar, 128 * kConsumers);
          fence_operands(d);
          wgmma_fence();
#pragma unroll
          for (int s = 0; s < kMmaPerStage; ++s) {
            const std::uint64_t dq = gmma_desc(sq + s * kStepQ, kLboQ, kSbo);
            WgmmaTf32Rs::mma(d, &al[4 * s], dq, (kb | s) != 0 ? 1u : 0u);
            WgmmaTf32Rs::mma(d, &a[4 * s], gmma_desc(sl + s * kStepQ, kLboQ, kSbo), 1u);
            WgmmaTf32Rs::mma(d, &a[4 * s], dq, 1u);
          }
          wgmma_commit();
          fence_operands(d);
          if (kb > 0) {
            wgmma_wait<1>();
            fence_operands(d);
            fence_regs(other);
            fence_regs(other_l);
            release(prev);
          }
          prev = stage;
          if (++stage == kNumStages) {
            stage = 0;
            phase ^= 1u;
          }
        }
      };
      for (int u = cluster_id; u < p.total_units; u += num_clusters) {
        const TileCoord tc = decode_unit<kCluster>(u, p, rank);
        for (int kb = 0; kb < p.k_blocks; kb += 2) {
          if constexpr (kQs) {
            step3(a0, l0, a1, l1, kb);
            if (kb + 1 < p.k_blocks) step3(a1, l1, a0, l0, kb + 1);
          } else {
            step(a0, a1, kb);
            if (kb + 1 < p.k_blocks) step(a1, a0, kb + 1);
          }
        }
        wgmma_wait<0>();
        fence_operands(d);
        fence_regs(a0);
        fence_regs(a1);
        if constexpr (kQs) {
          fence_regs(l0);
          fence_regs(l1);
        }
        release(prev);
        const int x_blocks = (p.k_blocks + Hook::kPRepeat - 1) / Hook::kPRepeat;
        if (p.beta == 0.f)
          epilogue_regs<TOut, false, kSwap>(d, p, tc, consumer, hook, tiles, x_blocks, xempty0);
        else
          epilogue_regs<TOut, true, kSwap>(d, p, tc, consumer, hook, tiles, x_blocks, xempty0);
        xphase ^= 1u;
      }
    } else {
      for (int u = cluster_id; u < p.total_units; u += num_clusters) {
        const TileCoord tc = decode_unit<kCluster>(u, p, rank);
        int prev = 0;
        for (int kb = 0; kb < p.k_blocks; ++kb) {
          mbar_wait(full0 + 8 * stage, phase);
          const std::uint32_t sp = tiles + stage * Cf::kStage + consumer * 64 * kRowBytes;
          const std::uint32_t sq = tiles + stage * Cf::kStage + kTilePBytes;
          fence_operands(d);
          wgmma_fence();
#pragma unroll
          for (int s = 0; s < kMmaPerStage; ++s) {
            const std::uint64_t dp = gmma_desc(sp + s * kStepP, kLboP, kSbo);
            const std::uint64_t dq = gmma_desc(sq + s * kStepQ, kLboQ, kSbo);
            Mma::template mma<kPK ? 0 : 1, kQK ? 0 : 1>(d, dp, dq, (kb | s) != 0 ? 1u : 0u);
          }
          wgmma_commit();
          fence_operands(d);
          if (kb > 0) {
            // The previous k block's group is complete: hand its stage back to the producer.
            wgmma_wait<1>();
            fence_operands(d);
            release(prev);
          }
          prev = stage;
          if (++stage == Cf::kNumStages) {
            stage = 0;
            phase ^= 1u;
          }
        }
        wgmma_wait<0>();
        fence_operands(d);
        release(prev);
        if (p.beta == 0.f)
          epilogue<TOut, false, 32>(d, p, tc.x * kBlockM + consumer * 64, tc.y * kBlockN, tc.b);
        else
          epilogue<TOut, true, 32>(d, p, tc.x * kBlockM + consumer * 64, tc.y * kBlockN, tc.b);
      }
    }
  }
  // No CTA may leave while its peer can still multicast into it or arrive on its barriers.
  if constexpr (kCluster > 1) cluster_sync();
#else
  __trap();  // never launched off sm_90a (the registry's exact_cc 90)
#endif  // __CUDA_ARCH_FEAT_SM90_ALL
}

}  // namespace sm90
}  // namespace gpuopt
