// The channel-mix kernel of the fused GDN passes with the x tile resident in shared memory
// (sm_80+, mma.sync TF32): z = beta + gamma x^2 for all C <= 256 output channels of one
// (image, 128-pixel tile) per block of 16 warps, then an epilogue functor on (z, x): the forward
// pass's y = x s(z). (As the backward pass's z/t GEMM, with t, dx = dy s and dbeta row sums in
// the epilogue, it was slower than the generic GEMM in run 4, so the backward pass keeps that.)
// - x tile: all Cp = C rounded up to 32 channels x 128 pixels stay in smem ([Cp][136] floats,
//   136 KiB at C = 256), loaded in 32-channel chunks alongside gamma's, so x is read from DRAM
//   once and the epilogue's x_i comes from smem (no second read of x).
// - gamma: 256 x 32 chunks (36 KiB) double-buffered through cp.async (16-byte copies when
//   C % 4 == 0; gamma stays in L2): the next chunk pair loads during this chunk's mma. 208 KiB
//   of smem, 1 block per SM.
// - 16 warps, 4 x 4, each 64 x 32 (mma_ktile of gdn_mma.cuh: 3xTF32 or 1xTF32, x squared when
//   its B fragment is built). Round = false (the tf32 forward pass): 1xTF32 operands go to the
//   mma unrounded (truncated by the tensor cores): 24 of ~60 instructions per 8-deep k step
//   gone; H100 (round 9b, run 14): 0.1995 -> 0.1875 ms, 1.93x composed, rel. error 2.4e-5 ->
//   1.6e-4 (tf32 tolerance 5e-3).
// - Whole tiles (C = 256, 128 pixels, 16-byte operands: the bar's shape): a loader of one pointer
//   per operand and fixed strides (no bounds), and an epilogue without per-element bounds whose
//   y pairs go out as 8-byte PTX stores (before, the compiler had split them into two 4-byte
//   stores); the epilogue functor takes the form (inverse) as a template parameter. H100 (round
//   11, runs 3 and 5 of this session): tf32 0.1863 -> 0.162-0.164 ms = 2.21-2.23x composed (the
//   loader alone: 0.1706 -> 0.163), f32 0.352 -> 0.322-0.325 ms, and 0.301 ms with 3xTF32's
//   copies issued after the first k step (f32 only: tf32 did not move, 0.164).
// - B fragments as 8-byte pairs (pair_col of gdn_mma.cuh: the warp's pixel columns permuted),
//   so whole tiles' y leave as 16-byte stores of 4 adjacent pixels: H100 (issue 19, harness,
//   two runs): tf32 0.1599 -> 0.1555 ms (+2.8%), f32 0.3055 -> 0.2958 (+3.3%).
// - Whole problems (C = 256, H * W a multiple of 128, 16-byte x and gamma: the bar's shape) run
//   gdn_resident_persist_kernel below instead: the same tile math in persistent blocks that load
//   the next tile's first chunk under the epilogue (issue 19, H100: tf32 0.1604 -> 0.1343 ms =
//   2.70x composed, f32 0.2952 -> 0.2255 ms with the bf16 corrections below; steps at the kernel).
// - f32 (BfCorr, both kernels): 3xTF32's two corrections lo*b + hi*lo as ONE bf16 m16n8k16 mma
//   beside the TF32 hi*hi (mma_ktile of gdn_mma.cuh): 2 mma per tile and k step instead of 3; f32
//   is bound by its mma issue (the persistent kernel beat the no-load floor). H100 (issue 19,
//   gdnf2, two runs, one process each, composed 0.6301 / 0.6273 ms): persistent 0.2796 / 0.2779
//   -> 0.2456 / 0.2444 ms (2.57x composed), per-tile 0.2954 / 0.2941 -> 0.2495 / 0.2482; worst
//   error against an f64 reference at the bar shape 7.6e-7 -> 6.2e-7 of max |y| (SGEMM 2.8e-7),
//   lower in all 10 probe cases (the bf16 term a_lo * b keeps lo*lo, which 3xTF32 drops; 1.25e-6 ->
//   5e-8 with coherent roundings).
// Measured on the H200 at N = 32, C = 256, 64 x 64 (docs/notes/history/gdn-rounds.md): this version
// 0.1945 ms tf32 (1.54x composed) / 0.3497 ms f32 (1.70x) (run 4, 670da46); still latency bound
// (ncu, tf32: SM 41%, DRAM 28%, L2 52% of peak, 15.7 warps per SM, 9.1 cycles between a warp's
// issues). The first version (8 warps, two 128-row m tiles looped, 4-stage 128 x 32 ring) ran 0.229
// / 0.372 ms (SM 37%, DRAM 22%): the second m tile's pass had no loads to overlap. A 64-pixel
// version with two 112 KiB blocks per SM (round 9, run 13, H100) ran 0.228 ms tf32 vs this kernel's
// 0.198: not kept (git 4862a41).
#pragma once
#include <type_traits>

#include "kernels/gdn/gdn_mma.cuh"

namespace gpuopt {
namespace gdn {

constexpr int kResThreads = 2 * kThreads;  // 16 warps
constexpr int kResRows = 2 * kBM;          // output channels per block (C <= 256)
constexpr int kResStages = 2;
constexpr int kResStageFloats = kResRows * kKPitch;
constexpr int kResRingFloats = kResStages * kResStageFloats;

// Shared memory of a block for c channels.
constexpr long long resident_smem_bytes(long long c) {
  return ((c + kBK - 1) / kBK * kBK * kRPitch + kResRingFloats) * 4;
}

struct ResidentArgs {
  const float* __restrict__ x;
  const float* __restrict__ beta;
  const float* __restrict__ gamma;
  int c = 0;
  long long p = 0;  // pixels per image
  int ptiles = 0;   // 128-pixel tiles per image
  bool vec_gamma = false, vec_x = false;
};

// The epilogue of one tile: c0..c3 of mma tile (i, j) sit at rows g, g + 8 and mma columns 2t,
// 2t + 1, i.e. (the B pairs' permutation) pixels wn * 32 + pair_col(j, 2t + c): per row two runs
// r of 4 adjacent pixels 16r + 4t + u, u = 2c + (j & 1), j = 2r + (u & 1). Whole tiles (kWhole:
// 128 pixels, epi.quad) store each run as one 16-byte store, without per-element bounds; others
// store pairs (8 bytes where epi.pair) within the tile's nvalid pixels. xrow(i, m): the smem x
// row of channel m (in the warp's m tile i); tile_off: the offset of the tile's element (0, 0).
// kAllRows: C = 256, every row exists (no per-row check). I0, I1: the warp's m tiles i in
// [I0, I1) only.
template <bool kWhole, bool kAllRows = false, int I0 = 0, int I1 = 4, class Epi, class XRow>
__device__ __forceinline__ void resident_epilogue(const float (&acc)[4][4][4], const Epi& epi,
                                                  XRow xrow, const ResidentArgs& args,
                                                  long long tile_off, int nvalid, int wm, int wn,
                                                  int lane) {
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int i = I0; i < I1; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int m = wm * 64 + i * 16 + g + h * 8;
      if (!kAllRows && m >= args.c) continue;
      const float b = __ldg(args.beta + m);
      const long long row = tile_off + static_cast<long long>(m) * args.p;
      const float* xm = xrow(i, m);
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int n = wn * 32 + 16 * r + 4 * t;
        float z[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) z[u] = b + acc[i][2 * r + (u & 1)][h * 2 + (u >> 1)];
        const float* xr = xm + n;
        if (kWhole) {
          epi.apply4(row + n, z, *reinterpret_cast<const float4*>(xr));
        } else {
#pragma unroll
          for (int u = 0; u < 4; u += 2)
            if (n + u < nvalid)
              epi.apply(row + n + u, n + u + 1 < nvalid, z[u], z[u + 1], Two{xr[u], xr[u + 1]});
        }
      }
    }
}

// Epi: apply4(i, z, x) finishes and stores the 4 adjacent elements i.. (i 16-byte aligned; whole
// tiles with epi.quad: every multiple of 4 is 16-byte aligned); apply(i, two, z0, z1, x) element i
// and, when two, i + 1 (8-byte stores where epi.pair: every even element index is 8-byte aligned).
template <bool Split3, class Epi, bool Round = true, bool BfCorr = false>
__global__ void __launch_bounds__(kResThreads, 1)
    gdn_resident_mix_kernel(ResidentArgs args, Epi epi) {
  extern __shared__ float4 smem4[];
  float* ring = reinterpret_cast<float*>(smem4);
  float* xs = ring + kResRingFloats;  // [Cp][kRPitch]
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const int wm = warp >> 2, wn = warp & 3;  // warp tile rows wm * 64, columns wn * 32
  // the two halves of the block load one 128-row half of each gamma chunk; half 0 loads x
  const int half = static_cast<int>(threadIdx.x) / kThreads;
  const int e = static_cast<int>(threadIdx.x) % kThreads;

  const long long img = blockIdx.x / args.ptiles;
  const long long n0 = static_cast<long long>(blockIdx.x % args.ptiles) * kBM;
  const int nvalid = args.p - n0 < kBM ? static_cast<int>(args.p - n0) : kBM;
  const long long img_off = img * args.c * args.p;
  const int steps = (args.c + kBK - 1) / kBK;

  const int r0 = half * kBM;  // first gamma row of this half
  const float* gamma_half = args.gamma + (r0 < args.c ? r0 : 0) * static_cast<long long>(args.c);
  const float* x_tile = args.x + img_off + n0;
  // Whole tiles (the bar's shape) take TileLoader's fixed-stride copies without bounds.
  auto load = [&](int s) {  // (loaders built per step: fewer registers live across the mma)
    const int kb = s * kBK;
    float* gdst = ring + (s % kResStages) * kResStageFloats + r0 * kKPitch;
    const TileLoader<true> lg(gamma_half, args.c, args.vec_gamma, e);
    lg.load(gdst, kb, args.c - r0, args.c - kb);
    if (half == 0) {
      const TileLoader<false> lx(x_tile, args.p, args.vec_x, e);
      lx.load(xs + kb * kRPitch, kb, nvalid, args.c - kb);
    }
  };

  load(0);
  sm80::cp_async_commit_group();
  float acc[4][4][4];
  sm80::zero_fragments(acc);
  for (int s = 0; s < steps; ++s) {
    sm80::cp_async_wait_group<0>();
    __syncthreads();  // step s visible to all; every warp is done with step s - 1's slot
    // 3xTF32: the next chunk's copies after the first 8-deep k step, so the tensor pipe has work
    // while they issue (round 11: f32 0.323 -> 0.301 ms; tf32 unchanged, 0.164, kept as it was)
    constexpr bool kLate = Split3;
    if (kLate)
      mma_ktile<true, false, false, true, Split3, Round, 0, 8, true, BfCorr>(
          ring + (s % kResStages) * kResStageFloats, xs + s * kBK * kRPitch, wm, wn, lane, acc);
    if (s + 1 < steps) load(s + 1);
    sm80::cp_async_commit_group();
    mma_ktile<true, false, false, true, Split3, Round, kLate ? 8 : 0, kBK, true, BfCorr>(
        ring + (s % kResStages) * kResStageFloats, xs + s * kBK * kRPitch, wm, wn, lane, acc);
  }
  sm80::cp_async_wait_group<0>();
  const long long tile_off = img_off + n0;
  auto xrow = [&](int, int m) { return xs + m * kRPitch; };
  if (nvalid == kBM && epi.quad)
    resident_epilogue<true>(acc, epi, xrow, args, tile_off, nvalid, wm, wn, lane);
  else
    resident_epilogue<false>(acc, epi, xrow, args, tile_off, nvalid, wm, wn, lane);
}

// The persistent form for whole problems (gdn_persist_fits of gdn.hpp: C = 256, H * W a multiple of
// 128, 16-byte x and gamma; issue 19): grid = min(tiles, SMs) blocks of 16 warps, block b runs
// tiles b, b + grid, ... with the same warp tiles, k order and epilogue arithmetic as the kernel
// above, so results are bitwise equal. x lives in a ring of 9 32-channel chunk slots (a block's
// global chunk count G mod 9), gamma in the 2-slot ring by G too: at a tile's last step the next
// tile's chunk 0 (x into the spare slot, gamma into the free ring slot) is issued, so its DRAM
// latency hides under that step's mma and the epilogue instead of opening every block; the next
// tile's chunk 1 goes into the finished tile's chunk-0 slot after the next step's barrier. Copies
// are spread over all 512 threads (4 gamma + 2 x 16-byte copies each, one pointer per operand),
// issued after the step's first 8-deep k step (the first m tile's k steps in the last step), and
// the kernel has no bounds code.
// - gamma's ring rows have no padding (pitch 32 floats) and XOR-swizzled 16-byte chunks
//   (frag_a_swz of gdn_mma.cuh): each row a warp copies is one aligned 128-byte line (with pitch
//   36 each gamma copy instruction cost 6.5 excess shared-memory wavefronts, 57% of the kernel's
//   excess), the ldmatrix reads stay conflict-free, and the ring is 8 KiB smaller (217 KiB).
// - The last chunk runs m tile by m tile, each m tile's epilogue right after its k steps (its B
//   fragments are read again per m tile): the epilogue, which ran with the tensor pipe idle in all
//   16 warps at once (0.028 ms of the tf32 pass), runs 3 of its 4 parts beside the next m tile's
//   mma, and y leaves in 4 bursts.
// H100, N = 32, C = 256, 64 x 64 (issue 19, one process each, docs/notes/gdn.md): tf32 0.1604 ->
// 0.1514 ms (persistent) -> 0.1428 ms (copies after the first k step) -> 0.1343 ms (swizzled
// gamma and the m-tile epilogue; 2.70x composed); f32 0.2952 -> 0.2784 ms (persistent, 3xTF32) ->
// 0.2443 (bf16 corrections) -> 0.2255 ms (2.77x). 128 registers; 0 spills except 8 bytes in one
// f32 form (the library's build: divisive; the probe's build of the same PTX: inverse).
constexpr int kPersistSteps = kResRows / kBK;
constexpr int kPersistSlots = kPersistSteps + 1;
constexpr int kPersistStageFloats = kResRows * kBK;  // swizzled gamma rows without padding
constexpr long long kPersistSmemBytes =
    (static_cast<long long>(kPersistSlots) * kBK * kRPitch + kResStages * kPersistStageFloats) * 4;

template <bool Split3, class Epi, bool Round, bool BfCorr = false>
__global__ void __launch_bounds__(kResThreads, 1)
    gdn_resident_persist_kernel(ResidentArgs args, Epi epi, int ntiles) {
  extern __shared__ float4 smem4[];
  float* ring = reinterpret_cast<float*>(smem4);
  float* xs = ring + kResStages * kPersistStageFloats;  // [kPersistSlots * kBK][kRPitch]
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 2, wn = warp & 3;
  constexpr int kC = kResRows;
  const long long p = args.p;
  // this thread's copies: gamma rows tid / 8 + 64 i, k chunk tid % 8 (at its swizzled place; 64 i
  // keeps row & 7); x k rows tid / 32 + 16 i, pixels (tid % 32) * 4
  const float* gsrc = args.gamma + (tid >> 3) * kC + (tid & 7) * 4;
  const int gdst = (tid >> 3) * kBK + swz_chunk(tid >> 3, tid & 7) * 4;
  const int xdst = (tid >> 5) * kRPitch + (tid & 31) * 4;
  const long long xoff = (tid >> 5) * p + (tid & 31) * 4;
  // offset of tile tl's element (0, 0); image * kC in int (gdn_persist_fits: N * 256 < 2^31; a
  // 64-bit product there costs f32 48 bytes of spills)
  auto tile_off = [&](int tl) {
    return (tl / args.ptiles) * kC * p + static_cast<long long>(tl % args.ptiles) * kBM;
  };
  auto load = [&](long long xt, int k, int xslot, int gslot) {  // chunk k of the tile at xt
    const float* gs = gsrc + k * kBK;
    float* gd = ring + gslot * kPersistStageFloats + gdst;
#pragma unroll
    for (int i = 0; i < 4; ++i) sm80::cp_async_cg16_zfill(gd + 64 * i * kBK, gs + 64 * i * kC, 16);
    const float* xsrc = args.x + xt + k * kBK * p + xoff;
    float* xd = xs + xslot * kBK * kRPitch + xdst;
#pragma unroll
    for (int i = 0; i < 2; ++i)
      sm80::cp_async_cg16_zfill(xd + 16 * i * kRPitch, xsrc + 16 * i * p, 16);
  };
  // the warp's share of k steps [KK0, KK1) of a chunk for its m tiles [I0, I1)
  auto mma = [&](auto kk0, auto kk1, auto i0, auto i1, const float* gsp, const float* xsp,
                 float(&acc)[4][4][4]) {
    mma_ktile<true, false, false, true, Split3, Round, decltype(kk0)::value, decltype(kk1)::value,
              true, BfCorr, true, decltype(i0)::value, decltype(i1)::value>(gsp, xsp, wm, wn, lane,
                                                                            acc);
  };
  using I0 = std::integral_constant<int, 0>;
  using I1 = std::integral_constant<int, 1>;
  using I2 = std::integral_constant<int, 2>;
  using I3 = std::integral_constant<int, 3>;
  using I4 = std::integral_constant<int, 4>;
  using K8 = std::integral_constant<int, 8>;
  using KAll = std::integral_constant<int, kBK>;

  int tile = static_cast<int>(blockIdx.x);
  if (tile >= ntiles) return;
  long long xt = tile_off(tile);
  int base = 0;  // x slot of the current tile's chunk 0
  int gslot = 0;
  load(xt, 0, 0, 0);
  sm80::cp_async_commit_group();
  for (; tile < ntiles; tile += static_cast<int>(gridDim.x)) {
    const int next = tile + static_cast<int>(gridDim.x);
    const long long xnext = next < ntiles ? tile_off(next) : 0;
    float acc[4][4][4];
    sm80::zero_fragments(acc);
    auto xrow = [&](int i, int m) {
      int sl = base + wm * 2 + (i >> 1);  // the chunk of channel m = wm * 64 + 16 i + (0..15)
      if (sl >= kPersistSlots) sl -= kPersistSlots;
      return xs + (sl * kBK + (m & (kBK - 1))) * kRPitch;
    };
#pragma unroll 1
    for (int s = 0; s < kPersistSteps - 1; ++s) {
      sm80::cp_async_wait_group<0>();
      __syncthreads();  // chunk s visible to all; every warp is done with the slots refilled now
      int xsl = base + s;
      if (xsl >= kPersistSlots) xsl -= kPersistSlots;
      const float* xsp = xs + xsl * kBK * kRPitch;
      const float* gsp = ring + gslot * kPersistStageFloats;
      mma(I0{}, K8{}, I0{}, I4{}, gsp, xsp, acc);
      load(xt, s + 1, xsl + 1 < kPersistSlots ? xsl + 1 : 0, gslot ^ 1);
      sm80::cp_async_commit_group();
      mma(K8{}, KAll{}, I0{}, I4{}, gsp, xsp, acc);
      gslot ^= 1;
    }
    // the last chunk m tile by m tile, each one's epilogue after the next one's k steps
    sm80::cp_async_wait_group<0>();
    __syncthreads();
    int xsl = base + kPersistSteps - 1;
    if (xsl >= kPersistSlots) xsl -= kPersistSlots;
    const float* xsp = xs + xsl * kBK * kRPitch;
    const float* gsp = ring + gslot * kPersistStageFloats;
    mma(I0{}, KAll{}, I0{}, I1{}, gsp, xsp, acc);
    if (next < ntiles) load(xnext, 0, xsl + 1 < kPersistSlots ? xsl + 1 : 0, gslot ^ 1);
    sm80::cp_async_commit_group();
    mma(I0{}, KAll{}, I1{}, I2{}, gsp, xsp, acc);
    resident_epilogue<true, true, 0, 1>(acc, epi, xrow, args, xt, kBM, wm, wn, lane);
    mma(I0{}, KAll{}, I2{}, I3{}, gsp, xsp, acc);
    resident_epilogue<true, true, 1, 2>(acc, epi, xrow, args, xt, kBM, wm, wn, lane);
    mma(I0{}, KAll{}, I3{}, I4{}, gsp, xsp, acc);
    resident_epilogue<true, true, 2, 4>(acc, epi, xrow, args, xt, kBM, wm, wn, lane);
    gslot ^= 1;
    base = base + kPersistSteps < kPersistSlots ? base + kPersistSteps
                                                : base + kPersistSteps - kPersistSlots;
    xt = xnext;
  }
  sm80::cp_async_wait_group<0>();
}

}  // namespace gdn
}  // namespace gpuopt
