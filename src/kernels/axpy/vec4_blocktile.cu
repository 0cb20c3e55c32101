// axpy vec4_blocktile: 16-byte vectors, each block one contiguous tile of kThreads * kUnroll
// vectors, as many blocks as tiles. Each wave of blocks sweeps the array front to back in
// neighbouring tiles, which keeps the compression hardware's working set small, and the short
// blocks retire evenly. kUnroll = 1 (one vector per thread) measured best on the H200: f32 4357
// GB/s vs 4290 (2 vectors) and 4272 (4) in a same-run sweep (docs/notes/axpy.md). Bench figure
// (H200, f32 2^28): 97% of the copy roof on plain memory, 1.6x plain on compressible memory.
#include "common/direct_launch.cuh"
#include "common/launch.hpp"
#include "kernels/axpy/axpy.hpp"
#include "kernels/axpy/axpy_vectors.cuh"

namespace gpuopt {
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 1;

template <class T>
__global__ void __launch_bounds__(kThreads)
    axpy_vec4_blocktile_kernel(long long n, T a, const T* x, T* y) {
  const AxpyVectors<T> v(n, x, y);
  const long long base = static_cast<long long>(blockIdx.x) * kThreads * kUnroll + threadIdx.x;
  if (base + (kUnroll - 1) * kThreads < v.nvec) {
    v.template unrolled<kUnroll>(a, base, kThreads);
  } else {
    for (long long i = base; i < v.nvec; i += kThreads) v.one(a, i);
  }
  if (blockIdx.x == gridDim.x - 1) axpy_tail(v.nvec * v.W, n, a, x, y);
}

template <class T>
gpuopt_status_t launch(const AxpyProblem& p, const ExecEnv& env) {
  constexpr int W = Vec16<T>::width;
  long long blocks = ceil_div(p.n / W, kThreads * kUnroll);
  if (blocks < 1) blocks = 1;
  return launch_direct<axpy_vec4_blocktile_kernel<T>>(
      env.fn, "axpy vec4_blocktile kernel launch", static_cast<unsigned>(blocks), kThreads, 0,
      env.stream, p.n, static_cast<T>(p.alpha), static_cast<const T*>(p.x), static_cast<T*>(p.y));
}

}  // namespace

gpuopt_status_t axpy_launch_vec4_blocktile(const AxpyProblem& p, const ExecEnv& env) {
  return p.dtype == GPUOPT_DTYPE_F32 ? launch<float>(p, env) : launch<double>(p, env);
}

}  // namespace gpuopt
