// Thread-local error messages and the status helpers every entry point uses.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdarg>
#include <string>

#include "gpuopt.h"

namespace gpuopt {

// Records "fn: message" as the calling thread's last error and returns status.
gpuopt_status_t fail(gpuopt_status_t status, const char* fn, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// Records a CUDA failure ("fn: what: cudaErrorX (text)") and maps it to a status:
// out-of-memory, no-device, capture errors and misalignment get their own statuses.
gpuopt_status_t fail_cuda(cudaError_t err, const char* fn, const char* what);

// Maps a CUDA error to the gpuopt status it stands for.
gpuopt_status_t status_of_cuda(cudaError_t err);

// The calling thread's last message (empty when none).
const std::string& last_message();

// Runs body, turning any C++ exception into GPUOPT_ERROR_OUT_OF_MEMORY / INTERNAL so that none
// crosses the C ABI.
template <class Body>
gpuopt_status_t guarded(const char* fn, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(GPUOPT_ERROR_OUT_OF_MEMORY, fn, "host allocation failed");
  } catch (const std::exception& e) {
    return fail(GPUOPT_ERROR_INTERNAL, fn, "unexpected exception: %s", e.what());
  } catch (...) {
    return fail(GPUOPT_ERROR_INTERNAL, fn, "unexpected exception");
  }
}

}  // namespace gpuopt

namespace gpuopt {
// Device-less mode (runtime/deviceless.hpp): the test seam that stops at every CUDA call site.
bool deviceless_active();
gpuopt_status_t deviceless_stop(const char* fn, const char* what);
}  // namespace gpuopt

// Returns from the enclosing function when a CUDA call fails (in device-less mode, before it).
#define GPUOPT_TRY_CUDA(call, fn, what)                                                \
  do {                                                                                 \
    if (::gpuopt::deviceless_active()) return ::gpuopt::deviceless_stop(fn, what);     \
    cudaError_t gpuopt_err_ = (call);                                                  \
    if (gpuopt_err_ != cudaSuccess) return ::gpuopt::fail_cuda(gpuopt_err_, fn, what); \
  } while (0)

// Returns from the enclosing function when a gpuopt call fails.
#define GPUOPT_TRY(call)                                 \
  do {                                                   \
    gpuopt_status_t gpuopt_st_ = (call);                 \
    if (gpuopt_st_ != GPUOPT_SUCCESS) return gpuopt_st_; \
  } while (0)
