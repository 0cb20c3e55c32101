// reduce complete_unroll: unroll8_warp with the block size as a template parameter, so the whole
// tree is unrolled at compile time (no loop, no stride arithmetic, dead steps removed); a switch
// at launch picks the instantiation (64..512 threads: the smallest power of two that gives every
// thread its 8 elements, 512 for large n). Reference figure (2^24 int): 2317 GB/s, no gain over
// unroll8 there: the loop overhead it removes is not where the time goes. Bench (H200, 2^28 i32):
// 4095 GB/s, the same as unroll8_warp.
#include "kernels/reduce/textbook.cuh"

namespace gpuopt {
namespace {

template <int kThreads, class In, class Acc, class Out>
__global__ void __launch_bounds__(kThreads)
    complete_unroll_kernel(const In* in, long long n, Out* out) {
  static_assert(kThreads >= 64 && kThreads <= 1024, "block size");
  __shared__ Acc s[kThreads];
  const unsigned t = threadIdx.x;
  const long long first = static_cast<long long>(blockIdx.x) * kThreads * 8 + t;
  s[t] = red::textbook_load8<Acc>(in, first, n, kThreads);
  __syncthreads();
  if (kThreads >= 1024 && t < 512) s[t] += s[t + 512];
  if (kThreads >= 1024) __syncthreads();
  if (kThreads >= 512 && t < 256) s[t] += s[t + 256];
  if (kThreads >= 512) __syncthreads();
  if (kThreads >= 256 && t < 128) s[t] += s[t + 128];
  if (kThreads >= 256) __syncthreads();
  if (kThreads >= 128 && t < 64) s[t] += s[t + 64];
  if (kThreads >= 128) __syncthreads();
  if (t < 32) {
    const Acc v = red::warp_sum<Acc>(s[t] + s[t + 32]);
    if (t == 0) out[blockIdx.x] = static_cast<Out>(v);
  }
}

struct CompleteUnroll {
  static constexpr int kPerThread = 8;
  static int threads(long long n) { return complete_unroll_threads(n); }
  template <class In, class Acc, class Out>
  static void launch(unsigned grid, int threads, cudaStream_t st, const In* in, long long n,
                     Out* out) {
    switch (threads) {
      case 64:
        complete_unroll_kernel<64, In, Acc, Out><<<grid, 64, 0, st>>>(in, n, out);
        break;
      case 128:
        complete_unroll_kernel<128, In, Acc, Out><<<grid, 128, 0, st>>>(in, n, out);
        break;
      case 256:
        complete_unroll_kernel<256, In, Acc, Out><<<grid, 256, 0, st>>>(in, n, out);
        break;
      default:
        complete_unroll_kernel<512, In, Acc, Out><<<grid, 512, 0, st>>>(in, n, out);
        break;
    }
  }
};

}  // namespace

gpuopt_status_t reduce_launch_complete_unroll(const ReduceProblem& p, const ExecEnv& env) {
  return red::textbook_dispatch<CompleteUnroll>(p, env, "reduce complete_unroll kernel launch");
}

}  // namespace gpuopt
