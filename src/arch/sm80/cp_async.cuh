// cp.async (sm_80+): asynchronous global -> shared copies that bypass the registers, and their
// commit / wait groups. Every op's sm_80 pipelines use these (GEMM warptiled_cpasync and
// f64_tensorcore, the stencil and GDN tile loaders). Below sm_80 (a generic build's host pass or
// an older target) the wrappers compile to nothing: their callers are launched on sm_80 and
// later only.
//
// Addresses: `smem` is a shared-state-space address (smem_addr()) or, in the overloads that take
// a pointer, a generic pointer into shared memory. `gmem` is either a generic pointer to global
// memory, handed to cp.async as it is (the generic window maps global memory one to one; CUTLASS's
// SM80_CP_ASYNC_* copies do the same), or a global-state-space address (`gmem_global`, from
// __cvta_generic_to_global). The two forms give different code around the copies (the explicit
// conversion changed the f64 stencil kernels' SASS), so each caller keeps the form it was measured
// with.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "arch/sm80/smem_addr.cuh"

namespace gpuopt {
namespace sm80 {

// 16 bytes through L2 only (.cg); bytes past src_bytes (0..16) are zero-filled and not read, so
// src_bytes == 0 reads nothing (gmem must still be a valid address).
__device__ __forceinline__ void cp_async_cg16_zfill(std::uint32_t smem, const void* gmem,
                                                    int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem), "l"(gmem),
               "r"(src_bytes)
               : "memory");
#else
  (void)smem;
  (void)gmem;
  (void)src_bytes;
#endif
}
__device__ __forceinline__ void cp_async_cg16_zfill(void* smem, const void* gmem, int src_bytes) {
  cp_async_cg16_zfill(smem_addr(smem), gmem, src_bytes);
}
__device__ __forceinline__ void cp_async_cg16_zfill(std::uint32_t smem,
                                                    unsigned long long gmem_global, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem), "l"(gmem_global),
               "r"(src_bytes)
               : "memory");
#else
  (void)smem;
  (void)gmem_global;
  (void)src_bytes;
#endif
}

// 16 bytes through L2 only (.cg), unpredicated (interior tiles).
__device__ __forceinline__ void cp_async_cg16(std::uint32_t smem, unsigned long long gmem_global) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem), "l"(gmem_global)
               : "memory");
#else
  (void)smem;
  (void)gmem_global;
#endif
}

// One kBytes (4 or 8) element through L1 (.ca); zero-filled without a read when !valid.
template <int kBytes>
__device__ __forceinline__ void cp_async_ca_zfill(std::uint32_t smem, const void* gmem,
                                                  bool valid) {
  static_assert(kBytes == 4 || kBytes == 8, "cp.async.ca copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(smem), "l"(gmem),
               "n"(kBytes), "r"(valid ? kBytes : 0)
               : "memory");
#else
  (void)smem;
  (void)gmem;
  (void)valid;
#endif
}
template <int kBytes>
__device__ __forceinline__ void cp_async_ca_zfill(void* smem, const void* gmem, bool valid) {
  cp_async_ca_zfill<kBytes>(smem_addr(smem), gmem, valid);
}

// Closes this thread's group of copies issued since the last commit. Warp-uniform: every thread
// of the block commits, in non-divergent code, so group counts agree across threads.
__device__ __forceinline__ void cp_async_commit_group() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most kPending of this thread's committed groups are still in flight (a
// __syncthreads must follow before other threads read what this one copied).
template <int kPending>
__device__ __forceinline__ void cp_async_wait_group() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

}  // namespace sm80
}  // namespace gpuopt
