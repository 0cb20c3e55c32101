// The pointwise part of GDN, shared by every variant: s(z) and ds/dz.
//   divisive (inverse = 0): s = z^(-1/2), ds/dz = -s / (2 z)
//   inverse  (inverse = 1): s = z^(1/2),  ds/dz = 1 / (2 s)
#pragma once

namespace gpuopt {

__device__ __forceinline__ float gdn_scale(float z, bool inverse) {
  return inverse ? sqrtf(z) : rsqrtf(z);
}

// Without a division (an IEEE f32 division is a dozen instructions with a slow-path branch, and
// the backward epilogues run it for every element): divisive -s / (2 z) = -s^3 / 2 (s^2 = 1 / z);
// inverse 1 / (2 s) = z^(-1/2) / 2.
__device__ __forceinline__ float gdn_dscale(float z, float s, bool inverse) {
  return inverse ? 0.5f * rsqrtf(z) : -0.5f * s * (s * s);
}

}  // namespace gpuopt
