// The stage ring of a warp-specialized kernel (sm_90a): kStages shared-memory stages, each with a
// `full` mbarrier (the producer's arrive.expect_tx; the TMA copies complete it) and an `empty`
// one (the consumer warps' releases, from every CTA of the cluster when the producers
// multicast). Producer and consumers walk the same sequence of fills, each with its own
// RingPos; a stage's round r waits for phase parity r % 2.
#pragma once
#include <cstdint>

#include "arch/sm90/mbarrier.cuh"

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// A position in the ring's sequence of fills: the stage and the parity of its current round.
struct RingPos {
  int stage = 0;
  std::uint32_t phase = 0;

  template <int kStages>
  __device__ __forceinline__ void advance() {
    if (++stage == kStages) {
      stage = 0;
      phase ^= 1u;
    }
  }
  // Moves over n fills at once (a consumer passing fills meant for another).
  template <int kStages>
  __device__ __forceinline__ void skip(int n) {
    const int t = stage + n;
    const int wraps = t / kStages;
    phase ^= static_cast<std::uint32_t>(wraps & 1);
    stage = t - wraps * kStages;
  }
};

// The barriers of the ring: full[s] at full0 + 8 s, empty[s] at empty0 + 8 s (shared addresses).
template <int kStages, int kCluster>
struct Ring {
  static constexpr int kNumStages = kStages;
  std::uint32_t full0, empty0;

  __device__ __forceinline__ std::uint32_t full(int s) const { return full0 + 8 * s; }
  __device__ __forceinline__ std::uint32_t empty(int s) const { return empty0 + 8 * s; }

  // One thread, before the block's first barrier: `releasers` arrivals empty a stage.
  __device__ __forceinline__ void init(std::uint32_t releasers) const {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(full(s), 1);  // the producer's arrive.expect_tx
      mbar_init(empty(s), releasers);
    }
  }

  // Producer: waits until the consumers released the stage's previous round (parity phase ^ 1:
  // passes at once in round 0), arms its full barrier for `bytes` and returns that barrier.
  __device__ __forceinline__ std::uint32_t acquire(const RingPos& pos, std::uint32_t bytes) const {
    mbar_wait(empty(pos.stage), pos.phase ^ 1u);
    const std::uint32_t bar = full(pos.stage);
    mbar_arrive_expect_tx(bar, bytes);
    return bar;
  }

  // Consumer: waits until the stage at pos is filled.
  __device__ __forceinline__ void wait(const RingPos& pos) const {
    mbar_wait(full(pos.stage), pos.phase);
  }

  // Consumer warp: hands stage s back to the producer of every CTA that fills it.
  __device__ __forceinline__ void release(int s) const { release_stage<kCluster>(empty(s)); }
};

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
