// sm90_tma_wgmma: the register-P operand (wgmma RS form, tf32): which rows of an MN-major,
// 128-byte swizzled tile a thread loads into registers.
#pragma once
#include <cstdint>

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

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
// Those of lane group g (lane / 4) of consumer warp `warp`.
__device__ __forceinline__ RegRows reg_rows_of(int warp, int g) {
  const int t = g & 3, h = g >> 2;
  RegRows r;
  r.box = warp >> 1;
  r.chunk = 2 * (warp & 1) + h + 4 * (t >> 1);
  r.prow = 32 * r.box + 4 * r.chunk + 2 * (t & 1);
  return r;
}
// This thread's.
__device__ __forceinline__ RegRows reg_rows() {
  return reg_rows_of((threadIdx.x >> 5) & 3, (threadIdx.x & 31) >> 2);
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
