// The sm90_tma_wgmma GEMM kernel (sm_90a): a persistent, warp-specialized TMA + wgmma pipeline.
// Design and layout mapping: docs/notes/gemm-sm90.md.
//
// The kernel computes D = P * Q^T in wgmma terms, with D(j, i) = C(i, j): the wgmma M dimension
// runs over gpuopt's n (columns of C), the wgmma N dimension over gpuopt's m (rows of C), so each
// thread's accumulator pairs are two consecutive rows of one column of C (8-byte stores).
//   P (wgmma A, kBlockM x K tile): P(j, kk) = op(B)(kk, j); K-major when trans_b == N.
//   Q (wgmma B, kBlockN x K tile): Q(i, kk) = op(A)(i, kk); K-major when trans_a == T.
// Block: 384 threads = producer warpgroup (one thread issues TMA) + 2 consumer warpgroups, each
// computing 64 x 256 of the 128 x 256 tile with wgmma m64n256. Shared memory: kStages stages of
// (P tile, Q tile), each row of a tile 128 bytes of K, 128-byte swizzled by TMA.
#pragma once
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "kernels/gemm/sm90_ptx.cuh"
#include "kernels/gemm/sm90_tma_wgmma.hpp"

namespace gpuopt {
namespace sm90 {

struct TileCoord {
  int x, y, b;  // column tile (kBlockM columns), row tile (kBlockN rows), batch
};

// Unit u of the persistent order, for the CTA of cluster rank `rank`: batch-major; inside a
// batch, groups of kGroupX column tiles, each group walked column unit fastest, so the CTAs
// running together share panels in L2.
template <int kCluster>
__device__ __forceinline__ TileCoord decode_unit(int u, const Params& p, int rank) {
  constexpr int kGroupUnits = kGroupX / kCluster;
  TileCoord tc;
  tc.b = u / p.units_per_batch;
  const int r = u - tc.b * p.units_per_batch;
  const int group_units = kGroupUnits * p.tiles_y;
  const int g = r / group_units;
  const int first_x = g * kGroupUnits;
  const int width = min(p.units_x - first_x, kGroupUnits);
  const int w = r - g * group_units;
  tc.x = (first_x + w % width) * kCluster + rank;
  tc.y = w / width;
  return tc;
}

template <class T>
__device__ __forceinline__ float out_to_float(T v) {
  return static_cast<float>(v);
}
template <>
__device__ __forceinline__ float out_to_float<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <>
__device__ __forceinline__ float out_to_float<__half>(__half v) {
  return __half2float(v);
}
template <class T>
__device__ __forceinline__ T float_to_out(float v) {
  return v;
}
template <>
__device__ __forceinline__ __nv_bfloat16 float_to_out<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ __forceinline__ __half float_to_out<__half>(float v) {
  return __float2half_rn(v);
}

// Stores rows i and i + 1 (valid of them: 0, 1 or 2) of one column of C at ptr:
// alpha * v + beta * C, reading C only when kReadC.
template <class TOut, bool kReadC>
__device__ __forceinline__ void store_pair(TOut* ptr, float v0, float v1, int valid, bool pair,
                                           float alpha, float beta) {
  v0 *= alpha;
  v1 *= alpha;
  if (valid == 2 && pair) {
    if constexpr (sizeof(TOut) == 4) {
      float2* q = reinterpret_cast<float2*>(ptr);
      if constexpr (kReadC) {
        const float2 c = *q;
        v0 = fmaf(beta, c.x, v0);
        v1 = fmaf(beta, c.y, v1);
      }
      *q = make_float2(v0, v1);
    } else if constexpr (std::is_same<TOut, __nv_bfloat16>::value) {
      __nv_bfloat162* q = reinterpret_cast<__nv_bfloat162*>(ptr);
      if constexpr (kReadC) {
        const float2 c = __bfloat1622float2(*q);
        v0 = fmaf(beta, c.x, v0);
        v1 = fmaf(beta, c.y, v1);
      }
      *q = __floats2bfloat162_rn(v0, v1);
    } else {
      __half2* q = reinterpret_cast<__half2*>(ptr);
      if constexpr (kReadC) {
        const float2 c = __half22float2(*q);
        v0 = fmaf(beta, c.x, v0);
        v1 = fmaf(beta, c.y, v1);
      }
      *q = __floats2half2_rn(v0, v1);
    }
    return;
  }
  if (valid >= 1) {
    if constexpr (kReadC) v0 = fmaf(beta, out_to_float(ptr[0]), v0);
    ptr[0] = float_to_out<TOut>(v0);
  }
  if (valid == 2) {
    if constexpr (kReadC) v1 = fmaf(beta, out_to_float(ptr[1]), v1);
    ptr[1] = float_to_out<TOut>(v1);
  }
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// Writes one consumer's 64 x 256 accumulator block. Accumulator layout of m64n256 (f32): for
// 8-column chunk j, d[4j + {0,1}] = D(r, 8j + 2q + {0,1}), d[4j + {2,3}] = D(r + 8, ...), with
// r = 16 * warp + lane / 4 and q = lane % 4.
template <class TOut, bool kReadC>
__device__ __forceinline__ void epilogue(const float (&d)[128], const Params& p, TileCoord tc,
                                         int consumer) {
  const int warp = (threadIdx.x >> 5) & 3, lane = threadIdx.x & 31;
  const int col = tc.x * kBlockM + consumer * 64 + warp * 16 + (lane >> 2);  // column of C
  const int row0 = tc.y * kBlockN + 2 * (lane & 3);                          // row of C
  TOut* base = static_cast<TOut*>(p.C) + static_cast<long long>(tc.b) * p.stride_c;
  const bool pair = p.pair_store != 0;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int c = col + 8 * half;
    if (c >= p.n) continue;
    TOut* column = base + static_cast<long long>(c) * p.ldc;
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      const int i = row0 + 8 * j;
      const int valid = p.m - i >= 2 ? 2 : (p.m - i == 1 ? 1 : 0);
      if (valid == 0) continue;
      store_pair<TOut, kReadC>(column + i, d[4 * j + 2 * half], d[4 * j + 2 * half + 1], valid,
                               pair, p.alpha, p.beta);
    }
  }
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// TIn: the input element type (__nv_bfloat16, __half, or float for tf32); TOut: C's type.
// kPK / kQK: the P / Q operand is K-major in global memory (else MN-major, 16-bit types only).
// kCluster: 1, or 2 CTAs (launched as a cluster) on consecutive column tiles of one row tile,
// each loading half of the shared Q tile and multicasting it to both.
template <class TIn, class TOut, bool kPK, bool kQK, int kCluster>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_sm90_tma_wgmma_kernel(const __grid_constant__ CUtensorMap map_p,
                               const __grid_constant__ CUtensorMap map_q, const Params p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Mma = MmaFor<TIn>;
  constexpr int kElem = static_cast<int>(sizeof(TIn));
  constexpr int kKElems = kRowBytes / kElem;        // K elements per stage
  constexpr int kChunkBytes = kKElems * kRowBytes;  // MN-major: one 64-wide chunk of a tile
  constexpr int kMnBox = kRowBytes / kElem;         // MN-major box width (elements)
  // Descriptor strides: K-major SBO = 8 rows x 128 B; MN-major LBO = chunk, SBO = 8 K-rows.
  constexpr std::uint32_t kLboP = kPK ? 16 : kChunkBytes, kLboQ = kQK ? 16 : kChunkBytes;
  constexpr std::uint32_t kSbo = 1024;
  // Start-address step per wgmma: 32 bytes of K (K-major), or 32 / kElem K-rows (MN-major).
  constexpr std::uint32_t kStepP = kPK ? 32 : (32 / kElem) * kRowBytes;
  constexpr std::uint32_t kStepQ = kQK ? 32 : (32 / kElem) * kRowBytes;
  static_assert(kPK || kElem == 2, "MN-major operands need a 16-bit type");
  static_assert(kQK || kElem == 2, "MN-major operands need a 16-bit type");
  static_assert(kCluster == 1 || kCluster == 2, "clusters of 1 or 2");
  constexpr int kQRows = kBlockN / kCluster;  // rows of Q this CTA loads (and multicasts)

  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) std::uint64_t bars[2 * kStages];  // full[0..S), empty[S..2S)
  const std::uint32_t tiles = (smem_addr(smem_raw) + 1023u) & ~1023u;
  const std::uint32_t full0 = smem_addr(&bars[0]);
  const std::uint32_t empty0 = smem_addr(&bars[kStages]);

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(full0 + 8 * s, 1);                           // the producer's arrive.expect_tx
      mbar_init(empty0 + 8 * s, 4 * kConsumers * kCluster);  // each consumer warp, each CTA
    }
    mbar_init_fence();
  }
  // The peer's barriers must be initialised before any multicast or remote arrive reaches them.
  if constexpr (kCluster > 1)
    cluster_sync();
  else
    __syncthreads();
  const int rank = kCluster > 1 ? static_cast<int>(cluster_ctarank()) : 0;
  const int cluster_id = blockIdx.x / kCluster, num_clusters = gridDim.x / kCluster;

  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    // Producer warpgroup: one thread walks the tiles and k blocks and issues the TMA loads.
    setmaxnreg_dec<kProducerRegs>();
    if (threadIdx.x == 0) {
      tma_prefetch_desc(&map_p);
      tma_prefetch_desc(&map_q);
      int stage = 0;
      std::uint32_t phase = 0;
      for (int u = cluster_id; u < p.total_units; u += num_clusters) {
        const TileCoord tc = decode_unit<kCluster>(u, p, rank);
        const int x0 = tc.x * kBlockM, y0 = tc.y * kBlockN;
        for (int kb = 0; kb < p.k_blocks; ++kb) {
          // Round r of a stage waits for the consumers' release of round r - 1 (parity of
          // phase ^ 1: passes at once in round 0); with a cluster, both CTAs' consumers release
          // (the multicast writes the peer's stage too).
          mbar_wait(empty0 + 8 * stage, phase ^ 1u);
          const std::uint32_t full = full0 + 8 * stage;
          mbar_arrive_expect_tx(full, kStageBytes);
          const std::uint32_t sp = tiles + stage * kStageBytes, sq = sp + kTilePBytes;
          const int k0 = kb * kKElems;
          if constexpr (kPK) {
            tma_load_3d(sp, &map_p, full, k0, x0, tc.b);
          } else {
#pragma unroll
            for (int c = 0; c < kBlockM / kMnBox; ++c)
              tma_load_3d(sp + c * kChunkBytes, &map_p, full, x0 + c * kMnBox, k0, tc.b);
          }
          // Q: this CTA's kQRows rows; with a cluster, multicast into both CTAs (each CTA's
          // full barrier expects the whole stage: its P, its half of Q and the peer's half).
          if constexpr (kQK) {
            const std::uint32_t dst = sq + rank * kQRows * kRowBytes;
            if constexpr (kCluster > 1)
              tma_load_3d_multicast(dst, &map_q, full, k0, y0 + rank * kQRows, tc.b, 0x3);
            else
              tma_load_3d(dst, &map_q, full, k0, y0, tc.b);
          } else {
#pragma unroll
            for (int i = 0; i < kQRows / kMnBox; ++i) {
              const int c = rank * (kQRows / kMnBox) + i;
              if constexpr (kCluster > 1)
                tma_load_3d_multicast(sq + c * kChunkBytes, &map_q, full, y0 + c * kMnBox, k0, tc.b,
                                      0x3);
              else
                tma_load_3d(sq + c * kChunkBytes, &map_q, full, y0 + c * kMnBox, k0, tc.b);
            }
          }
          if (++stage == kStages) {
            stage = 0;
            phase ^= 1u;
          }
        }
      }
    }
  } else {
    // Consumer warpgroups: wgmma over each stage, one wgmma group kept in flight.
    setmaxnreg_inc<kConsumerRegs>();
    const int consumer = wg - 1;
    const int lane = threadIdx.x & 31;
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; ++i) d[i] = 0.f;
    int stage = 0;
    std::uint32_t phase = 0;
    // Hands a stage back: to this CTA's producer and, with a cluster, the peer's (whose
    // multicast also fills this CTA's stage).
    auto release = [&](int s) {
      if (lane == 0) {
        if constexpr (kCluster > 1) {
#pragma unroll
          for (int c = 0; c < kCluster; ++c) mbar_arrive_cluster(empty0 + 8 * s, c);
        } else {
          mbar_arrive(empty0 + 8 * s);
        }
      }
    };
    for (int u = cluster_id; u < p.total_units; u += num_clusters) {
      const TileCoord tc = decode_unit<kCluster>(u, p, rank);
      int prev = 0;
      for (int kb = 0; kb < p.k_blocks; ++kb) {
        mbar_wait(full0 + 8 * stage, phase);
        const std::uint32_t sp = tiles + stage * kStageBytes + consumer * 64 * kRowBytes;
        const std::uint32_t sq = tiles + stage * kStageBytes + kTilePBytes;
        fence_operands(d);
        wgmma_fence();
#pragma unroll
        for (int s = 0; s < kMmaPerStage; ++s) {
          const std::uint64_t dp = gmma_desc(sp + s * kStepP, kLboP, kSbo);
          const std::uint64_t dq = gmma_desc(sq + s * kStepQ, kLboQ, kSbo);
          Mma::template mma<kPK ? 0 : 1, kQK ? 0 : 1>(d, dp, dq, (kb | s) != 0 ? 1u : 0u);
        }
        wgmma_commit();
        fence_operands(d);
        if (kb > 0) {
          // The previous k block's group is complete: hand its stage back to the producer.
          wgmma_wait<1>();
          fence_operands(d);
          release(prev);
        }
        prev = stage;
        if (++stage == kStages) {
          stage = 0;
          phase ^= 1u;
        }
      }
      wgmma_wait<0>();
      fence_operands(d);
      release(prev);
      if (p.beta == 0.f)
        epilogue<TOut, false>(d, p, tc, consumer);
      else
        epilogue<TOut, true>(d, p, tc, consumer);
    }
  }
  // No CTA may leave while its peer can still multicast into it or arrive on its barriers.
  if constexpr (kCluster > 1) cluster_sync();
#else
  __trap();  // never launched off sm_90a (the registry's exact_cc 90)
#endif  // __CUDA_ARCH_FEAT_SM90_ALL
}

}  // namespace sm90
}  // namespace gpuopt
