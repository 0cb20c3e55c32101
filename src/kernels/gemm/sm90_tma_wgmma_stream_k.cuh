// sm90_tma_wgmma: the persistent work sequence of a cluster with the stream-K tail. Units
// [0, total - sk_units) run whole, unit u on cluster u % clusters (data-parallel waves); the
// last sk_units units (the partial last wave, fewer than the clusters), as one sequence of k
// blocks, are cut into `clusters` even ranges, so the tail ends on every cluster at once
// instead of leaving the clusters without a unit idle. A range is shorter than a tile: a tile's
// k blocks span two or more clusters' ranges; the one holding its last k block finishes it,
// adding the others' partials. Each cluster writes its partial first and finishes last, and
// waits only on lower clusters' partials (written before they wait on anything), so with the
// resident persistent grid nothing deadlocks. Design: docs/notes/gemm-sm90.md ("Stream-K
// tail").
#pragma once
#include <cstdint>

#include "arch/sm90/gpu_flag.cuh"
#include "arch/sm90/warp_specialized/roles.cuh"
#include "kernels/gemm/sm90_tma_wgmma.hpp"

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// A piece of work: k blocks [kb0, kb1) of unit u.
struct Work {
  int u, kb0, kb1;
};

// The tail's k-block sequence: sk units x k_blocks iterations, cluster c's range starting at
// sk_start(c) (the last cluster's range ends at the sequence's end).
__device__ __forceinline__ long long sk_start(const Params& p, int clusters, int c) {
  return static_cast<long long>(p.sk_units) * p.k_blocks * c / clusters;
}

// Calls f(Work) for each piece of the cluster's sequence, in order (producer and consumers walk
// the same sequence). kStreamK: false ignores sk_units (hooked and ping-pong instantiations).
// A tail range (shorter than a tile) is at most the end of one tile and the start of the next:
// the next tile's start (k from 0) runs first, so that every cluster reads about the same k
// blocks at the same time, as in the whole waves (the panels' k slabs stay shared in L2).
template <bool kStreamK, class F>
__device__ __forceinline__ void for_each_work(const Params& p, const ClusterPlace& cp, F&& f) {
  const int sk = kStreamK ? p.sk_units : 0;
  const int dp = p.total_units - sk;
  for (int u = cp.cluster; u < dp; u += cp.clusters) f(Work{u, 0, p.k_blocks});
  if (kStreamK && sk > 0) {
    const long long kb = p.k_blocks;
    const long long a = sk_start(p, cp.clusters, cp.cluster);
    const long long end = sk_start(p, cp.clusters, cp.cluster + 1);
    if (a == end) return;
    const int t0 = static_cast<int>(a / kb), t1 = static_cast<int>((end - 1) / kb);
    const int kb0 = static_cast<int>(a - t0 * kb);
    if (t1 == t0) {
      f(Work{dp + t0, kb0, static_cast<int>(end - t0 * kb)});
    } else {
      f(Work{dp + t1, 0, static_cast<int>(end - t1 * kb)});
      f(Work{dp + t0, kb0, static_cast<int>(kb)});
    }
  }
}

// A tail piece that does not reach the tile's last k block: the consumer threads' accumulators
// to the CTA's partial slot, then each warp raises its flag (after a warp barrier: its lanes'
// stores first).
__device__ __forceinline__ void sk_store_partial(const float (&d)[128], const Params& p, int slot) {
  const int t = static_cast<int>(threadIdx.x) - 128, lane = t & 31;
  float4* dst =
      reinterpret_cast<float4*>(p.partials + static_cast<long long>(slot) * kPartialFloats) + t;
#pragma unroll
  for (int i = 0; i < 32; ++i)
    __stcg(dst + i * 128 * kConsumers,
           make_float4(d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3]));
  __syncwarp();
  if (lane == 0) flag_set_release(p.flags + slot * kSkWarps + (t >> 5), 1u);
}

// Adds the partial in `slot` once its writer's flag (each warp its own) is up, and lowers the
// flag again (zero between launches).
__device__ __forceinline__ void sk_add_partial(float (&d)[128], const Params& p, int slot) {
  const int t = static_cast<int>(threadIdx.x) - 128, lane = t & 31;
  unsigned* flag = p.flags + slot * kSkWarps + (t >> 5);
  flag_wait_acquire(flag, 1u, 64);
  const float4* src =
      reinterpret_cast<const float4*>(p.partials + static_cast<long long>(slot) * kPartialFloats) +
      t;
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    const float4 v = __ldcg(src + i * 128 * kConsumers);
    d[4 * i] += v.x;
    d[4 * i + 1] += v.y;
    d[4 * i + 2] += v.z;
    d[4 * i + 3] += v.w;
  }
  __syncwarp();
  if (lane == 0) flag_store_relaxed(flag, 0u);
}

// The epilogue step of piece w. A piece short of the tile's last k block stores its partial
// (true: nothing else to do; a cluster writes at most one). The piece with the last k block
// finishes the tile: it adds, in cluster order, the partials of the clusters whose ranges hold
// the tile's earlier k blocks (clusters c_lo .. this one - 1), each written before its writer
// waits on anything, then the tile takes the normal epilogue.
template <int kCluster>
__device__ __forceinline__ bool sk_partial_step(float (&d)[128], const Params& p,
                                                const ClusterPlace& cp, const Work& w) {
  if (w.kb1 < p.k_blocks) {
    sk_store_partial(d, p, cp.cluster * kCluster + cp.rank);
    return true;
  }
  if (w.kb0 > 0) {
    const int dp = p.total_units - p.sk_units;
    const long long s0 = static_cast<long long>(w.u - dp) * p.k_blocks;  // the tile's first
    int c = cp.cluster - 1;
    while (c > 0 && sk_start(p, cp.clusters, c) > s0) --c;
    for (; c < cp.cluster; ++c) sk_add_partial(d, p, c * kCluster + cp.rank);
  }
  return false;
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
