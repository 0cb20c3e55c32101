// Shared-memory addressing and explicit shared loads / stores (sm_90a wrappers): the 32-bit
// shared-window address of a pointer (sm80::smem_addr, the one definition) and ld.shared /
// st.shared of 4, 8 and 16 bytes at such an address (the forms the TMA- and wgmma-fed kernels
// compute their swizzled offsets in).
#pragma once
#include <vector_types.h>

#include <cstdint>

#include "arch/sm80/smem_addr.cuh"

namespace gpuopt {
namespace sm90 {

using sm80::smem_addr;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// One 32-bit word from shared memory.
__device__ __forceinline__ std::uint32_t lds32(std::uint32_t addr) {
  std::uint32_t x;
  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(x) : "r"(addr) : "memory");
  return x;
}

// Two consecutive 32-bit words from shared memory (8-byte aligned address).
__device__ __forceinline__ void lds64(std::uint32_t addr, std::uint32_t& x, std::uint32_t& y) {
  asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(addr) : "memory");
}

// One 32-bit word to shared memory.
__device__ __forceinline__ void sts32(std::uint32_t addr, std::uint32_t x) {
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(x) : "memory");
}

// Two consecutive 32-bit words to shared memory (8-byte aligned address).
__device__ __forceinline__ void sts64(std::uint32_t addr, std::uint32_t x, std::uint32_t y) {
  asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(addr), "r"(x), "r"(y) : "memory");
}

// Four consecutive 32-bit words from / to shared memory (16-byte aligned address).
__device__ __forceinline__ uint4 lds128(std::uint32_t addr) {
  uint4 v;
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}
__device__ __forceinline__ void sts128(std::uint32_t addr, uint4 v) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(v.x), "r"(v.y), "r"(v.z),
               "r"(v.w)
               : "memory");
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
