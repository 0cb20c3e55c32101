// sm90_tma_wgmma: element conversions and the store of two consecutive rows of one column of C
// (alpha * v + beta * C), shared by the epilogues and the identity hook.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gpuopt {
namespace sm90 {

template <class T>
__device__ __forceinline__ float out_to_float(T v) {
  return static_cast<float>(v);
}
template <>
__device__ __forceinline__ float out_to_float<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <>
__device__ __forceinline__ float out_to_float<__half>(__half v) {
  return __half2float(v);
}
template <class T>
__device__ __forceinline__ T float_to_out(float v) {
  return v;
}
template <>
__device__ __forceinline__ __nv_bfloat16 float_to_out<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ __forceinline__ __half float_to_out<__half>(float v) {
  return __float2half_rn(v);
}

// Two adjacent elements of a 16-bit C as one 32-bit word (the first in the low half), rounded
// to nearest even; unpack_pair is its inverse.
template <class TOut>
__device__ __forceinline__ std::uint32_t pack_pair(float v0, float v1) {
  static_assert(sizeof(TOut) == 2, "16-bit output types");
  std::uint32_t w;
  if constexpr (std::is_same<TOut, __nv_bfloat16>::value) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(v0, v1);
    memcpy(&w, &h, 4);
  } else {
    const __half2 h = __floats2half2_rn(v0, v1);
    memcpy(&w, &h, 4);
  }
  return w;
}
template <class TOut>
__device__ __forceinline__ float2 unpack_pair(std::uint32_t w) {
  static_assert(sizeof(TOut) == 2, "16-bit output types");
  if constexpr (std::is_same<TOut, __nv_bfloat16>::value) {
    __nv_bfloat162 h;
    memcpy(&h, &w, 4);
    return __bfloat1622float2(h);
  } else {
    __half2 h;
    memcpy(&h, &w, 4);
    return __half22float2(h);
  }
}

// Stores rows i and i + 1 (valid of them: 0, 1 or 2) of one column of C at ptr:
// alpha * v + beta * C, reading C only when kReadC.
template <class TOut, bool kReadC>
__device__ __forceinline__ void store_pair(TOut* ptr, float v0, float v1, int valid, bool pair,
                                           float alpha, float beta) {
  v0 *= alpha;
  v1 *= alpha;
  if (valid == 2 && pair) {
    if constexpr (sizeof(TOut) == 4) {
      float2* q = reinterpret_cast<float2*>(ptr);
      if constexpr (kReadC) {
        const float2 c = *q;
        v0 = fmaf(beta, c.x, v0);
        v1 = fmaf(beta, c.y, v1);
      }
      *q = make_float2(v0, v1);
    } else {
      std::uint32_t* q = reinterpret_cast<std::uint32_t*>(ptr);
      if constexpr (kReadC) {
        const float2 c = unpack_pair<TOut>(*q);
        v0 = fmaf(beta, c.x, v0);
        v1 = fmaf(beta, c.y, v1);
      }
      *q = pack_pair<TOut>(v0, v1);
    }
    return;
  }
  if (valid >= 1) {
    if constexpr (kReadC) v0 = fmaf(beta, out_to_float(ptr[0]), v0);
    ptr[0] = float_to_out<TOut>(v0);
  }
  if (valid == 2) {
    if constexpr (kReadC) v1 = fmaf(beta, out_to_float(ptr[1]), v1);
    ptr[1] = float_to_out<TOut>(v1);
  }
}

}  // namespace sm90
}  // namespace gpuopt
