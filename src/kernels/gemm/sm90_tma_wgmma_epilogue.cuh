// sm90_tma_wgmma: the epilogues (the skeleton's epilogue part): the accumulators of a consumer's
// tile to C, for the shared-operand main loops (`epilogue_staged` through shared memory where the
// block is whole and aligned, else `epilogue`) and the register-P main loop (its plain GEMM
// staged where the block fits: `epilogue_staged` in the TT layout, `epilogue_staged_swap` for
// NN; else, and with a fused user's Hook, `epilogue_regs`).
#pragma once
#include <cstdint>

#include "arch/sm90/mbarrier.cuh"
#include "arch/sm90/named_barrier.cuh"
#include "arch/sm90/smem.cuh"
#include "kernels/gemm/sm90_tma_wgmma.hpp"
#include "kernels/gemm/sm90_tma_wgmma_config.cuh"
#include "kernels/gemm/sm90_tma_wgmma_regp.cuh"
#include "kernels/gemm/sm90_tma_wgmma_store.cuh"
#include "kernels/gemm/sm90_tma_wgmma_tile_order.cuh"

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// The staging buffer of the staged epilogue of warp `warp` (0..3, default: the calling one) of
// a consumer (the warps of a box pair, 2 w and 2 w + 1, own 4 contiguous KiB:
// epilogue_staged_swap).
template <class K>
__device__ __forceinline__ std::uint32_t epi_buf(const KernelSmem& sm, int consumer,
                                                 int warp = (threadIdx.x >> 5) & 3) {
  static_assert(K::kEpiStaged, "no staging buffers in this configuration");
  return sm.epi + (consumer * 4 + warp) * kEpiWarpBytes;
}

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

// Whether `epilogue_staged` can write this consumer's 64 x (8 kJ) block: C not read (beta == 0),
// the block inside C, and 16-byte aligned column segments (C, ldc and the batch stride).
template <class TOut, int kJ>
__device__ __forceinline__ bool staged_fits(const Params& p, int dcol0, int drow0) {
  constexpr long long kE = static_cast<long long>(sizeof(TOut));
  const unsigned long long align = reinterpret_cast<std::uintptr_t>(p.C) |
                                   static_cast<unsigned long long>(p.ldc * kE) |
                                   static_cast<unsigned long long>(p.stride_c * kE);
  return p.beta == 0.f && dcol0 + 64 <= p.n && drow0 + 8 * kJ <= p.m && (align & 15) == 0;
}

// `epilogue` (beta == 0, whole block, see staged_fits) through the warp's staging buffer `buf`
// (kEpiWarpBytes: 16 columns x 128 bytes, the 16-byte chunks of column slot s XOR-swizzled by
// s % 8). Slot s = lane / 4 + 8 half holds the accumulator pairs d[4 j + 2 half + {0, 1}]; its
// column of C is dcol0 + 16 warp + s in the shared-operand layout, or, kRegRows (the register-P
// path's TT layout), P row reg_rows_of(warp, s % 8).prow + s / 8 of the consumer's 64. Per round
// of 128 bytes of each column (4 j steps of f32, 8 of 16-bit C), the warp writes its accumulator
// pairs there (8 columns x 32 or 16 bytes a store instruction, conflict-free), reads back whole
// column segments (lane: slot 4 i + lane / 8, chunk lane % 8) and stores them with 16-byte
// global stores: 4 full 128-byte lines per store instruction, where the direct store of
// `epilogue` writes one 32-byte (f32) or 16-byte sector in each of 8 lines.
template <class TOut, int kJ, bool kRegRows = false>
__device__ __forceinline__ void epilogue_staged(const float (&d)[4 * kJ], const Params& p,
                                                int dcol0, int drow0, int b, std::uint32_t buf) {
  constexpr int kE = static_cast<int>(sizeof(TOut));
  constexpr int kJr = 16 / kE;  // j steps per round (8 rows of C each): 128 bytes of a column
  static_assert(kJ % kJr == 0, "whole rounds");
  const int warp = (threadIdx.x >> 5) & 3, lane = threadIdx.x & 31;
  const int q = lane & 3, wc = lane >> 2;      // write: slot wc (+ 8 half), rows 2 q, 2 q + 1
  const int rc = lane >> 3, chunk = lane & 7;  // read: slot 4 i + rc, 16-byte chunk
  // Column of slot rc; slot 4 i + rc lies i * ld4 further (register P: (4 (i % 2) + i / 2) ldc,
  // reg_rows_of's prow stepping by 4 from lane group rc to rc + 4, by 1 from half 0 to half 1).
  const int col = kRegRows ? reg_rows_of(warp, rc).prow : warp * 16 + rc;
  TOut* out = static_cast<TOut*>(p.C) + static_cast<long long>(b) * p.stride_c +
              static_cast<long long>(dcol0 + col) * p.ldc + drow0 + chunk * (16 / kE);
  const long long ld4 = 4 * p.ldc;
#pragma unroll
  for (int r = 0; r < kJ / kJr; ++r) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const std::uint32_t line = buf + (wc + 8 * half) * 128;
#pragma unroll
      for (int jj = 0; jj < kJr; ++jj) {
        const int j = r * kJr + jj;
        const float v0 = p.alpha * d[4 * j + 2 * half], v1 = p.alpha * d[4 * j + 2 * half + 1];
        const int off = (8 * jj + 2 * q) * kE;  // the pair's byte in the column's 128 bytes
        const std::uint32_t a = line + ((((off >> 4) ^ wc) << 4) | (off & 15));
        if constexpr (kE == 4)
          sts64(a, __float_as_uint(v0), __float_as_uint(v1));
        else
          sts32(a, pack_pair<TOut>(v0, v1));
      }
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int c = 4 * i + rc;
      const uint4 v = lds128(buf + c * 128 + ((chunk ^ (c & 7)) << 4));
      const long long col_off = kRegRows ? (i & 1) * ld4 + (i >> 1) * p.ldc : i * ld4;
      *reinterpret_cast<uint4*>(out + col_off + r * (128 / kE)) = v;
    }
    __syncwarp();  // the buffer is read before the next round overwrites it
  }
}

// The register-P path's swapped roles (tf32 NN, f32 C; D(r, c) = C(r, c)), beta == 0, whole
// block (staged_fits of the consumer's 64 D rows at drow0 and the tile's 256 D columns at dcol0):
// a thread's accumulator pairs are two consecutive rows of one column, and a warp holds 16 of
// the 32 rows of each 128-byte column segment (reg_rows: rows of 16-byte chunks w % 2 * 2 + {0,
// 1, 4, 5} of box w / 2), so whole lines need both warps of a box: the pair stages through its
// two warps' buffers `pair_buf` (4 KiB), per round 16 columns x 128 bytes in one of its two
// 2 KiB halves (alternating; 16 rounds, one 64-thread named barrier `bar` each). A thread writes
// rows (prow, prow + 1) of 4 columns per 8-byte store (16-byte chunk XOR-swizzled by (slot / 2) %
// 4: the 8 chunks of a half-warp's 4 columns land on distinct banks), the pair reads back whole
// 128-byte segments (16-byte loads, a thread 2 of the round's 128 chunks) and stores them with
// 16-byte global stores: 4 full lines per store instruction where the direct store writes two
// 32-byte sectors in each of 4 lines.
__device__ __forceinline__ void epilogue_staged_swap(const float (&d)[128], const Params& p,
                                                     int drow0, int dcol0, int b,
                                                     std::uint32_t pair_buf, std::uint32_t bar) {
  const int warp = (threadIdx.x >> 5) & 3, lane = threadIdx.x & 31;
  const RegRows rr = reg_rows();
  const int q = lane & 3;
  const int row = rr.prow & 31;                 // the thread's rows in the box's 32
  const int t64 = (warp & 1) * 32 + lane;       // thread of the pair
  const int rslot = t64 >> 3, chunk = t64 & 7;  // read: slots rslot, rslot + 8; chunk
  float* out = static_cast<float*>(p.C) + static_cast<long long>(b) * p.stride_c +
               static_cast<long long>(dcol0) * p.ldc + drow0 + 32 * rr.box + chunk * 4;
  const std::uint32_t wbase = ((((row >> 2) ^ q) << 4) | ((row & 3) * 4)) + 2 * q * 128;
#pragma unroll
  for (int r = 0; r < 16; ++r) {
    const std::uint32_t buf = pair_buf + (r & 1) * kEpiWarpBytes;
#pragma unroll
    for (int jj = 0; jj < 2; ++jj) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int j = 2 * r + jj;  // column slot 8 jj + 2 q + e: 128 (8 jj + e) bytes past wbase
        sts64(buf + wbase + (8 * jj + e) * 128, __float_as_uint(p.alpha * d[4 * j + e]),
              __float_as_uint(p.alpha * d[4 * j + 2 + e]));
      }
    }
    named_sync(bar, 64);  // also: every thread read this buffer two rounds ago
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int s = rslot + 8 * i;
      const uint4 v = lds128(buf + s * 128 + ((chunk ^ ((s >> 1) & 3)) << 4));
      *reinterpret_cast<uint4*>(out + static_cast<long long>(16 * r + s) * p.ldc) = v;
    }
  }
}

// A consumer's 64 x (8 kJ) accumulator block of the shared-operand main loops to C: staged where
// it fits (staged_fits), else direct (reading C only when beta != 0). buf: the warp's staging
// buffer.
template <class TOut, int kJ>
__device__ __forceinline__ void epilogue_any(const float (&d)[4 * kJ], const Params& p, int dcol0,
                                             int drow0, int b, std::uint32_t buf) {
  if (staged_fits<TOut, kJ>(p, dcol0, drow0))
    epilogue_staged<TOut, kJ>(d, p, dcol0, drow0, b, buf);
  else if (p.beta == 0.f)
    epilogue<TOut, false, kJ>(d, p, dcol0, drow0, b);
  else
    epilogue<TOut, true, kJ>(d, p, dcol0, drow0, b);
}

// The register-P path's plain GEMM (K::kEpiStaged: IdentityHook) where the consumer's block
// fits the staged epilogue (staged_fits): epilogue_staged_swap (swapped roles, tf32 NN), or
// epilogue_staged with the P rows' columns (tf32 TT); false (nothing written) otherwise.
template <class K>
__device__ __forceinline__ bool epilogue_regp_staged(const float (&d)[128], const Params& p,
                                                     TileCoord tc, int consumer,
                                                     const KernelSmem& sm) {
  using TOut = typename K::Out;
  static_assert(sizeof(TOut) == 4, "register P: f32 C");
  const int x0 = tc.x * kBlockM + consumer * 64, y0 = tc.y * kBlockN;
  if (!staged_fits<TOut, 32>(p, x0, y0)) return false;
  const int warp = (threadIdx.x >> 5) & 3;
  if constexpr (K::kSwap) {
    // named barriers 4 + 2 consumer + box (1, 2: ping-pong's; 3: Q split's)
    const std::uint32_t bar = 4 + 2 * consumer + (warp >> 1);
    epilogue_staged_swap(d, p, x0, y0, tc.b, epi_buf<K>(sm, consumer, warp & 2), bar);
  } else {
    epilogue_staged<TOut, 32, true>(d, p, x0, y0, tc.b, epi_buf<K>(sm, consumer));
  }
  return true;
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

}  // namespace sm90
}  // namespace gpuopt
