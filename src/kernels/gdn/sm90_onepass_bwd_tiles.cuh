// gdn sm90_onepass_fused: the kernel's sizes, parameters, tile order and the shared layout of t
// (sm90_onepass_bwd_kernel.cuh has the design).
#pragma once
#include <cstdint>

namespace gpuopt {
namespace gdn_onepass {

constexpr int kThreads = 384;
constexpr int kTilePx = 64;                   // pixels per tile
constexpr int kUnitPx = 2 * kTilePx;          // pixels per dbeta partial (kGdnTile)
constexpr int kMaxC = 256;                    // channels held by one tile
constexpr int kBoxBytes = 32 * 128;           // x: 32 pixels x 32 channels (one TMA box)
constexpr int kXBlockBytes = 2 * kBoxBytes;   // x: the tile's 64 pixels x 32 channels
constexpr int kSlotBytes = 8 * kXBlockBytes;  // x (then t) of one tile: 64 KiB
constexpr int kFillBytes = 128 * 128;         // one ring fill: 128 rows x 32 k of gamma^(T)
constexpr int kRing = 6;                      // ring fills in flight
constexpr int kTBlockBytes = kTilePx * 128;   // t: one k block of 64 rows x 128 B
constexpr int kSmemBytes = 2 * kSlotBytes + kRing * kFillBytes + 1024;  // + 1024 alignment
constexpr int kProducerRegs = 40;
constexpr int kConsumerRegs = 232;
static_assert(kProducerRegs * 128 + kConsumerRegs * 256 <= 65536, "register file");

struct Params {
  const float* dy;
  const float* beta;
  float* t;  // workspace, the layout of x
  float* dx;
  float* bpart;   // dbeta partials [image * ntiles + unit][C]
  long long img;  // C * P
  int p, c;       // pixels per image, channels
  int ntiles;     // 128-pixel units per image
  int units;      // images * ntiles
  int kblocks;    // ceil(C / 32): k blocks of both GEMMs
};
// (H * W % 4 == 0 and 8-byte aligned dy, dx: a thread's two pixels are always both inside the
// image or both outside, and move as one 8-byte access.)

// Tile i of this CTA's sequence: unit (r * clusters + cluster) * kCluster + rank, r = i / 2,
// half i % 2. Dead tiles (no unit, or no pixel of the half) still walk the gamma stream; with
// clusters of 1 a CTA's sequence ends with its last unit (the kernel's tile count), so only
// halves without pixels are dead there.
struct Tile {
  int unit, n, px0, h;
  bool unit_ok, live;
};
template <int kCluster>
__device__ __forceinline__ Tile tile_of(int i, const Params& p, int cluster, int clusters,
                                        int rank) {
  Tile tl;
  tl.h = i & 1;
  tl.unit = ((i >> 1) * clusters + cluster) * kCluster + rank;
  tl.unit_ok = tl.unit < p.units;
  tl.n = tl.unit_ok ? tl.unit / p.ntiles : 0;
  tl.px0 = (tl.unit - tl.n * p.ntiles) * kUnitPx + tl.h * kTilePx;
  tl.live = tl.unit_ok && tl.px0 < p.p;
  return tl;
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// v, hidden from the optimiser: each epilogue loop computes its own channel addresses, so the
// compiler cannot keep 32 64-bit addresses shared between the loops live across both GEMMs.
__device__ __forceinline__ long long opaque(long long v) {
  asm volatile("" : "+l"(v));
  return v;
}

// Byte offset of t(row L, channel k) in a slot: GEMM 2's K-major A operand.
__device__ __forceinline__ std::uint32_t t_offset(int row, int k) {
  return (k >> 5) * kTBlockBytes + row * 128 + ((((k & 31) >> 2) ^ (row & 7)) << 4) + (k & 3) * 4;
}
#endif

// The ring's fills of one tile, in order (kb = k block, 0 .. kblocks - 1; part e of kP gamma
// parts: tf32 kP = 1, gamma rounded to TF32; f32 kP = 2, e = 0 its bf16 pairs (gamma, lo) for
// the corrections' bf16 wgmma, 1 its TF32 hi part):
//   GEMM 1, fill 2 (kP kb + e) + w: gamma rows 128 w .. 128 w + 127 (consumer w's), k block kb,
//     part e;
//   GEMM 2, fill 2 kP kblocks + kP (h kblocks + kb) + e: gamma^T rows 64 h .. 64 h + 63 (consumer
//     0's half h) then 128 + 64 h .. (consumer 1's), k block kb, part e.
template <bool kF32>
constexpr int kParts = kF32 ? 2 : 1;
// Column of part e of k block kb in the gamma operands: tf32 one TF32 copy per k block (or the
// caller's gamma); f32 gdn_split_gamma_pairs's [hi | pair | hi] per k block, of which the pair
// (e = 0) and the second hi (e = 1) are read.
template <bool kF32>
__host__ __device__ constexpr int gamma_col(int kb, int e) {
  return kF32 ? (3 * kb + 1 + e) * 32 : kb * 32;
}

}  // namespace gdn_onepass
}  // namespace gpuopt
