// gdn sm90_onepass_fused: a consumer warpgroup (the warp-specialized skeleton's main-loop and
// epilogue parts; design in sm90_onepass_bwd_kernel.cuh): per tile GEMM 1 (z), epilogue 1 (t,
// dx0, t into the slot as GEMM 2's operand), the dbeta sum, and GEMM 2 (u) with epilogue 2 (dx)
// in two halves; dead tiles only walk the ring and hand the slots back.
#pragma once
#include <cstdint>

#include "arch/sm80/mma_sync.cuh"
#include "arch/sm90/fence.cuh"
#include "arch/sm90/mbarrier.cuh"
#include "arch/sm90/named_barrier.cuh"
#include "arch/sm90/smem.cuh"
#include "arch/sm90/warp_specialized/consumer_mainloop.cuh"
#include "arch/sm90/warp_specialized/ring.cuh"
#include "arch/sm90/wgmma.cuh"
#include "kernels/gdn/gdn_math.cuh"
#include "kernels/gdn/gdn_mma.cuh"
#include "kernels/gdn/sm90_onepass_bwd_tiles.cuh"
#include "kernels/gemm/sm90_tma_wgmma_regp.cuh"

namespace gpuopt {
namespace gdn_onepass {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// dbeta of channel k over the tile: t's column k (in the slot at sx) summed over the tile's rows
// in a fixed order (rows r % 4 in four sums, then those in order: a quarter of the dependent
// adds).
__device__ __forceinline__ float dbeta_tile(std::uint32_t sx, int k) {
  float s4[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll 8
  for (int r = 0; r < kTilePx; ++r) s4[r & 3] += __uint_as_float(sm90::lds32(sx + t_offset(r, k)));
  return (s4[0] + s4[1]) + (s4[2] + s4[3]);
}

// dx0 of a GEMM 2 half back from L2 (dx0[j]: channel c0 + 8 (j / 2) + j % 2 at pixels pix,
// pix + 1), loaded before the half's GEMM so it arrives under it.
__device__ __forceinline__ void load_dx0(float2 (&dx0)[16], const Params& p, int c0, bool valid,
                                         long long pix) {
  const long long pp = opaque(p.p), base = opaque(pix);
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    const int c = c0 + 8 * (j >> 1) + (j & 1);
    dx0[j] = c < p.c && valid ? __ldcg(reinterpret_cast<const float2*>(p.dx + (base + c * pp)))
                              : make_float2(0.f, 0.f);
  }
}

// GEMM 1 of a tile for consumer cw: d = z - beta = x^2 gamma^T over kbn k blocks of 32 channels
// (this consumer's fill of each pair; x from the slot at sx, register-operand offsets off_a0,
// off_a1). f32 (3xTF32 with its two corrections as one bf16 wgmma): x^2 split in registers
// into TF32 hi (a) and the bf16 pairs (x2 - hi, hi) (lo); the gamma pair fill (g, g_lo) serves
// x2_lo g + x2_hi g_lo (m64n128k16: k 2j, 2j + 1 are the TF32 k j's two terms), the hi fill
// x2_hi g_hi. tf32 retires each k block's group at once (retire_now: more fills prefetch).
template <bool kF32, class Mainloop>
__device__ __forceinline__ void gemm1(float (&d)[64], Mainloop& ml, int cw, std::uint32_t sx,
                                      std::uint32_t off_a0, std::uint32_t off_a1,
                                      std::uint32_t ring_base, int kbn) {
  using namespace sm90;
  constexpr int kP = kParts<kF32>;
  // (lo is free again when a k block starts: its reader, the pair fill's group of the previous
  // k block, retired at that block's second retire; a, read by the hi fill's group, is double-
  // buffered)
  std::uint32_t a0[16], a1[16], lo[kF32 ? 16 : 1];
  ml.begin_unit();
  auto fence = [&] { fence_operands(d); };
  auto step = [&](std::uint32_t(&a)[16], std::uint32_t(&other)[16], int kb) {
    if (cw == 1) ml.pass();
    int stage = ml.wait();
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      lds64(sx + off_a0 + kb * kXBlockBytes + 1024 * s, a[4 * s], a[4 * s + 1]);
      lds64(sx + off_a1 + kb * kXBlockBytes + 1024 * s, a[4 * s + 2], a[4 * s + 3]);
    }
#pragma unroll
    for (int e = 0; e < 16; ++e) {
      const float v = __uint_as_float(a[e]);
      if constexpr (kF32)
        gdn::split_parts<true, true, true, true>(v * v, a[e], lo[e]);
      else
        a[e] = __float_as_uint(v * v);
    }
    std::uint32_t sb = ring_base + stage * kFillBytes;
    wgmma_group(fence, [&] {
#pragma unroll
      for (int s = 0; s < 4; ++s) {
        if constexpr (kF32) {
          WgmmaBf16Rs::mma(d, &lo[4 * s], gmma_desc(sb + 32 * s, 16, 1024),
                           (kb | s) != 0 ? 1u : 0u);
        } else {
          WgmmaTf32Rs::mma(d, &a[4 * s], gmma_desc(sb + 32 * s, 16, 1024), (kb | s) != 0 ? 1u : 0u);
        }
      }
    });
    if constexpr (kF32) {
      ml.retire_previous(kP * kb, [&] {
        fence_operands(d);
        fence_regs(other);
      });
    } else {
      ml.retire_now([&] {
        fence_operands(d);
        fence_regs(a);
        fence_regs(other);
      });
    }
    if (cw == 0) ml.pass();
    if constexpr (kF32) {
      if (cw == 1) ml.pass();
      stage = ml.wait();
      sb = ring_base + stage * kFillBytes;
      wgmma_group(fence, [&] {
#pragma unroll
        for (int s = 0; s < 4; ++s)
          WgmmaTf32Rs::mma(d, &a[4 * s], gmma_desc(sb + 32 * s, 16, 1024), 1u);
      });
      ml.retire_previous(kP * kb + 1, [&] {
        fence_operands(d);
        fence_regs(a);
        fence_regs(lo);
      });
      if (cw == 0) ml.pass();
    }
  };
  for (int kb = 0; kb < kbn; kb += 2) {
    step(a0, a1, kb);
    if (kb + 1 < kbn) step(a1, a0, kb + 1);
  }
  if constexpr (kF32) {
    ml.drain([&] {
      fence_operands(d);
      fence_regs(a0);
      fence_regs(a1);
      fence_regs(lo);
    });
  }
}

// GEMM 2 of a tile half for consumer cw: u = t gamma over kbn k blocks of 32 channels of t (t in
// the slot at sx; this thread's register-operand rows row0, row0 + 8, column q); tf32 retires each
// k block's group at once, as GEMM 1.
template <bool kF32, class Mainloop>
__device__ __forceinline__ void gemm2_half(float (&u)[32], Mainloop& ml, int cw, std::uint32_t sx,
                                           std::uint32_t ring_base, int kbn, int row0, int q) {
  using namespace sm90;
  auto fence_u = [&] { fence_operands(u); };
  ml.begin_unit();
  if constexpr (kF32) {
    // 3xTF32, its two corrections as one bf16 wgmma: the bf16 pairs (t - trunc(t), trunc(t))
    // as the register operand (rows row0, row0 + 8) against the gamma^T pair fill (g, g_lo);
    // t (truncated by the tensor cores) against the hi fill. One tl serves every k block: its
    // group (the pair fill's) retires at the block's second retire, before the next block loads
    // tl.
    std::uint32_t tl[16];
    for (int kb = 0; kb < kbn; ++kb) {
      int stage = ml.wait();
      std::uint32_t sb = ring_base + stage * kFillBytes + cw * 64 * 128;
      const std::uint32_t sa = sx + kb * kTBlockBytes;
#pragma unroll
      for (int s = 0; s < 4; ++s) {
        const int k = 32 * kb + 8 * s + q;
        const uint4 lo = sm80::bf16_correction_pairs_trunc<true>(
            make_uint4(lds32(sx + t_offset(row0, k)), lds32(sx + t_offset(row0 + 8, k)),
                       lds32(sx + t_offset(row0, k + 4)), lds32(sx + t_offset(row0 + 8, k + 4))));
        tl[4 * s] = lo.x;
        tl[4 * s + 1] = lo.y;
        tl[4 * s + 2] = lo.z;
        tl[4 * s + 3] = lo.w;
      }
      wgmma_group(fence_u, [&] {
#pragma unroll
        for (int s = 0; s < 4; ++s) {
          WgmmaBf16Rs::mma(u, &tl[4 * s], gmma_desc(sb + 32 * s, 16, 1024),
                           (kb | s) != 0 ? 1u : 0u);
        }
      });
      ml.retire_previous(2 * kb, fence_u);
      stage = ml.wait();
      sb = ring_base + stage * kFillBytes + cw * 64 * 128;
      wgmma_group(fence_u, [&] {
#pragma unroll
        for (int s = 0; s < 4; ++s)
          WgmmaTf32::mma<0, 0>(u, gmma_desc(sa + 32 * s, 16, 1024),
                               gmma_desc(sb + 32 * s, 16, 1024), 1u);
      });
      ml.retire_previous(2 * kb + 1, [&] {
        fence_u();
        fence_regs(tl);
      });
    }
    ml.drain([&] {
      fence_u();
      fence_regs(tl);
    });
  } else {
    for (int kb = 0; kb < kbn; ++kb) {
      const int stage = ml.wait();
      const std::uint32_t sb = ring_base + stage * kFillBytes + cw * 64 * 128;
      const std::uint32_t sa = sx + kb * kTBlockBytes;
      wgmma_group(fence_u, [&] {
#pragma unroll
        for (int s = 0; s < 4; ++s)
          WgmmaTf32::mma<0, 0>(u, gmma_desc(sa + 32 * s, 16, 1024),
                               gmma_desc(sb + 32 * s, 16, 1024), (kb | s) != 0 ? 1u : 0u);
      });
      ml.retire_now(fence_u);
    }
  }
}

// Consumer warpgroup cw over the CTA's `tiles` tiles, on the skeleton's helpers
// (ConsumerMainloop). At 232 registers ptxas is sensitive to the order in which this code reaches
// it: split into member functions of a consumer struct (the same PTX instructions, a few in
// another order) it spilled 136 bytes (sm_90a, -Xptxas -v). The two main loops above are free
// functions called in place: the PTX is the single function's (the cubin byte-identical), no
// spills.
template <int kCluster, bool kInverse, bool kF32, class RingT>
__device__ __forceinline__ void consume(const Params& p, int cw, const sm90::ClusterPlace& cp,
                                        const RingT& ring, std::uint32_t ring_base,
                                        std::uint32_t slot0, std::uint32_t sfull0,
                                        std::uint32_t sempty0, float* sbeta, int tiles) {
  using namespace sm90;
  const int cluster = cp.cluster, clusters = cp.clusters, rank = cp.rank;
  const int kbn = p.kblocks;
  constexpr int kP = kParts<kF32>;
  const int fills = 4 * kP * kbn;
  const int warp = (threadIdx.x >> 5) & 3, lane = threadIdx.x & 31, q = lane & 3;
  const RegRows rr = reg_rows();
  // GEMM 1's A: x rows j = 32 kb + 8 s + q (and + 4) at pixels prow, prow + 1.
  const std::uint32_t pxb = rr.box * kBoxBytes + (rr.prow & 3) * 4;
  const std::uint32_t off_a0 = pxb + 128 * q + ((rr.chunk ^ q) << 4);
  const std::uint32_t off_a1 = pxb + 128 * (q + 4) + ((rr.chunk ^ q ^ 4) << 4);
  const int row0 = 16 * warp + (lane >> 2);  // GEMM 2's A rows row0 (prow), row0 + 8 (prow + 1)
  const int c_lo = 128 * cw + 2 * q;   // channel of accumulator pair j: c_lo + 8 (j / 2) + j % 2
  const int kcol = threadIdx.x - 128;  // dbeta channel of this thread
  sbeta[kcol] = kcol < p.c ? p.beta[kcol] : 1.f;  // (read after epilogue 1's first barrier)
  const std::uint32_t sbeta0 = smem_addr(sbeta);
  float bsum = 0.f;
  // (a fill's readers are wgmma, complete at the warp-wide wait_group, or no one)
  ConsumerMainloop<RingT> ml{ring};
  auto release_slot = [&](int s) {
    __syncwarp();
    if (lane == 0) mbar_arrive(sempty0 + 8 * s);
  };
  for (int i = 0; i < tiles; ++i) {
    const Tile tl = tile_of<kCluster>(i, p, cluster, clusters, rank);
    const int sxi = i & 1, sdi = (i + 1) & 1;  // slots of x(i) (then t(i)) and dy(i)
    const std::uint32_t sx = slot0 + sxi * kSlotBytes, sd = slot0 + sdi * kSlotBytes;
    const std::uint32_t par = i & 1;  // x(i) and dy(i) are fill i of their slots
    mbar_wait(sfull0 + 8 * sxi, par);
    if (tl.live) {
      const int px = tl.px0 + rr.prow;
      const bool valid = px < p.p;
      const long long pix = tl.n * p.img + px;
      float d[64];
      gemm1<kF32>(d, ml, cw, sx, off_a0, off_a1, ring_base, kbn);
      // Epilogue 1, per 32-channel block K = 4 cw + kk of this consumer.
      named_sync(1, 256);
      mbar_wait(sfull0 + 8 * sdi, par);
      const long long pp1 = opaque(p.p), base1 = opaque(pix);
      // x and dy pairs of block kk + 1 are loaded while block kk's math runs (two register
      // buffers): the block barrier of kk only orders block kk's loads before its t writes.
      float2 xr2[2][8], dyr2[2][8];
      auto load_pairs = [&](int kk, float2(&xr)[8], float2(&dyr)[8]) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const int c = c_lo + 32 * kk + 8 * (j >> 1) + (j & 1);
          const std::uint32_t off =
              (c >> 5) * kXBlockBytes + pxb + (c & 31) * 128 + ((rr.chunk ^ (c & 7)) << 4);
          std::uint32_t v0, v1;
          lds64(sx + off, v0, v1);
          xr[j] = make_float2(__uint_as_float(v0), __uint_as_float(v1));
          lds64(sd + off, v0, v1);
          dyr[j] = make_float2(__uint_as_float(v0), __uint_as_float(v1));
        }
      };
      load_pairs(0, xr2[0], dyr2[0]);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        named_sync(2 + cw, 128);
        if (kk < 3) load_pairs(kk + 1, xr2[(kk + 1) & 1], dyr2[(kk + 1) & 1]);
        const float2(&xr)[8] = xr2[kk & 1];
        const float2(&dyr)[8] = dyr2[kk & 1];
        // (z's math after the barrier, not hoisted above it with every block's values live)
        fence_operands(d);
#pragma unroll
        for (int n8 = 4 * kk; n8 < 4 * kk + 4; ++n8) {
          float2 tt[2];
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int j = 2 * n8 + e;
            const int c = c_lo + 8 * n8 + e;
            const bool ok = c < p.c && valid;
            const float b = __uint_as_float(lds32(sbeta0 + 4 * c));
            const float z0 = b + d[4 * n8 + e], z1 = b + d[4 * n8 + 2 + e];
            const float s0 = gdn_scale(z0, kInverse), s1 = gdn_scale(z1, kInverse);
            const float2 xv = xr[j & 7], dv = dyr[j & 7];
            d[4 * n8 + e] = xv.x;
            d[4 * n8 + 2 + e] = xv.y;
            float t0 = dv.x * xv.x * gdn_dscale(z0, s0, kInverse);
            float t1 = dv.y * xv.y * gdn_dscale(z1, s1, kInverse);
            if (!ok) t0 = t1 = 0.f;
            if (ok) {
              const long long at = base1 + c * pp1;
              __stcs(reinterpret_cast<float2*>(p.t + at), make_float2(t0, t1));
              // dx0 = dy s into dx until epilogue 2 (an L2 round trip: 64 more registers
              // through GEMM 2 spilled)
              *reinterpret_cast<float2*>(p.dx + at) = make_float2(dv.x * s0, dv.y * s1);
            }
            tt[e] = make_float2(t0, t1);
          }
          const int c = c_lo + 8 * n8;
          sts64(sx + t_offset(row0, c), __float_as_uint(tt[0].x), __float_as_uint(tt[1].x));
          sts64(sx + t_offset(row0 + 8, c), __float_as_uint(tt[0].y), __float_as_uint(tt[1].y));
        }
      }
      release_slot(sdi);  // dy(i) read: the slot takes x(i + 1)
      fence_proxy_async_shared();
      named_sync(1, 256);
      if (kcol < 32 * kbn) bsum += dbeta_tile(sx, kcol);
        // GEMM 2 in two halves h of this consumer's channels (64 each, 32 accumulators):
        // u = t gamma over kbn k blocks of 32 channels of t, then dx = dx0 + 2 x u.
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        // this half's dx0 back from L2, under the half's GEMM
        float2 dx0[16];
        load_dx0(dx0, p, c_lo + 64 * h, valid, pix);
        float u[32];
        gemm2_half<kF32>(u, ml, cw, sx, ring_base, kbn, row0, q);
        if (h == 1) release_slot(sxi);  // t(i) read: the slot takes dy(i + 1)
        const long long pp2 = opaque(p.p), base2 = opaque(pix);
#pragma unroll
        for (int n8 = 0; n8 < 8; ++n8) {
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int j = 2 * (8 * h + n8) + e;
            const int c = c_lo + 8 * (j >> 1) + e;
            if (c < p.c && valid)
              __stcs(
                  reinterpret_cast<float2*>(p.dx + (base2 + c * pp2)),
                  make_float2(fmaf(2.f * d[2 * j - e], u[4 * n8 + e], dx0[2 * n8 + e].x),
                              fmaf(2.f * d[2 * j - e + 2], u[4 * n8 + 2 + e], dx0[2 * n8 + e].y)));
          }
        }
      }
    } else {
      // Dead tile: hand dy's slot back (the producer loads x(i + 1) there halfway through
      // this tile's fills), walk the fills (the cluster's stream), then x's slot.
      mbar_wait(sfull0 + 8 * sdi, par);
      release_slot(sdi);
      for (int f = 0; f < fills; ++f) ml.pass();
      release_slot(sxi);
    }
    // The unit's dbeta partial after its second half.
    if (tl.h == 1 && tl.unit_ok) {
      if (kcol < p.c) p.bpart[static_cast<long long>(tl.unit) * p.c + kcol] = bsum;
      bsum = 0.f;
    }
  }
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace gdn_onepass
}  // namespace gpuopt
