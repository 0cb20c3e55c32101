// Shared-memory transaction barriers (mbarrier, sm_90a): initialisation and its fence, arrivals
// (local, with expected TMA transaction bytes, on a peer CTA's barrier of the cluster, or when a
// thread's cp.async copies land) and the parity wait. A barrier is named by its 32-bit shared
// address (smem_addr).
#pragma once
#include <cstdint>

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

__device__ __forceinline__ void mbar_init(std::uint32_t bar, std::uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

// Makes the initialised barriers visible to the async proxy (TMA) and the other threads (a
// __syncthreads follows).
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival plus `bytes` of expected transactions (the TMA copies complete them).
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint32_t bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbar_arrive(std::uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

// Arrives on the barrier at the same shared offset in CTA `cta` of the cluster (default
// semantics, as CUTLASS's ClusterBarrier: the stage's readers are wgmma, already complete).
__device__ __forceinline__ void mbar_arrive_cluster(std::uint32_t bar, std::uint32_t cta) {
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(bar),
      "r"(cta)
      : "memory");
}

// Arrives on the barrier once every cp.async copy this thread issued before has landed (cp.async
// producers, f64_tensorcore_ws.cuh). .noinc: the barrier's expected count includes this arrival.
__device__ __forceinline__ void cp_async_mbar_arrive_noinc(std::uint32_t bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}

// Waits until the phase of parity `parity` has completed (returns at once on a fresh barrier
// when parity == 1: the phase "before" the first counts as complete).
__device__ __forceinline__ void mbar_wait(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}

// One warp hands a ring stage back: lane 0 arrives on the barrier at the same shared offset in
// every CTA of the cluster (each CTA's producer multicasts into all of them), or on this CTA's.
template <int kCluster>
__device__ __forceinline__ void release_stage(std::uint32_t bar) {
  if ((threadIdx.x & 31) != 0) return;
  if constexpr (kCluster > 1) {
#pragma unroll
    for (int c = 0; c < kCluster; ++c) mbar_arrive_cluster(bar, c);
  } else {
    mbar_arrive(bar);
  }
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
