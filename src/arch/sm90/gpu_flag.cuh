// Flags in global memory through which blocks of one grid hand work to each other in order
// (acquire / release at gpu scope): one thread of the waiting block spins on the flag, one thread
// of the finished block sets it after a barrier of the threads whose stores it publishes.
#pragma once

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// Spins until *flag == value; the caller's later loads see what the setter published. sleep_ns
// > 0: a __nanosleep between reads (many waiters at once keep off the memory system).
__device__ __forceinline__ void flag_wait_acquire(const unsigned* flag, unsigned value,
                                                  unsigned sleep_ns = 0) {
  for (;;) {
    unsigned x;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(x) : "l"(flag) : "memory");
    if (x == value) return;
    if (sleep_ns) __nanosleep(sleep_ns);
  }
}

// Publishes the stores of the threads that reached the barrier before this call (fence.sc, so
// that they are ordered before the flag at gpu scope), then sets *flag = value.
__device__ __forceinline__ void flag_set_release(unsigned* flag, unsigned value) {
  __threadfence();
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}

// Sets *flag = value with no ordering: a reader that consumed what the flag guarded puts it back
// (the flags stay zero between launches).
__device__ __forceinline__ void flag_store_relaxed(unsigned* flag, unsigned value) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
