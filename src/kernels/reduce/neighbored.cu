// reduce neighbored: the first rung of the textbook ladder. One element per thread into shared
// memory, then pairs of neighbours: at step s, threads whose index is a multiple of 2s add the
// element s away. Half the warps' threads idle at the first step and ever more after it, every
// warp stays busy until the end (divergence), and the strided smem accesses conflict. 512 threads,
// one pass per 512 elements. Reference figure (global-memory in-place version, 2^24 int): 313 GB/s.
// Bench (H200, 2^28 i32 -> i64, shared-memory version): 664 GB/s, 0.15x cub.
#include "kernels/reduce/textbook.cuh"

namespace gpuopt {
namespace {

struct NeighboredTree {
  static constexpr int kThreads = 512;
  static constexpr int kPerThread = 1;
  template <class Acc>
  __device__ static Acc fold(Acc* s, unsigned t) {
    for (unsigned stride = 1; stride < kThreads; stride *= 2) {
      if (t % (2 * stride) == 0) s[t] += s[t + stride];
      __syncthreads();
    }
    return s[0];
  }
};

}  // namespace

gpuopt_status_t reduce_launch_neighbored(const ReduceProblem& p, const ExecEnv& env) {
  return red::textbook_dispatch<red::SmemTreeRung<NeighboredTree>>(
      p, env, "reduce neighbored kernel launch");
}

}  // namespace gpuopt
