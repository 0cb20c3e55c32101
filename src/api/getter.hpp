// The read-only property getters of the handles (gpuopt_buffer_size, gpuopt_comm_rank, ...):
// validate the handle, refuse a NULL out pointer by name, write the property.
#pragma once
#include "gpuopt.h"
#include "runtime/error.hpp"

namespace gpuopt {

// check(fn, handle, handle_name) validates the handle; get(handle) reads the property into *out.
template <class Handle, class T, class Get>
gpuopt_status_t get_property(const char* fn,
                             gpuopt_status_t (*check)(const char*, Handle, const char*),
                             const char* handle_name, Handle handle, const char* out_name, T* out,
                             Get get) noexcept {
  return guarded(fn, [&] {
    GPUOPT_TRY(check(fn, handle, handle_name));
    if (!out) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "%s is NULL", out_name);
    *out = get(handle);
    return GPUOPT_SUCCESS;
  });
}

}  // namespace gpuopt
