// reduce neighbored: the first rung of the textbook ladder. One element per thread into shared
// memory, then pairs of neighbours: at step s, threads whose index is a multiple of 2s add the
// element s away. Half the warps' threads idle at the first step and ever more after it, every
// warp stays busy until the end (divergence), and the strided smem accesses conflict. 512 threads,
// one pass per 512 elements. Reference figure (global-memory in-place version, 2^24 int): 313 GB/s.
// Bench (H200, 2^28 i32 -> i64, shared-memory version): 664 GB/s, 0.15x cub.
#include "kernels/reduce/textbook.cuh"

namespace gpuopt {
namespace {

constexpr int kThreads = 512;

template <class In, class Acc, class Out>
__global__ void __launch_bounds__(kThreads) neighbored_kernel(const In* in, long long n, Out* out) {
  __shared__ Acc s[kThreads];
  const unsigned t = threadIdx.x;
  s[t] = red::textbook_load<Acc>(in, static_cast<long long>(blockIdx.x) * kThreads + t, n);
  __syncthreads();
  for (unsigned stride = 1; stride < kThreads; stride *= 2) {
    if (t % (2 * stride) == 0) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = static_cast<Out>(s[0]);
}

struct Neighbored {
  static constexpr int kPerThread = 1;
  static int threads(long long) { return kThreads; }
  template <class In, class Acc, class Out>
  static void launch(unsigned grid, int threads, cudaStream_t st, const In* in, long long n,
                     Out* out) {
    neighbored_kernel<In, Acc, Out><<<grid, threads, 0, st>>>(in, n, out);
  }
};

}  // namespace

gpuopt_status_t reduce_launch_neighbored(const ReduceProblem& p, const ExecEnv& env) {
  return red::textbook_dispatch<Neighbored>(p, env, "reduce neighbored kernel launch");
}

}  // namespace gpuopt
