// The cooperative schedule of a warp-specialized kernel (sm_90a): every consumer warpgroup works
// on every tile of the CTA's sequence (each on its share of the tile), so a stage is released by
// each warp of each consumer, in every CTA of the cluster that the stage's multicast fills.
#pragma once
#include "arch/sm90/warp_specialized/roles.cuh"

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

template <int kConsumers, int kCluster>
struct Cooperative {
  static constexpr int kReleasers = 4 * kConsumers * kCluster;  // empty-barrier arrivals

  // The CTA's work in the order walk(f) hands it to f (the op's units cluster, cluster +
  // clusters, ..., or pieces of them: the GEMM's stream-K tail): mainloop(w), then epilogue(w).
  template <class Walk, class Mainloop, class Epilogue>
  static __device__ __forceinline__ void run(Walk&& walk, Mainloop&& mainloop,
                                             Epilogue&& epilogue) {
    walk([&](const auto& w) {
      mainloop(w);
      epilogue(w);
    });
  }
};

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
