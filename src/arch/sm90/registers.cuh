// Warpgroup register reallocation (setmaxnreg, sm_90a): a warp-specialized kernel's producer
// gives registers back (dec) so its consumers can take them (inc). kRegs: per thread, a multiple
// of 8 in 24 .. 256; every warp of the warpgroup executes it.
#pragma once
#include <cstdint>

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

template <std::uint32_t kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegs));
}
template <std::uint32_t kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegs));
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
