// sm90_tma_wgmma: the epilogues (the skeleton's epilogue part): the accumulators of a consumer's
// tile to C, for the shared-operand main loops (`epilogue`) and the register-P main loop with its
// Hook (`epilogue_regs`).
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
