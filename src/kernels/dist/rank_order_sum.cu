#include "kernels/dist/rank_order_sum.hpp"

namespace gpuopt {
namespace {

template <class T>
__global__ void rank_order_sum(const T* parts, std::int64_t segs, int ranks, T* out) {
  for (std::int64_t s = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; s < segs;
       s += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    T acc = parts[s];
    for (int r = 1; r < ranks; ++r) acc += parts[r * segs + s];
    out[s] = acc;
  }
}

}  // namespace

cudaError_t launch_rank_order_sum(gpuopt_dtype_t type, const void* parts, std::int64_t segs,
                                  int ranks, void* out, cudaStream_t stream) {
  if (segs == 0) return cudaSuccess;
  const int threads = 256;
  const std::int64_t want = (segs + threads - 1) / threads;
  const int blocks = static_cast<int>(want < 4096 ? want : 4096);
  if (type == GPUOPT_DTYPE_F64)
    rank_order_sum<<<blocks, threads, 0, stream>>>(static_cast<const double*>(parts), segs, ranks,
                                                   static_cast<double*>(out));
  else
    rank_order_sum<<<blocks, threads, 0, stream>>>(static_cast<const float*>(parts), segs, ranks,
                                                   static_cast<float*>(out));
  return cudaGetLastError();
}

}  // namespace gpuopt
