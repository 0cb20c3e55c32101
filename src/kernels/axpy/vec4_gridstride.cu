// axpy vec4_gridstride: 16-byte vector loads (float4 / double2) in a grid-stride loop sized to
// fill every SM once, four vectors of x and y in flight per thread before the first use.
// Improves on naive by moving 512 bytes per warp request and keeping enough loads in flight to
// cover HBM latency. Figure: see docs/notes/axpy.md (share of the copy roof on the bench device).
#include "common/direct_launch.cuh"
#include "common/launch.hpp"
#include "kernels/axpy/axpy.hpp"
#include "kernels/axpy/axpy_vectors.cuh"

namespace gpuopt {
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;

template <class T>
__global__ void __launch_bounds__(kThreads)
    axpy_vec4_gridstride_kernel(long long n, T a, const T* x, T* y) {
  const AxpyVectors<T> v(n, x, y);
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < v.nvec; i += kUnroll * stride)
    v.template unrolled<kUnroll>(a, i, stride);
  for (; i < v.nvec; i += stride) v.one(a, i);
  if (blockIdx.x == gridDim.x - 1) axpy_tail(v.nvec * v.W, n, a, x, y);
}

// Resident blocks per SM of the kernel (registers decide it: 48 per thread gives 5, not 8).
template <class T>
int resident_blocks_per_sm() {
  static const int blocks = [] {
    int b = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, axpy_vec4_gridstride_kernel<T>, kThreads,
                                                      0) != cudaSuccess ||
        b < 1) {
      cudaGetLastError();
      b = 4;
    }
    return b;
  }();
  return blocks;
}

template <class T>
gpuopt_status_t launch(const AxpyProblem& p, const ExecEnv& env) {
  constexpr int W = Vec16<T>::width;
  const long long wanted = ceil_div(p.n / W, kThreads * kUnroll);
  long long blocks = static_cast<long long>(env.device->sm_count) * resident_blocks_per_sm<T>();
  if (blocks > wanted) blocks = wanted;
  if (blocks < 1) blocks = 1;
  return launch_direct<axpy_vec4_gridstride_kernel<T>>(
      env.fn, "axpy vec4_gridstride kernel launch", static_cast<unsigned>(blocks), kThreads, 0,
      env.stream, p.n, static_cast<T>(p.alpha), static_cast<const T*>(p.x), static_cast<T*>(p.y));
}

}  // namespace

gpuopt_status_t axpy_launch_vec4_gridstride(const AxpyProblem& p, const ExecEnv& env) {
  return p.dtype == GPUOPT_DTYPE_F32 ? launch<float>(p, env) : launch<double>(p, env);
}

}  // namespace gpuopt
