#include "runtime/no_device.hpp"

#include <dlfcn.h>

#include <string>

#include "runtime/error.hpp"

#ifndef GPUOPT_MIN_CC  // the lowest SASS target of the build (cmake/GpuoptArchitectures.cmake)
#define GPUOPT_MIN_CC 80
#endif

namespace gpuopt {
namespace {

// Whether the driver library loads; the loader's reason in `why` when it does not. The CUDA
// runtime loads the same soname, so this tells "no driver" from "a driver that found nothing".
bool driver_library_loads(std::string& why) {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (h) {
    dlclose(h);
    return true;
  }
  const char* e = dlerror();
  why = e ? e : "no reason given";
  return false;
}

}  // namespace

gpuopt_status_t fail_no_device(const char* fn, cudaError_t err) {
  cudaGetLastError();
  constexpr int cc_major = GPUOPT_MIN_CC / 10, cc_minor = GPUOPT_MIN_CC % 10;
  std::string why;
  if (!driver_library_loads(why))
    return fail(GPUOPT_ERROR_NO_DEVICE, fn,
                "no NVIDIA driver found (libcuda.so.1 could not be loaded: %s); install the "
                "NVIDIA driver (580 or newer, for CUDA 13) on a machine with an NVIDIA GPU of "
                "compute capability %d.%d or newer",
                why.c_str(), cc_major, cc_minor);
  if (err == cudaErrorInsufficientDriver || err == cudaErrorSystemDriverMismatch ||
      err == cudaErrorCompatNotSupportedOnDevice)
    return fail(GPUOPT_ERROR_NO_DEVICE, fn,
                "NVIDIA driver found, but it cannot run the CUDA %d.%d runtime gpuopt was built "
                "with (%s: %s); install driver 580 or newer, or check that libcuda.so.1 and the "
                "kernel module are of the same version (nvidia-smi)",
                CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, cudaGetErrorName(err),
                cudaGetErrorString(err));
  return fail(GPUOPT_ERROR_NO_DEVICE, fn,
              "driver found but no CUDA device is usable (%s: %s); check nvidia-smi and "
              "CUDA_VISIBLE_DEVICES; gpuopt needs an NVIDIA GPU of compute capability %d.%d or "
              "newer",
              err == cudaSuccess ? "device count is 0" : cudaGetErrorName(err),
              err == cudaSuccess ? "no device" : cudaGetErrorString(err), cc_major, cc_minor);
}

}  // namespace gpuopt
