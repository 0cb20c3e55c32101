// The shared-state-space address of a pointer into shared memory: the 32-bit operand that PTX
// instructions addressing .shared take (cp.async destinations, ldmatrix, mbarriers, TMA).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace gpuopt {
namespace sm80 {

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace sm80
}  // namespace gpuopt
