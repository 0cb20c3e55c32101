#include "runtime/error.hpp"

#include <cstdio>

namespace gpuopt {
namespace {
thread_local std::string t_message;
}

const std::string& last_message() { return t_message; }

gpuopt_status_t fail(gpuopt_status_t status, const char* fn, const char* fmt, ...) {
  char body[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(body, sizeof body, fmt, ap);
  va_end(ap);
  try {
    t_message = std::string(fn) + ": " + body;
  } catch (...) {
    // Out of host memory while reporting: keep the old message rather than throw.
  }
  return status;
}

gpuopt_status_t status_of_cuda(cudaError_t err) {
  switch (err) {
    case cudaSuccess:
      return GPUOPT_SUCCESS;
    case cudaErrorMemoryAllocation:
      return GPUOPT_ERROR_OUT_OF_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
      return GPUOPT_ERROR_NO_DEVICE;
    case cudaErrorStreamCaptureUnsupported:
    case cudaErrorStreamCaptureInvalidated:
    case cudaErrorStreamCaptureImplicit:
    case cudaErrorStreamCaptureWrongThread:
    case cudaErrorStreamCaptureUnmatched:
    case cudaErrorStreamCaptureUnjoined:
    case cudaErrorStreamCaptureIsolation:
    case cudaErrorCapturedEvent:
      return GPUOPT_ERROR_CAPTURE_ILLEGAL;
    case cudaErrorMisalignedAddress:
      return GPUOPT_ERROR_MISALIGNED;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorNotSupported:
      return GPUOPT_ERROR_UNSUPPORTED;
    default:
      return GPUOPT_ERROR_CUDA;
  }
}

gpuopt_status_t fail_cuda(cudaError_t err, const char* fn, const char* what) {
  // Clear a non-sticky error (out of memory, an illegal call during capture, ...) so that the
  // next launch's cudaGetLastError does not report it again: the context keeps working. A sticky
  // error (a kernel fault) stays: every later call reports it.
  cudaGetLastError();
  return fail(status_of_cuda(err), fn, "%s: %s (%s)", what, cudaGetErrorName(err),
              cudaGetErrorString(err));
}

}  // namespace gpuopt
