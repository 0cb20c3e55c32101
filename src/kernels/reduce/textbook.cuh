// The multi-pass driver of the textbook rungs (neighbored, interleaved, unroll8, unroll8_warp,
// complete_unroll): pass 1 writes one partial per block into the stream workspace, each further
// pass reduces the partials of the one before with the same kernel (ping-pong between two
// workspace regions) until one block writes the result. SUM of i32/f32/f64 only; the sums
// accumulate as everywhere (reduce_ops.cuh: i32 in i64, f32 in f64).
//
// A rung is a struct with
//   static int threads(long long n);   // block size (a power of two <= 1024)
//   static constexpr int kPerThread;   // elements each thread adds before the tree
//   template <class In, class Acc, class Out>
//   static void launch(unsigned grid, int threads, cudaStream_t, const In*, long long, Out*);
// where the kernel reduces in[blockIdx.x * threads * kPerThread, ...) to out[blockIdx.x].
#pragma once
#include <utility>

#include "common/launch.hpp"
#include "kernels/reduce/reduce.hpp"
#include "kernels/reduce/reduce_ops.cuh"

namespace gpuopt {
namespace red {

template <class Rung, class T>
gpuopt_status_t textbook_run(const ReduceProblem& p, const ExecEnv& env, const char* what) {
  using Acc = typename SumTypes<T>::acc;
  using Out = typename SumTypes<T>::out;
  static_assert(sizeof(Acc) == 8, "textbook partials are 8 bytes");
  const int threads = Rung::threads(p.n);
  const long long per_block = static_cast<long long>(threads) * Rung::kPerThread;
  const T* in = static_cast<const T*>(p.in);
  Out* out = static_cast<Out*>(p.out);
  long long blocks = ceil_div(p.n, per_block);
  if (blocks <= 1) {
    Rung::template launch<T, Acc, Out>(1, threads, env.stream, in, p.n, out);
    return check_launch(env.fn, what);
  }
  if (!env.workspace || env.workspace_bytes < reduce_ws::kTotal)
    return fail(GPUOPT_ERROR_INTERNAL, env.fn, "reduce: the stream has no op workspace");
  auto* ws = static_cast<unsigned char*>(env.workspace);
  Acc* cur = reinterpret_cast<Acc*>(ws + reduce_ws::kPartialAOffset);
  Acc* other = reinterpret_cast<Acc*>(ws + reduce_ws::kPartialBOffset);
  Rung::template launch<T, Acc, Acc>(static_cast<unsigned>(blocks), threads, env.stream, in, p.n,
                                     cur);
  GPUOPT_TRY(check_launch(env.fn, what));
  long long count = blocks;
  while (true) {
    const long long next = ceil_div(count, per_block);
    if (next <= 1) {
      Rung::template launch<Acc, Acc, Out>(1, threads, env.stream, cur, count, out);
      return check_launch(env.fn, what);
    }
    Rung::template launch<Acc, Acc, Acc>(static_cast<unsigned>(next), threads, env.stream, cur,
                                         count, other);
    GPUOPT_TRY(check_launch(env.fn, what));
    std::swap(cur, other);
    count = next;
  }
}

// Runs Rung over the problem's input type (i32, f32 or f64).
template <class Rung>
gpuopt_status_t textbook_dispatch(const ReduceProblem& p, const ExecEnv& env, const char* what) {
  switch (p.in_type) {
    case GPUOPT_DTYPE_I32:
      return textbook_run<Rung, int>(p, env, what);
    case GPUOPT_DTYPE_F32:
      return textbook_run<Rung, float>(p, env, what);
    case GPUOPT_DTYPE_F64:
      return textbook_run<Rung, double>(p, env, what);
    default:
      return fail(GPUOPT_ERROR_INTERNAL, env.fn, "%s: unexpected input type", what);
  }
}

// Element i of a textbook input as the accumulator (identity 0 past the end).
template <class Acc, class In>
__device__ __forceinline__ Acc textbook_load(const In* in, long long i, long long n) {
  return i < n ? static_cast<Acc>(in[i]) : Acc(0);
}

// Adds 8 elements strided by blockDim, 8 independent loads in flight (the unroll rungs).
template <class Acc, class In>
__device__ __forceinline__ Acc textbook_load8(const In* in, long long first, long long n,
                                              int stride) {
  Acc v[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) v[k] = textbook_load<Acc>(in, first + k * stride, n);
  return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

// Sum of 32 lanes by shuffles; the result in lane 0.
template <class Acc>
__device__ __forceinline__ Acc warp_sum(Acc v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// The interleaved tree's steps from kThreads / 2 down to kStop + 1 (kStop = 0: the whole tree,
// the sum in s[0]; kStop = 32: s[0..63] left for the last warp).
template <int kThreads, unsigned kStop, class Acc>
__device__ __forceinline__ void interleaved_steps(Acc* s, unsigned t) {
  for (unsigned stride = kThreads / 2; stride > kStop; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
}

// The fixed-size rungs (neighbored, interleaved, unroll8, unroll8_warp) differ only in how many
// elements a thread adds first and in how the block folds its shared array. A Tree is a struct
//   static constexpr int kThreads;    // block size
//   static constexpr int kPerThread;  // 1 (textbook_load) or 8 (textbook_load8)
//   template <class Acc> __device__ static Acc fold(Acc* s, unsigned t);  // sum in thread 0
// and SmemTreeRung<Tree> is the rung textbook_dispatch runs.
template <class Tree, class In, class Acc, class Out>
__global__ void __launch_bounds__(Tree::kThreads)
    smem_tree_kernel(const In* in, long long n, Out* out) {
  static_assert(Tree::kPerThread == 1 || Tree::kPerThread == 8, "1 or 8 elements per thread");
  __shared__ Acc s[Tree::kThreads];
  const unsigned t = threadIdx.x;
  const long long first =
      static_cast<long long>(blockIdx.x) * Tree::kThreads * Tree::kPerThread + t;
  if constexpr (Tree::kPerThread == 8)
    s[t] = textbook_load8<Acc>(in, first, n, Tree::kThreads);
  else
    s[t] = textbook_load<Acc>(in, first, n);
  __syncthreads();
  const Acc v = Tree::fold(s, t);
  if (t == 0) out[blockIdx.x] = static_cast<Out>(v);
}

// The interleaved tree over 512 threads after kPerThread elements per thread: the tree of the
// interleaved (1) and unroll8 (8) rungs.
template <int kElementsPerThread>
struct InterleavedTree {
  static constexpr int kThreads = 512;
  static constexpr int kPerThread = kElementsPerThread;
  template <class Acc>
  __device__ static Acc fold(Acc* s, unsigned t) {
    interleaved_steps<kThreads, 0>(s, t);
    return s[0];
  }
};

template <class Tree>
struct SmemTreeRung {
  static constexpr int kPerThread = Tree::kPerThread;
  static int threads(long long) { return Tree::kThreads; }
  template <class In, class Acc, class Out>
  static void launch(unsigned grid, int threads, cudaStream_t st, const In* in, long long n,
                     Out* out) {
    smem_tree_kernel<Tree, In, Acc, Out><<<grid, threads, 0, st>>>(in, n, out);
  }
};

}  // namespace red
}  // namespace gpuopt
