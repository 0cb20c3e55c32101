// The forward channel mix with half of gamma resident in shared memory (mma.sync TF32, 202 KiB
// of smem: sm_90): z = beta + gamma x^2, y = x s(z), for C <= 256.
// - Persistent blocks in pairs: block 2q + h computes output channels h * 128 .. h * 128 + 127
//   (C <= 128: one block per tile, h = 0) of the (image, 64-pixel) tiles q, q + pairs, ... Its
//   128 rows of gamma ([128][260] floats, 130 KiB) are loaded once per block and stay in smem:
//   no gamma traffic per tile (the 128-pixel resident kernel re-reads 256 KiB of gamma from L2
//   per tile: 256 MiB per pass at the bar shape). The two blocks of a pair read the same x tile
//   at about the same time: the second read hits L2.
// - x tile: all Cp = ceil8(C) channels x 64 pixels ([Cp][72], 72 KiB). The k loop runs first over
//   the channels of the other half (not needed by the epilogue), then over the block's own; the
//   next tile's other-half rows are loaded as soon as every warp is past them (during the own
//   half's mma and the epilogue), its own-half rows right after the epilogue (during the next
//   tile's other-half mma). Two cp.async groups per tile, waited for in order.
// - 8 warps, 4 (channels) x 2 (pixels), each 32 x 32 (or 16 warps of 32 x 16) (mma_k8 of
// gdn_mma.cuh: 1xTF32 or 3xTF32,
//   x squared when its B fragment is built, gamma rounded as its A fragment is read); epilogue
//   x from smem, streaming y stores.
// Measured: see docs/notes/gdn.md (round 6).
#pragma once
#include "kernels/gdn/gdn_math.cuh"
#include "kernels/gdn/gdn_mma.cuh"

namespace gpuopt {
namespace gdn {

constexpr int kGhRows = 128;              // output channels per block
constexpr int kGhPixels = 64;             // pixels per tile
constexpr int kGhMaxC = 2 * kGhRows;      // C this kernel takes
constexpr int kGhGPitch = kGhMaxC + 4;    // gamma rows: 4 mod 8 floats, ldmatrix conflict-free
constexpr int kGhXPitch = kGhPixels + 8;  // x rows: 8 mod 32 floats, B fragments conflict-free

constexpr int gh_cp(long long c) { return static_cast<int>((c + 7) / 8 * 8); }
// Shared memory of a block for c channels (206,848 bytes at C = 256).
constexpr long long gamma_half_smem_bytes(long long c) {
  return (static_cast<long long>(kGhRows) * kGhGPitch + gh_cp(c) * kGhXPitch) * 4;
}

struct GammaHalfArgs {
  const float* __restrict__ x;
  const float* __restrict__ beta;
  const float* __restrict__ gamma;
  float* __restrict__ y;
  int c = 0, cp = 0;    // channels, rounded up to 8
  long long p = 0;      // pixels per image
  int halves = 1;       // blocks per tile: 1 (C <= 128) or 2
  int ptiles = 0;       // 64-pixel tiles per image
  long long units = 0;  // tiles: images x ptiles
  bool vec_gamma = false, vec_x = false, pair = false, inverse = false;
};

// Copies rows x Cols floats (row-major, leading dimension ld) into smem rows of `pitch` floats,
// zero outside rvalid x cvalid: 16-byte copies when vec (ld % 4 == 0, 16-byte aligned rows), else
// 4-byte copies. Cols is a multiple of 4 (0: the runtime `cols`). Zero-filled copies name `safe`
// (an address inside the tensor) as their source.
template <int Threads, int Cols>
__device__ __forceinline__ void gh_copy(float* dst, int pitch, const float* src, long long ld,
                                        int rows, int rvalid, int cols, int cvalid, bool vec,
                                        const float* safe) {
  const int w = Cols > 0 ? Cols : cols;
  const int tid = static_cast<int>(threadIdx.x);
  if (vec) {
    const int q = w / 4;
    for (int e = tid; e < rows * q; e += Threads) {
      const int r = e / q, k = (e - r * q) * 4;
      const int left = r < rvalid ? cvalid - k : 0;
      const int bytes = left <= 0 ? 0 : (left < 4 ? left : 4) * 4;
      gemm_io::cp_async_16(dst + r * pitch + k, bytes > 0 ? src + r * ld + k : safe, bytes);
    }
    return;
  }
  for (int e = tid; e < rows * w; e += Threads) {
    const int r = e / w, k = e - r * w;
    const bool ok = r < rvalid && k < cvalid;
    gemm_io::cp_async_elem<4>(dst + r * pitch + k, ok ? src + r * ld + k : safe, ok);
  }
}

// WN: warps along the pixels (2: 8 warps of 32 x 32; 4: 16 warps of 32 x 16).
template <bool Split3, int WN>
__global__ void __launch_bounds__(128 * WN, 1) gdn_fwd_gamma_half_kernel(GammaHalfArgs a) {
  constexpr int kThreads = 128 * WN, kWarpN = kGhPixels / WN, kNJ = kWarpN / 8;
  extern __shared__ float4 smem4[];
  float* gs = reinterpret_cast<float*>(smem4);  // [128][kGhGPitch]: gamma rows m0..
  float* xs = gs + kGhRows * kGhGPitch;         // [cp][kGhXPitch]: x rows 0..cp
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wm = warp / WN, wn = warp % WN;  // warp tile: channels wm * 32, pixels wn * kWarpN
  const int half = a.halves == 2 ? static_cast<int>(blockIdx.x & 1) : 0;
  const long long stride = gridDim.x / a.halves;
  const int m0 = half * kGhRows;                                        // first output channel
  const int own1 = a.cp < m0 + kGhRows ? a.cp : m0 + kGhRows;           // own k range [m0, own1)
  const int oth0 = half == 0 ? own1 : 0, oth1 = half == 0 ? a.cp : m0;  // the other k range
  const long long img_elems = static_cast<long long>(a.c) * a.p;

  // rows [k0, k1) of tile u's x into xs
  auto load_x = [&](long long u, int k0, int k1) {
    const long long img = u / a.ptiles, n0 = (u % a.ptiles) * kGhPixels;
    const int nvalid = a.p - n0 < kGhPixels ? static_cast<int>(a.p - n0) : kGhPixels;
    gh_copy<kThreads, kGhPixels>(xs + k0 * kGhXPitch, kGhXPitch,
                                 a.x + img * img_elems + k0 * a.p + n0, a.p, k1 - k0, a.c - k0,
                                 kGhPixels, nvalid, a.vec_x, a.x);
  };
  auto mma_range = [&](int k0, int k1, float(&acc)[2][kNJ][4]) {
#pragma unroll 2
    for (int kk = k0; kk < k1; kk += 8)
      mma_k8<true, false, false, true, Split3, 2, kNJ, kGhGPitch, kGhXPitch>(
          gs, xs, wm * 32, wn * kWarpN, kk, lane, acc);
  };

  long long u = blockIdx.x / a.halves;
  gh_copy<kThreads, 0>(gs, kGhGPitch, a.gamma + static_cast<long long>(m0) * a.c, a.c, kGhRows,
                       a.c - m0, a.cp, a.c, a.vec_gamma, a.gamma);
  cp_async_commit();
  if (u < a.units) {
    load_x(u, oth0, oth1);
    cp_async_commit();
    load_x(u, m0, own1);
  }
  cp_async_commit();
  for (; u < a.units; u += stride) {
    const long long next = u + stride;
    float acc[2][kNJ][4];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < kNJ; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;
    cp_async_wait<1>();  // gamma and this tile's other-half rows (own half may be in flight)
    __syncthreads();
    mma_range(oth0, oth1, acc);
    cp_async_wait<0>();
    __syncthreads();  // own half visible; every warp is past the other-half rows
    if (next < a.units) load_x(next, oth0, oth1);
    cp_async_commit();
    mma_range(m0, own1, acc);

    // Epilogue: c0..c3 of mma tile (i, j) at channels g, g + 8 and pixels 2t, 2t + 1.
    const long long img = u / a.ptiles, n0 = (u % a.ptiles) * kGhPixels;
    const int nvalid = a.p - n0 < kGhPixels ? static_cast<int>(a.p - n0) : kGhPixels;
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int m = m0 + wm * 32 + i * 16 + g + h * 8;
        if (m >= a.c) continue;
        const float b = __ldg(a.beta + m);
        float* yrow = a.y + img * img_elems + static_cast<long long>(m) * a.p + n0;
        const float* xrow = xs + m * kGhXPitch;
#pragma unroll
        for (int j = 0; j < kNJ; ++j) {
          const int n = wn * kWarpN + j * 8 + 2 * t;
          if (n >= nvalid) continue;
          const float2 xv = *reinterpret_cast<const float2*>(xrow + n);
          const float y0 = xv.x * gdn_scale(b + acc[i][j][h * 2], a.inverse);
          const float y1 = xv.y * gdn_scale(b + acc[i][j][h * 2 + 1], a.inverse);
          if (n + 1 < nvalid && a.pair) {
            __stcs(reinterpret_cast<float2*>(yrow + n), make_float2(y0, y1));
          } else {
            __stcs(yrow + n, y0);
            if (n + 1 < nvalid) __stcs(yrow + n + 1, y1);
          }
        }
      }
    __syncthreads();  // every warp is done with the own-half rows
    if (next < a.units) load_x(next, m0, own1);
    cp_async_commit();
  }
  cp_async_wait<0>();
}

}  // namespace gdn
}  // namespace gpuopt
