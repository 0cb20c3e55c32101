// Streaming (evict-first) loads and stores of the pixel pairs r, r + 1 of one channel, as the
// sm90 GEMM epilogue hooks of the GDN passes see them: `valid` of the two pixels are inside the
// image, `pair` says the pair may move as one 8-byte access (even pixel count, aligned tensor).
// The GDN streams are read or written once per pass, so their lines should not push the operand
// tiles that later tiles re-read out of L2.
#pragma once

namespace gpuopt {
namespace gdn {

__device__ __forceinline__ float2 ld_cs_pair(const float* q, long long i, int valid, bool pair) {
  if (valid == 2 && pair) return __ldcs(reinterpret_cast<const float2*>(q + i));
  return make_float2(__ldcs(q + i), valid == 2 ? __ldcs(q + i + 1) : 0.f);
}

__device__ __forceinline__ void st_cs_pair(float* q, float v0, float v1, int valid, bool pair) {
  if (valid == 2 && pair) {
    __stcs(reinterpret_cast<float2*>(q), make_float2(v0, v1));
    return;
  }
  __stcs(q, v0);
  if (valid == 2) __stcs(q + 1, v1);
}

}  // namespace gdn
}  // namespace gpuopt
