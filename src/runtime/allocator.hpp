// Device memory of a context: gpuopt's own (cudaMalloc / cudaFree) or the caller's allocator set
// with gpuopt_context_set_allocator (a framework's pool). Every stream workspace and every
// GPUOPT_MEMORY_DEVICE buffer is allocated here.
#pragma once
#include <cstddef>

#include "gpuopt.h"

namespace gpuopt {

struct Allocator {
  void* (*allocate)(std::size_t bytes, void* cuda_stream,
                    void* user) = nullptr;  // null: cudaMalloc
  void (*deallocate)(void* ptr, std::size_t bytes, void* cuda_stream, void* user) = nullptr;
  void* user = nullptr;
};

// The allocator described by a (validated: struct_size, both callbacks or none) public struct;
// NULL is gpuopt's own.
gpuopt_status_t allocator_from(const char* fn, const gpuopt_allocator_t* in, Allocator* out);

// `bytes` of device memory of the current device from a (OUT_OF_MEMORY naming `what` when it
// cannot).
gpuopt_status_t device_allocate(const char* fn, const char* what, const Allocator& a,
                                std::size_t bytes, void** out);

// Gives p back to a once no queued work uses it: cudaFree waits for the device itself; before
// the caller's deallocate (which may hand p out again at once) the device is synchronized.
gpuopt_status_t device_release(const char* fn, const Allocator& a, void* p, std::size_t bytes);

}  // namespace gpuopt
