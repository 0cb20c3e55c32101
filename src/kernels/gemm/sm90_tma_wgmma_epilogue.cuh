// sm90_tma_wgmma: the epilogues (the skeleton's epilogue part): the accumulators of a consumer's
// tile to C, for the shared-operand main loops (`epilogue_staged` through shared memory where the
// block is whole and aligned, else `epilogue`) and the register-P main loop with its Hook
// (`epilogue_regs`).
#pragma once
#include <cstdint>

#include "arch/sm90/mbarrier.cuh"
#include "arch/sm90/smem.cuh"
#include "kernels/gemm/sm90_tma_wgmma.hpp"
#include "kernels/gemm/sm90_tma_wgmma_regp.cuh"
#include "kernels/gemm/sm90_tma_wgmma_store.cuh"
#include "kernels/gemm/sm90_tma_wgmma_tile_order.cuh"

namespace gpuopt {
namespace sm90 {

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
// (kEpiWarpBytes: 16 columns x 128 bytes, the 16-byte chunks of column c XOR-swizzled by c % 8).
// Per round of 128 bytes of each column (4 j steps of f32, 8 of 16-bit C), the warp writes its
// accumulator pairs there (8 columns x 32 or 16 bytes a store instruction, conflict-free), reads
// back whole column segments (lane: column 4 i + lane / 8, chunk lane % 8) and stores them with
// 16-byte global stores: 4 full 128-byte lines per store instruction, where the direct store
// of `epilogue` writes one 32-byte (f32) or 16-byte sector in each of 8 lines.
template <class TOut, int kJ>
__device__ __forceinline__ void epilogue_staged(const float (&d)[4 * kJ], const Params& p,
                                                int dcol0, int drow0, int b, std::uint32_t buf) {
  constexpr int kE = static_cast<int>(sizeof(TOut));
  constexpr int kJr = 16 / kE;  // j steps per round (8 rows of C each): 128 bytes of a column
  static_assert(kJ % kJr == 0, "whole rounds");
  const int warp = (threadIdx.x >> 5) & 3, lane = threadIdx.x & 31;
  const int q = lane & 3, wc = lane >> 2;      // write: column wc (+ 8 half), rows 2 q, 2 q + 1
  const int rc = lane >> 3, chunk = lane & 7;  // read: column 4 i + rc, 16-byte chunk
  TOut* out = static_cast<TOut*>(p.C) + static_cast<long long>(b) * p.stride_c +
              static_cast<long long>(dcol0 + warp * 16 + rc) * p.ldc + drow0 + chunk * (16 / kE);
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
      *reinterpret_cast<uint4*>(out + i * ld4 + r * (128 / kE)) = v;
    }
    __syncwarp();  // the buffer is read before the next round overwrites it
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
