// reduce warp_shuffle_vec: 16-byte vector loads with several in flight per thread, one register
// accumulator per load slot (independent dependency chains), then warp-shuffle trees (no
// shared-memory tree, no __syncthreads inside a warp). Each block reduces one piece of one segment;
// a segment needing several pieces combines them in a single launch: every block stores its
// partial in the stream workspace and bumps the segment's counter, and the last one reduces the
// partials in index order (deterministic, then resets the counter). Piece starts fall on 512-byte
// boundaries of the address (reduce_piece.cuh). Two shapes of the piece kernel (ReducePlan):
// - deep, SUM/MIN/MAX of one array: 8 loads in flight, 2 resident blocks per SM (up to 128
//   registers), 2048 pieces (each >= 16 KiB);
// - base, everything else: 4 loads in flight (2 for 16-/64-bit ARGMIN/ARGMAX), 4 resident blocks
//   (64 registers); one array: 1 MiB pieces, 1024 to 2048 of them; segments: 2048 blocks spread.
// f32 sums add each element into one of 16 (deep: 32) f32 lane partials per thread (one FADD;
// widened to f64 every 8 (deep: 4) rounds, so a partial holds at most 10 elements).
// Short segments (<= 512 elements) get one warp each. Improves on the textbook ladder by moving 512
// bytes per warp request and keeping 64 bytes (deep: 128) per thread in flight.
// Standalone sweep (H100, red4, same process, cub ms / ms, 2^28): deep sum i32 1.021 (i32 -> i32
// cub 1.016), f32 1.013, f64 1.020 (before: 1.009, 1.003, 1.014); max f32 +1.4% over the base
// kernel; odd n = 300000007 f32 0.947 -> 0.997, i32 0.950 -> 1.005 (512-byte piece starts). Bench
// (H200, git 5ca66c2, base kernel, 2^28, GB/s read): i32 4518, f32 4524, f64 4611, argmax f32 4272.
#include <algorithm>

#include "common/direct_launch.cuh"
#include "common/launch.hpp"
#include "kernels/reduce/reduce_piece.cuh"

namespace gpuopt {
namespace {

using red::Op;
using red::SegArgs;
using red::Traits;

constexpr int kThreads = kReduceThreads;
constexpr int kWarpsPerBlock = kThreads / 32;
// 4 resident blocks (64 registers): no spills for any op and type, 64 KiB of loads in flight per
// SM.
constexpr int kMinBlocks = 4;

// The piece kernel's shape: kUnroll 16-byte loads in flight per thread, at least kMinB resident
// blocks, f32 SUM partials widened every kLaneRounds rounds (a partial holds at most
// kLaneRounds - 1 + kUnroll - 1 = 10 elements in both shapes).
template <int kUnrollV, int kMinBlocksV>
struct Shape {
  static constexpr int kUnroll = kUnrollV, kMinB = kMinBlocksV;
  static constexpr int kLaneRounds = kReduceLaneRounds * kReduceUnroll / kUnrollV;
};
template <class Tr>
using Base = Shape<red::unroll_of<Tr>(), kMinBlocks>;
using Deep = Shape<kReduceDeepUnroll, kReduceDeepMinBlocks>;  // ReducePlan::deep

template <Op O, class T, class S>
__global__ void __launch_bounds__(kThreads, S::kMinB) wsv_piece_kernel(SegArgs a) {
  using Tr = Traits<O, T>;
  using Acc = typename Tr::Acc;
  __shared__ Acc smem[kWarpsPerBlock];
  __shared__ int is_last;
  const T* in = static_cast<const T*>(a.in);
  auto* out = static_cast<typename Tr::Out*>(a.out);
  auto* partials = static_cast<Acc*>(a.partials);
  const long long total = a.num_segments * a.splits;
  for (long long v = blockIdx.x; v < total; v += gridDim.x) {
    const long long s = v / a.splits, k = v % a.splits;
    long long b, e;
    red::segment_bounds(a, s, &b, &e);
    Acc acc = red::reduce_piece<Tr, kThreads, S::kUnroll, S::kLaneRounds>(in, b, e, k, a.splits);
    acc = red::block_reduce<Tr, kThreads>(acc, smem);
    if (a.splits == 1) {
      if (threadIdx.x == 0) out[s] = Tr::finish(acc);
    } else {
      if (threadIdx.x == 0) {
        partials[v] = acc;
        __threadfence();  // the partial is visible device-wide before the count says so
        const unsigned prev = atomicAdd(&a.counters[s], 1u);
        is_last = prev == static_cast<unsigned>(a.splits - 1);
      }
      __syncthreads();
      if (is_last) {
        __threadfence();
        Acc x = Tr::identity();
        for (long long j = threadIdx.x; j < a.splits; j += kThreads)
          x = Tr::combine(x, red::load_cg(partials + s * a.splits + j));
        x = red::block_reduce<Tr, kThreads>(x, smem);
        if (threadIdx.x == 0) {
          out[s] = Tr::finish(x);
          a.counters[s] = 0;  // ready for the next call on this stream
        }
      }
    }
    __syncthreads();  // smem and is_last are reused by the next piece
  }
}

template <Op O, class T>
__global__ void __launch_bounds__(kThreads) wsv_warp_kernel(SegArgs a) {
  using Tr = Traits<O, T>;
  const T* in = static_cast<const T*>(a.in);
  auto* out = static_cast<typename Tr::Out*>(a.out);
  const long long step = static_cast<long long>(gridDim.x) * kWarpsPerBlock;
  for (long long s = static_cast<long long>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
       s < a.num_segments; s += step) {
    long long b, e;
    red::segment_bounds(a, s, &b, &e);
    const typename Tr::Acc acc = red::reduce_warp_segment<Tr>(in, b, e);
    if (threadIdx.x % 32 == 0) out[s] = Tr::finish(acc);
  }
}

template <Op O, class T>
gpuopt_status_t launch(const ReduceProblem& p, const ExecEnv& env) {
  using Acc = typename Traits<O, T>::Acc;
  const ReducePlan plan = reduce_plan(p);
  const SegArgs a = red::seg_args(p, env, plan.splits);
  if (plan.warp_per_segment) {
    const long long blocks =
        std::min<long long>(ceil_div(a.num_segments, kWarpsPerBlock), kMaxGridX);
    return launch_direct<wsv_warp_kernel<O, T>>(
        env.fn, "reduce warp_shuffle_vec (warp per segment) kernel launch",
        static_cast<unsigned>(blocks), kThreads, 0, env.stream, a);
  }
  if (plan.splits > 1) GPUOPT_TRY(red::check_partials(env, a, plan.splits, sizeof(Acc)));
  const auto blocks =
      static_cast<unsigned>(std::min<long long>(a.num_segments * plan.splits, kMaxGridX));
  constexpr bool kHasDeep = O == Op::sum || O == Op::min || O == Op::max;
  if constexpr (kHasDeep) {
    if (plan.deep)
      return launch_direct<wsv_piece_kernel<O, T, Deep>>(
          env.fn, "reduce warp_shuffle_vec (deep) kernel launch", blocks, kThreads, 0, env.stream,
          a);
  }
  return launch_direct<wsv_piece_kernel<O, T, Base<Traits<O, T>>>>(
      env.fn, "reduce warp_shuffle_vec kernel launch", blocks, kThreads, 0, env.stream, a);
}

}  // namespace

gpuopt_status_t reduce_launch_warp_shuffle_vec(const ReduceProblem& p, const ExecEnv& env) {
  return red::with_op_type(p, env.fn, [&](auto ot, auto tt) {
    return launch<decltype(ot)::value, typename decltype(tt)::type>(p, env);
  });
}

}  // namespace gpuopt
