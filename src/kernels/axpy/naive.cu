// axpy naive: one thread per element, any stride. The textbook rung: each thread issues one
// scalar load of x and y, so a warp moves 128 bytes per request; it also serves strided and
// misaligned vectors, which the vector rungs refuse.
#include "common/direct_launch.cuh"
#include "common/launch.hpp"
#include "kernels/axpy/axpy.hpp"

namespace gpuopt {
namespace {

template <class T>
__global__ void axpy_naive_kernel(long long n, T a, const T* x, long long incx, T* y,
                                  long long incy) {
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i * incy] = fma(a, x[i * incx], y[i * incy]);
}

template <class T>
gpuopt_status_t launch(const AxpyProblem& p, const ExecEnv& env) {
  constexpr int threads = 256;
  const long long blocks = ceil_div(p.n, threads);
  return launch_direct<axpy_naive_kernel<T>>(
      env.fn, "axpy naive kernel launch", static_cast<unsigned>(blocks), threads, 0, env.stream,
      p.n, static_cast<T>(p.alpha), static_cast<const T*>(p.x), p.incx, static_cast<T*>(p.y),
      p.incy);
}

}  // namespace

gpuopt_status_t axpy_launch_naive(const AxpyProblem& p, const ExecEnv& env) {
  return p.dtype == GPUOPT_DTYPE_F32 ? launch<float>(p, env) : launch<double>(p, env);
}

}  // namespace gpuopt
