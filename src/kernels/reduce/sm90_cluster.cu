// reduce sm90_cluster (cc >= 9.0): a thread-block cluster of 2-8 CTAs reduces a segment together
// in a single launch. Each CTA reduces its piece (the warp_shuffle_vec piece reducer: 16-byte
// loads, 4 in flight per thread) to one value in its shared memory; after cluster.sync() CTA 0
// reads its peers' values through distributed shared memory (map_shared_rank) in rank order and
// writes the result: no workspace round trip, no counter. A segment longer than one cluster's
// worth (a whole-array sum: 256 clusters of 8) falls back to per-cluster partials in the stream
// workspace and a last-cluster-done pass in index order. Improves on warp_shuffle_vec where few
// long segments must be split over several CTAs. Bench (H200): 4230 GB/s on 2^28 i32 (0.94x
// warp_shuffle_vec), 3764 on 512 rows x 131072 f32 (0.93x), 2457 on 8192 x 8192 (0.57x: the
// cluster barriers cost more than a 16 KiB piece takes to read): never the auto choice.
#include <cooperative_groups.h>

#include <algorithm>

#include "arch/sm90/cluster_launch.hpp"
#include "common/launch.hpp"
#include "kernels/reduce/reduce_piece.cuh"

namespace gpuopt {
namespace {

using red::Op;
using red::SegArgs;
using red::Traits;

constexpr int kThreads = kReduceThreads;
constexpr int kMinBlocks = 4;  // as warp_shuffle_vec: 64 registers, no spills

// a.splits is the number of clusters per segment here; csize the CTAs per cluster.
template <Op O, class T>
__global__ void __launch_bounds__(kThreads, kMinBlocks) cluster_kernel(SegArgs a, int csize) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // clusters need sm_90; the registry never launches this below cc 9.0
#else
  namespace cg = cooperative_groups;
  using Tr = Traits<O, T>;
  using Acc = typename Tr::Acc;
  __shared__ Acc smem[kThreads / 32];
  __shared__ Acc cta_value;
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const T* in = static_cast<const T*>(a.in);
  auto* out = static_cast<typename Tr::Out*>(a.out);
  auto* partials = static_cast<Acc*>(a.partials);
  const long long cps = a.splits;  // clusters per segment
  const long long groups = a.num_segments * cps;
  const long long clusters = gridDim.x / csize;
  for (long long g = blockIdx.x / csize; g < groups; g += clusters) {
    const long long s = g / cps, c = g % cps;
    long long b, e;
    red::segment_bounds(a, s, &b, &e);
    // No f32 lane partials here: with the cluster's extra state they spill at 64 registers
    // (f32 sum fell from 4202 to 3785 GB/s on the H200); every element goes into f64.
    Acc acc = red::reduce_piece<Tr, kThreads, red::unroll_of<Tr>(), 0>(in, b, e, c * csize + rank,
                                                                       cps * csize);
    acc = red::block_reduce<Tr, kThreads>(acc, smem);
    if (threadIdx.x == 0) cta_value = acc;
    cluster.sync();  // every CTA's value is in its shared memory
    if (rank == 0 && threadIdx.x < 32) {
      const int lane = static_cast<int>(threadIdx.x);
      Acc x = lane < csize ? *cluster.map_shared_rank(&cta_value, lane) : Tr::identity();
      x = red::warp_reduce<Tr>(x);
      if (cps == 1) {
        if (lane == 0) out[s] = Tr::finish(x);
      } else {
        int last = 0;
        if (lane == 0) {
          partials[g] = x;
          __threadfence();
          last = atomicAdd(&a.counters[s], 1u) == static_cast<unsigned>(cps - 1);
        }
        if (__shfl_sync(0xffffffffu, last, 0)) {
          __threadfence();
          Acc y = Tr::identity();
          for (long long j = lane; j < cps; j += 32)
            y = Tr::combine(y, red::load_cg(partials + s * cps + j));
          y = red::warp_reduce<Tr>(y);
          if (lane == 0) {
            out[s] = Tr::finish(y);
            a.counters[s] = 0;
          }
        }
      }
    }
    cluster.sync();  // peers' values were read before they are overwritten or the CTAs exit
  }
#endif
}

template <Op O, class T>
gpuopt_status_t launch(const ReduceProblem& p, const ExecEnv& env) {
  using Acc = typename Traits<O, T>::Acc;
  const ClusterPlan plan = reduce_cluster_plan(p);
  const SegArgs a = red::seg_args(p, env, plan.clusters_per_segment);
  if (plan.needs_partials())
    GPUOPT_TRY(red::check_partials(env, a, plan.clusters_per_segment, sizeof(Acc)));
  const long long groups = a.num_segments * plan.clusters_per_segment;
  const long long clusters = std::min<long long>(groups, kMaxGridX / plan.cluster);
  cudaLaunchAttribute attr;
  cudaLaunchConfig_t cfg =
      sm90::cluster_launch_config(plan.cluster, kThreads, 0, env.stream, &attr);
  cfg.gridDim = dim3(static_cast<unsigned>(clusters * plan.cluster));
  const cudaError_t err = cudaLaunchKernelEx(&cfg, cluster_kernel<O, T>, a, plan.cluster);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return fail_cuda(err, env.fn, "reduce sm90_cluster kernel launch (cudaLaunchKernelEx)");
  }
  return check_launch(env.fn, "reduce sm90_cluster kernel launch");
}

}  // namespace

gpuopt_status_t reduce_launch_sm90_cluster(const ReduceProblem& p, const ExecEnv& env) {
  return red::with_op_type(p, env.fn, [&](auto ot, auto tt) {
    return launch<decltype(ot)::value, typename decltype(tt)::type>(p, env);
  });
}

}  // namespace gpuopt
