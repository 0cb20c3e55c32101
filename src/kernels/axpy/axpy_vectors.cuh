// The 16-byte vector view both vector axpy rungs (vec4_gridstride, vec4_blocktile) work through:
// x and y as float4 / double2, streaming (evict-first) loads and stores, since every element is
// read and written once. Only the order in which the rungs walk the vectors differs.
#pragma once
#include "common/vector_types.cuh"

namespace gpuopt {

template <class T>
struct AxpyVectors {
  using V = typename Vec16<T>::type;
  static constexpr int W = Vec16<T>::width;

  long long nvec;  // whole vectors; the scalar tail [nvec * W, n) is left to tail()
  const V* xv;
  V* yv;

  __device__ __forceinline__ AxpyVectors(long long n, const T* x, T* y)
      : nvec(n / W), xv(reinterpret_cast<const V*>(x)), yv(reinterpret_cast<V*>(y)) {}

  // Vectors i, i + step, ..., i + (kUnroll - 1) * step: every load issued before the first store.
  template <int kUnroll, class Step>
  __device__ __forceinline__ void unrolled(T a, long long i, Step step) const {
    V xr[kUnroll], yr[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      xr[u] = __ldcs(xv + i + u * step);
      yr[u] = __ldcs(yv + i + u * step);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) __stcs(yv + i + u * step, axpy_lanes(a, xr[u], yr[u]));
  }

  // Vector i alone.
  __device__ __forceinline__ void one(T a, long long i) const {
    __stcs(yv + i, axpy_lanes(a, __ldcs(xv + i), __ldcs(yv + i)));
  }
};

}  // namespace gpuopt
