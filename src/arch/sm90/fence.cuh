// Proxy fences (sm_90a): ordering between the generic proxy (ordinary loads and stores) and the
// async proxy (TMA, wgmma reading shared memory).
#pragma once

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// Makes this thread's generic-proxy shared-memory writes visible to the async proxy (a TMA store
// or wgmma reading them), before the barrier that publishes them.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
