// The fused GDN forward kernel with the x tile resident in shared memory (sm_80+, mma.sync TF32):
// one block of 16 warps per (image, 128-pixel tile) computes all output channels of its pixels,
// 256 at a time (one m tile for C <= 256).
// - x tile: all Cp = C rounded up to 32 channels x 128 pixels stay in smem ([Cp][136] floats,
//   136 KiB at C = 256). Its 32-channel chunks arrive with the first m tile's k steps, so x is
//   read from DRAM once, a further m tile of gamma (C > 256) reuses it from smem, and the
//   epilogue's x_i comes from smem too (no second read of x).
// - gamma: 256 x 32 chunks (36 KiB) double-buffered through cp.async (16-byte copies when
//   C % 4 == 0; gamma stays in L2): the next step's gamma and x chunks load during this step's
//   mma. 208 KiB of smem, 1 block per SM.
// - 16 warps, 4 x 4, each 64 x 32 (mma_ktile of gdn_mma.cuh, 3xTF32 or 1xTF32, x squared when
//   its B fragment is built); epilogue y = x * s(beta + z) with 8-byte stores.
// Measured on the H200 (docs/notes/gdn.md): the first version (8 warps, 128-row m tiles looped,
// 4-stage 128 x 32 ring) ran 0.229 ms tf32 / 0.372 ms f32 at N = 32, C = 256, 64 x 64, latency
// bound (ncu: 37% SM, 22% DRAM throughput): the second m tile's pass had no loads to overlap.
#pragma once
#include "kernels/gdn/gdn_math.cuh"
#include "kernels/gdn/gdn_mma.cuh"

namespace gpuopt {
namespace gdn {

constexpr int kFwdThreads = 2 * kThreads;  // 16 warps
constexpr int kFwdRows = 2 * kBM;          // output channels per m tile
constexpr int kFwdStages = 2;
constexpr int kFwdStageFloats = kFwdRows * kKPitch;
constexpr int kFwdRingFloats = kFwdStages * kFwdStageFloats;

// Shared memory of a block for c channels.
constexpr long long fwd_resident_smem_bytes(long long c) {
  return ((c + kBK - 1) / kBK * kBK * kRPitch + kFwdRingFloats) * 4;
}

struct FwdArgs {
  const float* __restrict__ x;
  const float* __restrict__ beta;
  const float* __restrict__ gamma;
  float* __restrict__ y;
  int c = 0;
  long long p = 0;  // pixels per image
  int ptiles = 0;   // 128-pixel tiles per image
  bool vec_gamma = false, vec_x = false, pair = false, inverse = false;
};

template <bool Split3>
__global__ void __launch_bounds__(kFwdThreads, 1) gdn_fwd_resident_kernel(FwdArgs args) {
  extern __shared__ float4 smem4[];
  float* ring = reinterpret_cast<float*>(smem4);
  float* xs = ring + kFwdRingFloats;  // [Cp][kRPitch]
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wm = warp >> 2, wn = warp & 3;  // warp tile rows wm * 64, columns wn * 32
  // the two halves of the block load one 128-row half of each gamma chunk; half 0 loads x
  const int half = static_cast<int>(threadIdx.x) / kThreads;
  const int e = static_cast<int>(threadIdx.x) % kThreads;

  const long long img = blockIdx.x / args.ptiles;
  const long long n0 = static_cast<long long>(blockIdx.x % args.ptiles) * kBM;
  const int nvalid = args.p - n0 < kBM ? static_cast<int>(args.p - n0) : kBM;
  const long long img_off = img * args.c * args.p;
  const int kt_count = (args.c + kBK - 1) / kBK;
  const int mt_count = (args.c + kFwdRows - 1) / kFwdRows;
  const int steps = kt_count * mt_count;

  const TileLoader<false> lx(args.x + img_off + n0, args.p, args.vec_x, e);
  auto load = [&](int s) {
    const int mt = s / kt_count, kt = s % kt_count;
    const int kb = kt * kBK;
    const int r0 = mt * kFwdRows + half * kBM;  // first gamma row of this half
    const long long rb = r0 < args.c ? r0 : 0;  // (a half past C loads nothing)
    const TileLoader<true> lg(args.gamma + rb * args.c, args.c, args.vec_gamma, e);
    lg.load(ring + (s % kFwdStages) * kFwdStageFloats + half * kBM * kKPitch, kb, args.c - r0,
            args.c - kb);
    if (mt == 0 && half == 0) lx.load(xs + kb * kRPitch, kb, nvalid, args.c - kb);
  };

  load(0);
  cp_async_commit();
  float acc[4][4][4];
  zero_acc(acc);
  for (int s = 0; s < steps; ++s) {
    cp_async_wait<0>();
    __syncthreads();  // step s visible to all; every warp is done with step s - 1's slot
    if (s + 1 < steps) load(s + 1);
    cp_async_commit();
    const int mt = s / kt_count, kt = s % kt_count;
    mma_ktile<true, false, false, true, Split3>(ring + (s % kFwdStages) * kFwdStageFloats,
                                                xs + kt * kBK * kRPitch, wm, wn, lane, acc);
    if (kt != kt_count - 1) continue;
      // epilogue of m tile mt: y = x * s(beta + z), x from the resident tile
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int m = mt * kFwdRows + wm * 64 + i * 16 + g + h * 8;
        if (m >= args.c) continue;
        const float b = __ldg(args.beta + m);
        float* yrow = args.y + img_off + static_cast<long long>(m) * args.p + n0;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const int n = wn * 32 + j * 8 + 2 * t;
          if (n >= nvalid) continue;
          const float2 xv = *reinterpret_cast<const float2*>(xs + m * kRPitch + n);
          st_pair(yrow + n, n + 1 < nvalid, args.pair,
                  xv.x * gdn_scale(b + acc[i][j][h * 2], args.inverse),
                  xv.y * gdn_scale(b + acc[i][j][h * 2 + 1], args.inverse));
        }
      }
    zero_acc(acc);
  }
  cp_async_wait<0>();
}

}  // namespace gdn
}  // namespace gpuopt
