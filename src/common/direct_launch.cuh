// Direct kernel launch: the driver's cuLaunchKernel on the kernel's function in the current
// context (runtime/kernel_functions.hpp; its context-independent handle, from cudaGetKernel once
// per kernel, where that cannot be had), instead of the runtime's <<<>>> path. For kernels
// whose calls are all host time (small problems: latency axpy, sum, small GEMM), where the
// runtime's launch path is the largest part of a call: on the H100 (driver 580, 2000 calls back
// to back, interleaved) a bare <<<>>> launch cost 3.09 us per call, cuLaunchKernel on a cached
// handle 2.73 us (docs/notes/latency.md). Any refusal of the direct launch (no driver entry, no
// handle, a stream of another context, an error) falls back to <<<>>>, which launches or reports
// the error as every other launcher does; a refused cuLaunchKernel has enqueued nothing.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

#include "common/launch.hpp"
#include "runtime/driver.hpp"
#include "runtime/kernel_functions.hpp"
#include "runtime/log.hpp"

namespace gpuopt {

namespace direct_launch_detail {

template <class T>
struct Exactly {
  using type = T;
};

// The context-independent handle of `symbol` (a __global__ function's address), or nullptr when
// the runtime has none.
inline CUkernel kernel_handle(const void* symbol) {
  cudaKernel_t k = nullptr;
  if (cudaGetKernel(&k, symbol) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<CUkernel>(k);
}

template <class... P>
gpuopt_status_t launch(CUkernel any_context, KernelFunctionSlots& slots, void (*kernel)(P...),
                       const char* fn, const char* what, dim3 grid, dim3 block, std::size_t smem,
                       cudaStream_t stream, typename Exactly<P>::type... params) {
  const auto cu_launch = driver_api().cuLaunchKernel;
  CUresult r = CUDA_ERROR_NOT_FOUND;
  const CUfunction handle = any_context ? kernel_function(any_context, slots) : nullptr;
  if (handle && cu_launch) {
    void* args[] = {static_cast<void*>(&params)..., nullptr};
    r = cu_launch(handle, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                  static_cast<unsigned>(smem), reinterpret_cast<CUstream>(stream), args, nullptr);
    if (r == CUDA_SUCCESS) return GPUOPT_SUCCESS;
  }
  if (log_enabled(LogLevel::debug))
    log(LogLevel::debug, "%s: %s through the runtime (direct launch: %s)", fn, what,
        handle && cu_launch ? driver_error_name(r) : "no driver entry or kernel handle");
  kernel<<<grid, block, smem, stream>>>(params...);
  return check_launch(fn, what);
}

}  // namespace direct_launch_detail

// Launches Kernel<<<grid, block, smem, stream>>>(args...) through the driver (see the top
// comment); `what` names the launch in an error message of `fn`. Arguments convert to the
// kernel's parameter types as in a <<<>>> launch.
template <auto Kernel, class... Args>
gpuopt_status_t launch_direct(const char* fn, const char* what, dim3 grid, dim3 block,
                              std::size_t smem, cudaStream_t stream, Args&&... args) {
  static const CUkernel handle =
      direct_launch_detail::kernel_handle(reinterpret_cast<const void*>(Kernel));
  static KernelFunctionSlots slots;
  return direct_launch_detail::launch(handle, slots, Kernel, fn, what, grid, block, smem, stream,
                                      static_cast<Args&&>(args)...);
}

}  // namespace gpuopt
