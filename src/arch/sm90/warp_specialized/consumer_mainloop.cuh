// The consumer side of a warp-specialized wgmma main loop (sm_90a), one wgmma group in flight:
// per k block the consumer waits for its stage, issues the block's wgmma as one group, then
// retires the previous block's group (wait_group 1) and hands that block's stage back, so the
// tensor cores always have the next group queued while a stage returns to the producer (or, with
// retire_now, retires the block's own group and frees its stage before the next wait). The
// operands' fences (accumulators; register operands of the RS form) are the caller's, passed as
// callables: the asynchronous window must not see the compiler move them.
#pragma once
#include "arch/sm90/warp_specialized/ring.cuh"
#include "arch/sm90/wgmma.cuh"

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// One wgmma group: fence(), the fence that opens the window, issue(), commit, fence() again.
template <class Fence, class Issue>
__device__ __forceinline__ void wgmma_group(Fence&& fence, Issue&& issue) {
  fence();
  wgmma_fence();
  issue();
  wgmma_commit();
  fence();
}

template <class RingT>
struct ConsumerMainloop {
  RingT ring;
  RingPos pos;
  int prev = 0;  // stage of the k block whose group is still in flight

  // A unit's first k block retires nothing (the previous unit's drain released its last stage).
  __device__ __forceinline__ void begin_unit() { prev = 0; }
  // Waits for the stage of the next k block and returns it.
  __device__ __forceinline__ int wait() {
    ring.wait(pos);
    return pos.stage;
  }
  // After k block kb's group is committed: retires block kb - 1's group (none for kb == 0),
  // runs retired() (the fences of what it read) and releases its stage; moves to the next stage.
  template <class Retired>
  __device__ __forceinline__ void retire_previous(int kb, Retired&& retired) {
    if (kb > 0) {
      wgmma_wait<1>();
      retired();
      ring.release(prev);
    }
    prev = pos.stage;
    pos.template advance<RingT::kNumStages>();
  }
  // The other discipline, instead of retire_previous and drain: after k block kb's group is
  // committed, waits for it (wait_group 0), runs retired() and releases its stage at once. A
  // stage is then held only while its own group runs, so more of the ring is in flight to the
  // producer; the tensor cores see no group queued behind it (another warpgroup's must keep them
  // busy). sm90_onepass_fused's tf32 GEMMs: the kernel 331 -> 310 us (H100, ncu), their k blocks
  // waited on gamma fills with only 2 of 6 stages prefetching.
  template <class Retired>
  __device__ __forceinline__ void retire_now(Retired&& retired) {
    wgmma_wait<0>();
    retired();
    ring.release(pos.stage);
    pos.template advance<RingT::kNumStages>();
  }
  // After the last k block: retires every group and releases the last stage.
  template <class Retired>
  __device__ __forceinline__ void drain(Retired&& retired) {
    wgmma_wait<0>();
    retired();
    ring.release(prev);
  }
  // A fill this consumer does not read: waited for and handed back at once.
  __device__ __forceinline__ void pass() {
    ring.wait(pos);
    ring.release(pos.stage);
    pos.template advance<RingT::kNumStages>();
  }
};

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
