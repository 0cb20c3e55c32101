// Device fill of the reduce rows' inputs (reduce_data.hpp).
#include "check.hpp"
#include "reduce_data.hpp"

namespace bench {
namespace {

template <class T>
__global__ void reduce_fill_kernel(T* out, std::int64_t n, std::uint64_t seed) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    if constexpr (sizeof(T) == 4 && static_cast<T>(0.5) == T(0)) {
      out[i] = reduce_i32(seed, static_cast<std::uint64_t>(i));
    } else {
      out[i] = gen_value<T>(DataKind::kRandom, seed, kStreamX, static_cast<std::uint64_t>(i));
    }
  }
}

}  // namespace

void fill_reduce_input(void* ptr, gpuopt_dtype_t dtype, std::int64_t n, std::uint64_t seed,
                       cudaStream_t s) {
  if (n <= 0) return;
  constexpr int kThreads = 256;
  const unsigned grid = static_cast<unsigned>(std::min<std::int64_t>((n + 255) / 256, 16384));
  switch (dtype) {
    case GPUOPT_DTYPE_I32:
      reduce_fill_kernel<std::int32_t>
          <<<grid, kThreads, 0, s>>>(static_cast<std::int32_t*>(ptr), n, seed);
      break;
    case GPUOPT_DTYPE_F32:
      reduce_fill_kernel<float><<<grid, kThreads, 0, s>>>(static_cast<float*>(ptr), n, seed);
      break;
    case GPUOPT_DTYPE_F64:
      reduce_fill_kernel<double><<<grid, kThreads, 0, s>>>(static_cast<double*>(ptr), n, seed);
      break;
    default:
      throw BenchError(GPUOPT_ERROR_UNSUPPORTED, "fill_reduce_input: i32, f32 or f64 only");
  }
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace bench
