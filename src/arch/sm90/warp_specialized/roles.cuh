// The frame of a warp-specialized kernel (sm_90a): 128-thread warpgroups, warpgroup 0 the
// producer (its thread 0 issues every TMA load), warpgroups 1.. the consumers; optionally in
// clusters of kCluster CTAs whose producers multicast into each other's stages. An op's kernel
// is this frame plus its parts:
//   init()           thread 0 initialises the block's mbarriers (Ring::init and the op's own);
//   producer()       thread 0 of warpgroup 0: the loads, in the op's tile order;
//   consumer(c)      every thread of consumer warpgroup c: main loop and epilogue per tile, in
//                    the order of a schedule (schedule_cooperative.cuh, schedule_pingpong.cuh).
// kProducerRegs / kConsumerRegs: setmaxnreg targets (the producer gives registers back).
#pragma once
#include "arch/sm90/cluster.cuh"
#include "arch/sm90/mbarrier.cuh"
#include "arch/sm90/registers.cuh"

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// Where this CTA sits: its rank in the cluster, its cluster and the number of clusters.
struct ClusterPlace {
  int rank, cluster, clusters;
};

template <int kCluster, std::uint32_t kProducerRegs, std::uint32_t kConsumerRegs>
struct WarpSpecialized {
  static_assert(kCluster >= 1, "clusters of one CTA or more");

  // Thread 0 initialises the barriers; then every thread of the cluster meets (the peers'
  // barriers must be initialised before any multicast or remote arrive reaches them).
  template <class Init>
  static __device__ __forceinline__ ClusterPlace start(Init&& init) {
    if (threadIdx.x == 0) {
      init();
      mbar_init_fence();
    }
    cluster_or_cta_sync<kCluster>();
    ClusterPlace cp;
    cp.rank = kCluster > 1 ? static_cast<int>(cluster_ctarank()) : 0;
    cp.cluster = blockIdx.x / kCluster;
    cp.clusters = gridDim.x / kCluster;
    return cp;
  }

  // Dispatches the roles, then keeps every CTA of the cluster until none can multicast into it
  // or arrive on its barriers any more.
  template <class Producer, class Consumer>
  static __device__ __forceinline__ void run(Producer&& producer, Consumer&& consumer) {
    const int wg = threadIdx.x / 128;
    if (wg == 0) {
      setmaxnreg_dec<kProducerRegs>();
      if (threadIdx.x == 0) producer();
    } else {
      setmaxnreg_inc<kConsumerRegs>();
      consumer(wg - 1);
    }
    if constexpr (kCluster > 1) cluster_sync();
  }
};

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
