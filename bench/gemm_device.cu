// Gemm fills, upcast, poison and comparison kernels (grid-stride loops).
#include <cstdint>

#include "check.hpp"
#include "gemm_device.hpp"

namespace bench {
namespace {

constexpr int kThreads = 256;

unsigned grid_for(std::int64_t count) {
  std::int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 8192 ? 8192 : blocks));
}

__device__ __forceinline__ std::int64_t first_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::int64_t grid_stride() {
  return static_cast<std::int64_t>(gridDim.x) * blockDim.x;
}

__global__ void fill_f64(double* out, std::int64_t n, std::uint64_t seed, std::uint32_t sid) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    out[i] = gemm_value_f64(seed, sid, static_cast<std::uint64_t>(i));
  }
}

__global__ void fill_f32(float* out, std::int64_t n, std::uint64_t seed, std::uint32_t sid) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    out[i] = gemm_value_f32(seed, sid, static_cast<std::uint64_t>(i));
  }
}

// bf16 is the upper half of an f32 whose low 16 bits are zero (gemm_value_bf16 has 7 mantissa
// bits), so the truncation is exact.
__global__ void fill_bf16(std::uint16_t* out, std::int64_t n, std::uint64_t seed,
                          std::uint32_t sid) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const float v = gemm_value_bf16(seed, sid, static_cast<std::uint64_t>(i));
    out[i] = static_cast<std::uint16_t>(__float_as_uint(v) >> 16);
  }
}

__global__ void upcast_f32(const float* in, std::int64_t n, double* out) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    out[i] = static_cast<double>(in[i]);
  }
}

__global__ void upcast_bf16(const std::uint16_t* in, std::int64_t n, double* out) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    out[i] = static_cast<double>(__uint_as_float(static_cast<unsigned>(in[i]) << 16));
  }
}

// One part per block: each thread sums its grid-stride elements, then a tree over the block.
template <class T>
__global__ void __launch_bounds__(kThreads)
    compare_kernel(const T* out, const double* ref, std::int64_t n, GemmCheckPart* parts) {
  __shared__ GemmCheckPart sh[kThreads];
  GemmCheckPart p;
  gemm_part_init(&p);
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    gemm_part_add(&p, static_cast<double>(out[i]), ref[i], static_cast<std::uint64_t>(i));
  }
  sh[threadIdx.x] = p;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half)
      gemm_part_merge(&sh[threadIdx.x], sh[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) parts[blockIdx.x] = sh[0];
}

// A bf16 element as stored (the upper half of an f32), read as a number by compare_kernel.
struct Bf16Bits {
  std::uint16_t bits;
  __device__ explicit operator double() const {
    return static_cast<double>(__uint_as_float(static_cast<unsigned>(bits) << 16));
  }
};

}  // namespace

std::size_t gemm_elem_bytes(gpuopt_dtype_t dtype) {
  switch (dtype) {
    case GPUOPT_DTYPE_F64:
      return 8;
    case GPUOPT_DTYPE_F32:
      return 4;
    case GPUOPT_DTYPE_BF16:
    case GPUOPT_DTYPE_F16:
      return 2;
    default:
      throw BenchError(GPUOPT_ERROR_UNSUPPORTED, "bench: dtype not supported by the gemm rows");
  }
}

void gemm_fill(void* ptr, gpuopt_dtype_t dtype, std::int64_t count, std::uint64_t seed,
               std::uint32_t stream_id, cudaStream_t s) {
  if (count <= 0) return;
  const unsigned grid = grid_for(count);
  switch (dtype) {
    case GPUOPT_DTYPE_F64:
      fill_f64<<<grid, kThreads, 0, s>>>(static_cast<double*>(ptr), count, seed, stream_id);
      break;
    case GPUOPT_DTYPE_F32:
      fill_f32<<<grid, kThreads, 0, s>>>(static_cast<float*>(ptr), count, seed, stream_id);
      break;
    case GPUOPT_DTYPE_BF16:
      fill_bf16<<<grid, kThreads, 0, s>>>(static_cast<std::uint16_t*>(ptr), count, seed, stream_id);
      break;
    default:
      throw BenchError(GPUOPT_ERROR_UNSUPPORTED, "gemm_fill: dtype not supported by the bench");
  }
  CUDA_CHECK(cudaGetLastError());
}

void gemm_upcast(const void* src, gpuopt_dtype_t dtype, std::int64_t count, double* dst,
                 cudaStream_t s) {
  if (count <= 0) return;
  const unsigned grid = grid_for(count);
  switch (dtype) {
    case GPUOPT_DTYPE_F32:
      upcast_f32<<<grid, kThreads, 0, s>>>(static_cast<const float*>(src), count, dst);
      break;
    case GPUOPT_DTYPE_BF16:
      upcast_bf16<<<grid, kThreads, 0, s>>>(static_cast<const std::uint16_t*>(src), count, dst);
      break;
    default:
      throw BenchError(GPUOPT_ERROR_UNSUPPORTED, "gemm_upcast: dtype not supported by the bench");
  }
  CUDA_CHECK(cudaGetLastError());
}

void gemm_poison(void* ptr, std::size_t bytes, cudaStream_t s) {
  CUDA_CHECK(cudaMemsetAsync(ptr, 0xff, bytes, s));
}

void gemm_compare(const void* out, gpuopt_dtype_t dtype, const double* ref, std::int64_t count,
                  GemmCheckPart* parts, cudaStream_t s) {
  // Always kGemmCheckParts blocks (idle ones write an empty part), so the sums' order is fixed.
  if (dtype == GPUOPT_DTYPE_F64) {
    compare_kernel<double>
        <<<kGemmCheckParts, kThreads, 0, s>>>(static_cast<const double*>(out), ref, count, parts);
  } else if (dtype == GPUOPT_DTYPE_F32) {
    compare_kernel<float>
        <<<kGemmCheckParts, kThreads, 0, s>>>(static_cast<const float*>(out), ref, count, parts);
  } else if (dtype == GPUOPT_DTYPE_BF16) {
    compare_kernel<Bf16Bits>
        <<<kGemmCheckParts, kThreads, 0, s>>>(static_cast<const Bf16Bits*>(out), ref, count, parts);
  } else {
    throw BenchError(GPUOPT_ERROR_UNSUPPORTED,
                     "gemm_compare: output dtype must be f64, f32 or bf16");
  }
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace bench
