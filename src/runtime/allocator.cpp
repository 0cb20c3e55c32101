#include "runtime/allocator.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

#include "runtime/error.hpp"
#include "runtime/versioned_struct.hpp"

namespace gpuopt {

gpuopt_status_t allocator_from(const char* fn, const gpuopt_allocator_t* in, Allocator* out) {
  *out = Allocator{};
  if (!in) return GPUOPT_SUCCESS;
  gpuopt_allocator_t a{};
  GPUOPT_TRY(read_versioned(fn, "allocator", "gpuopt_allocator_t", in, sizeof a, &a));
  if (!a.allocate || !a.deallocate)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "allocator->%s is NULL; set both allocate and deallocate (or pass allocator = "
                "NULL for gpuopt's own allocation)",
                a.allocate ? "deallocate" : "allocate");
  out->allocate = a.allocate;
  out->deallocate = a.deallocate;
  out->user = a.user;
  return GPUOPT_SUCCESS;
}

gpuopt_status_t device_allocate(const char* fn, const char* what, const Allocator& a,
                                std::size_t bytes, void** out) {
  *out = nullptr;
  if (!a.allocate) {
    if (cudaError_t e = cudaMalloc(out, bytes)) {
      *out = nullptr;
      return fail_cuda(e, fn, what);
    }
    return GPUOPT_SUCCESS;
  }
  void* p = a.allocate(bytes, nullptr, a.user);
  if (!p)
    return fail(GPUOPT_ERROR_OUT_OF_MEMORY, fn,
                "%s: the context's allocator returned NULL for %zu bytes", what, bytes);
  if (reinterpret_cast<std::uintptr_t>(p) % 256) {
    a.deallocate(p, bytes, nullptr, a.user);
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "%s: the context's allocator returned %p, not aligned to 256 bytes", what, p);
  }
  *out = p;
  return GPUOPT_SUCCESS;
}

gpuopt_status_t device_release(const char* fn, const Allocator& a, void* p, std::size_t bytes) {
  if (!p) return GPUOPT_SUCCESS;
  if (!a.deallocate) {
    GPUOPT_TRY_CUDA(cudaFree(p), fn, "cudaFree");
    return GPUOPT_SUCCESS;
  }
  // Given back even when the wait fails (a device with a sticky error runs nothing any more).
  const cudaError_t e = cudaDeviceSynchronize();
  a.deallocate(p, bytes, nullptr, a.user);
  return e == cudaSuccess ? GPUOPT_SUCCESS
                          : fail_cuda(e, fn, "cudaDeviceSynchronize before deallocate");
}

}  // namespace gpuopt
