// 16-byte vector views of scalar arrays: float -> float4, double -> double2.
#pragma once
#include <cuda_runtime.h>

namespace gpuopt {

template <class T>
struct Vec16;
template <>
struct Vec16<float> {
  using type = float4;
  static constexpr int width = 4;
};
template <>
struct Vec16<double> {
  using type = double2;
  static constexpr int width = 2;
};

// y = a * x + y on every lane of a 16-byte vector.
__device__ __forceinline__ float4 axpy_lanes(float a, float4 x, float4 y) {
  return make_float4(fmaf(a, x.x, y.x), fmaf(a, x.y, y.y), fmaf(a, x.z, y.z), fmaf(a, x.w, y.w));
}
__device__ __forceinline__ double2 axpy_lanes(double a, double2 x, double2 y) {
  return make_double2(fma(a, x.x, y.x), fma(a, x.y, y.y));
}

// Scalar tail [begin, n) done by one block, block-stride.
template <class T>
__device__ __forceinline__ void axpy_tail(long long begin, long long n, T a,
                                          const T* x, T* y) {
  for (long long j = begin + threadIdx.x; j < n; j += blockDim.x) y[j] = fma(a, x[j], y[j]);
}

}  // namespace gpuopt
