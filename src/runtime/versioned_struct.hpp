// Reading a versioned struct a caller passes in: one that starts with `size_t struct_size` and
// grows only by appending fields (the ABI rule for descriptors, include/gpuopt.h). An older
// caller's struct covers a prefix; the fields it does not cover take their defaults. Every
// descriptor and the allocator are read through here, so the rule and its message live once.
#pragma once
#include <cstddef>

#include "gpuopt.h"

// Bytes of struct T up to and including `field`: the minimum struct_size when every field through
// `field` must be provided (those of the first version of T).
#define GPUOPT_SIZE_THROUGH(T, field) (offsetof(T, field) + sizeof(static_cast<T*>(nullptr)->field))

namespace gpuopt {

// Type-erased form of read_versioned: copies min(in's struct_size, full_size) bytes of in over
// out, which holds the defaults.
gpuopt_status_t read_versioned_bytes(const char* fn, const char* arg, const char* type_name,
                                     const void* in, std::size_t min_size, std::size_t full_size,
                                     void* out);

// Reads *in over *out, which holds the defaults on entry (so fields past the caller's struct_size
// keep them). INVALID_ARGUMENT with a message of fn naming arg when in is NULL ("desc is NULL") or
// its struct_size is below min_size ("desc->struct_size is 8; set it to sizeof(type_name) (96)");
// *out is then unchanged. Fields past sizeof(T) (a newer caller) are ignored.
template <class T>
gpuopt_status_t read_versioned(const char* fn, const char* arg, const char* type_name, const T* in,
                               std::size_t min_size, T* out) {
  return read_versioned_bytes(fn, arg, type_name, in, min_size, sizeof(T), out);
}

}  // namespace gpuopt
