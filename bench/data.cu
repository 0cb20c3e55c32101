// Fill kernels: one grid-stride pass writing gen_value() of each element.
#include "check.hpp"
#include "data.hpp"

namespace bench {
namespace {

template <class T>
__global__ void fill_kernel(T* __restrict__ out, std::int64_t n, DataKind kind, std::uint64_t seed,
                            std::uint32_t stream_id, std::uint64_t first_index) {
  std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = gen_value<T>(kind, seed, stream_id, first_index + static_cast<std::uint64_t>(i));
  }
}

}  // namespace

std::size_t dtype_bytes(gpuopt_dtype_t dtype) {
  switch (dtype) {
    case GPUOPT_DTYPE_F32:
      return 4;
    case GPUOPT_DTYPE_F64:
      return 8;
    default:
      throw BenchError(GPUOPT_ERROR_UNSUPPORTED, "bench: dtype not supported by the bench");
  }
}

const char* data_kind_name(DataKind kind) {
  switch (kind) {
    case DataKind::kRandom:
      return "random";
    case DataKind::kPatterned:
      return "patterned";
    case DataKind::kExact:
      return "exact";
  }
  return "unknown";
}

void fill_device(void* ptr, gpuopt_dtype_t dtype, std::int64_t n, DataKind kind, std::uint64_t seed,
                 std::uint32_t stream_id, std::uint64_t first_index, cudaStream_t s) {
  if (n <= 0) return;
  if (ptr == nullptr) throw BenchError(GPUOPT_ERROR_INVALID_ARGUMENT, "fill_device: NULL pointer");
  constexpr int kThreads = 256;
  std::int64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks > 8192) blocks = 8192;
  unsigned grid = static_cast<unsigned>(blocks);
  if (dtype == GPUOPT_DTYPE_F32) {
    fill_kernel<float>
        <<<grid, kThreads, 0, s>>>(static_cast<float*>(ptr), n, kind, seed, stream_id, first_index);
  } else if (dtype == GPUOPT_DTYPE_F64) {
    fill_kernel<double><<<grid, kThreads, 0, s>>>(static_cast<double*>(ptr), n, kind, seed,
                                                  stream_id, first_index);
  } else {
    throw BenchError(GPUOPT_ERROR_UNSUPPORTED, "fill_device: dtype not supported by the bench");
  }
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace bench
