// The pointwise part of GDN, shared by every variant: s(z) and ds/dz.
//   divisive (inverse = 0): s = z^(-1/2), ds/dz = -s / (2 z)
//   inverse  (inverse = 1): s = z^(1/2),  ds/dz = 1 / (2 s)
#pragma once

namespace gpuopt {

__device__ __forceinline__ float gdn_scale(float z, bool inverse) {
  return inverse ? sqrtf(z) : rsqrtf(z);
}

__device__ __forceinline__ float gdn_dscale(float z, float s, bool inverse) {
  return inverse ? 0.5f / s : -0.5f * s / z;
}

}  // namespace gpuopt
