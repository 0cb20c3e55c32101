// The fused GDN forward kernel with the x tile resident in shared memory (sm_80+, mma.sync TF32):
// one block per (image, 128-pixel tile) computes all C output channels of its pixels.
// - x tile: all Cp = C rounded up to 32 channels x 128 pixels stay in smem ([Cp][136] floats,
//   139 KiB at C = 256). Its 32-channel chunks arrive with the first m tile's k steps, so x is
//   read from DRAM once, each further 128-row m tile of gamma reuses it from smem, and the
//   epilogue's x_i comes from smem too (no second read of x).
// - gamma: 128 x 32 chunks streamed through a kFwdStages-deep cp.async ring (16-byte copies when
//   C % 4 == 0; gamma stays in L2). Steps are (m tile, k chunk) pairs in one flat pipeline, so the
//   next m tile's first chunks are in flight during the current one's epilogue.
// - mma, fragments and 3xTF32 / 1xTF32 as gdn_mma.cuh (mma_ktile), x squared when its B
//   fragment is built; epilogue y = x * s(beta + z) with 8-byte stores.
// Predicted on the H200 at N = 32, C = 256, 64 x 64 (1 block of 208 KiB per SM, 1024 blocks):
// ~0.1 ms tf32, ~0.2 ms f32 (docs/notes/gdn.md).
#pragma once
#include "kernels/gdn/gdn_math.cuh"
#include "kernels/gdn/gdn_mma.cuh"

namespace gpuopt {
namespace gdn {

constexpr int kFwdStages = 4;
constexpr int kFwdRingFloats = kFwdStages * kBM * kKPitch;

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
__global__ void __launch_bounds__(kThreads, 1) gdn_fwd_resident_kernel(FwdArgs args) {
  extern __shared__ float4 smem4[];
  float* ring = reinterpret_cast<float*>(smem4);
  float* xs = ring + kFwdRingFloats;  // [Cp][kRPitch]
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wm = warp >> 2, wn = warp & 3;

  const long long img = blockIdx.x / args.ptiles;
  const long long n0 = static_cast<long long>(blockIdx.x % args.ptiles) * kBM;
  const int nvalid = args.p - n0 < kBM ? static_cast<int>(args.p - n0) : kBM;
  const long long img_off = img * args.c * args.p;
  const int kt_count = (args.c + kBK - 1) / kBK;
  const int mt_count = (args.c + kBM - 1) / kBM;
  const int steps = kt_count * mt_count;

  const TileLoader<false> lx(args.x + img_off + n0, args.p, args.vec_x);
  auto load = [&](int s) {
    const int mt = s / kt_count, kt = s % kt_count;
    const int kb = kt * kBK;
    float* slot = ring + (s % kFwdStages) * (kBM * kKPitch);
    // gamma rows mt * 128.., k columns kb..: the loader's base is row 0, so offset the rows
    const TileLoader<true> lgm(args.gamma + static_cast<long long>(mt) * kBM * args.c, args.c,
                               args.vec_gamma);
    lgm.load(slot, kb, args.c - mt * kBM, args.c - kb);
    if (mt == 0) lx.load(xs + kb * kRPitch, kb, nvalid, args.c - kb);
  };

#pragma unroll
  for (int s = 0; s < kFwdStages - 1; ++s) {
    if (s < steps) load(s);
    cp_async_commit();
  }
  float acc[4][4][4];
  zero_acc(acc);
  for (int s = 0; s < steps; ++s) {
    cp_async_wait<kFwdStages - 2>();
    __syncthreads();
    if (s + kFwdStages - 1 < steps) load(s + kFwdStages - 1);
    cp_async_commit();
    const int mt = s / kt_count, kt = s % kt_count;
    mma_ktile<true, false, false, true, Split3>(ring + (s % kFwdStages) * (kBM * kKPitch),
                                                xs + kt * kBK * kRPitch, wm, wn, lane, acc);
    if (kt != kt_count - 1) continue;
      // epilogue of m tile mt: y = x * s(beta + z), x from the resident tile
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int m = mt * kBM + wm * 64 + i * 16 + g + h * 8;
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
