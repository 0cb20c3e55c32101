// Tensor Memory Accelerator (sm_90a): tensor-map prefetch, bulk tensor copies global -> shared
// (plain, with an L2 eviction policy, multicast to the cluster) completing on an mbarrier, the L2
// prefetch of a box, and the bulk tensor store shared -> global with its bulk-group commit and
// wait. Maps come from runtime/driver.hpp (cuTensorMapEncodeTiled); coordinates are elements,
// innermost first.
#pragma once
#include <cuda.h>

#include <cstdint>

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

__device__ __forceinline__ void tma_prefetch_desc(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}

// 3D tiled load of the box at {c0, c1, c2} into shared memory at dst, completing on bar.
__device__ __forceinline__ void tma_load_3d(std::uint32_t dst, const CUtensorMap* map,
                                            std::uint32_t bar, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
      : "memory");
}

// L2 eviction policies for the cache-hinted loads below (createpolicy, the whole access).
__device__ __forceinline__ std::uint64_t l2_evict_first() {
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
__device__ __forceinline__ std::uint64_t l2_evict_last() {
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
}

// tma_load_3d with an L2 eviction policy (l2_evict_first / l2_evict_last).
__device__ __forceinline__ void tma_load_3d_hint(std::uint32_t dst, const CUtensorMap* map,
                                                 std::uint32_t bar, int c0, int c1, int c2,
                                                 std::uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".L2::cache_hint [%0], [%1, {%2, %3, %4}], [%5], %6;" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "l"(policy)
      : "memory");
}

// The same load delivered to the same shared offsets (data and barrier) of every CTA in mask.
__device__ __forceinline__ void tma_load_3d_multicast(std::uint32_t dst, const CUtensorMap* map,
                                                      std::uint32_t bar, int c0, int c1, int c2,
                                                      std::uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3, %4}], [%5], %6;" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "h"(mask)
      : "memory");
}

// Prefetch of the 3D box at {c0, c1, c2} into L2 (no shared memory, no barrier).
__device__ __forceinline__ void tma_prefetch_l2_3d(const CUtensorMap* map, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

// TMA store of the 2D box at {c0, c1} from shared memory (bulk async-group completion). The
// shared writes it reads must be fenced to the async proxy first (fence_proxy_async_shared).
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, std::uint32_t src, int c0,
                                             int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(c0), "r"(c1), "r"(src)
               : "memory");
}
// Closes this thread's bulk group of stores issued since the last commit.
__device__ __forceinline__ void bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// Waits until at most kPending of this thread's bulk groups still read shared memory.
template <int kPending>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(kPending) : "memory");
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
