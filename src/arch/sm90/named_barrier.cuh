// Named CTA barriers (bar.sync / bar.arrive with an id and a thread count): how warpgroups of one
// CTA hand work to each other without stopping the whole block (id 0 is __syncthreads').
#pragma once
#include <cstdint>

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// The waiting side's bar.sync completes once `threads` threads in all (the waiters and those
// calling named_arrive) have reached barrier `id`.
__device__ __forceinline__ void named_sync(std::uint32_t id, std::uint32_t threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_arrive(std::uint32_t id, std::uint32_t threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
