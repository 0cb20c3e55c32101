// Buffers: device, pinned host, mapped, compressible (driver VMM) and wrapped memory.
#pragma once
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>

#include "context.hpp"

struct gpuopt_buffer_s {
  gpuopt_context_s* ctx = nullptr;
  gpuopt_memory_kind_t kind = GPUOPT_MEMORY_DEVICE;
  std::size_t bytes = 0;
  void* device_ptr = nullptr;  // nullptr for pinned host memory
  void* host_ptr = nullptr;    // pinned and mapped only
  bool compressed = false;
  gpuopt::Allocator allocator;  // what allocated device memory (GPUOPT_MEMORY_DEVICE)
  bool stream_ordered = false;  // from the device's pool (ordered_memory.hpp)
  // VMM bookkeeping (compressible kind)
  CUmemGenericAllocationHandle vmm_handle = 0;
  std::size_t vmm_reserved = 0;
};

namespace gpuopt {

using Buffer = gpuopt_buffer_s;

gpuopt_status_t check_buffer(const char* fn, gpuopt_buffer_t b, const char* arg = "buffer");

// Allocates compressible memory through the VMM API; falls back to an uncompressed VMM
// allocation where the device or driver declines compression (b.compressed says which).
// "device", "pinned host", ... for messages and logs.
const char* memory_kind_name(gpuopt_memory_kind_t kind);

// Allocates b.bytes of b.kind memory into b (device memory through the context's allocator;
// the range goes into the context's range cache, compressed ranges into its compressible
// table); nothing is left allocated on failure.
gpuopt_status_t buffer_allocate(const char* fn, Buffer& b);
// Frees what buffer_allocate made (nothing for wrapped memory): after a device synchronization,
// through the free gate.
gpuopt_status_t buffer_release(const char* fn, Buffer& b);
// The same in the order of `stream` (gpuopt_buffer_destroy_async), with no synchronization and
// outside the free gate, for pool memory (cudaFreeAsync) and the caller's allocator (deallocate
// gets the stream); every other kind goes through buffer_release.
gpuopt_status_t buffer_release_ordered(const char* fn, Buffer& b, cudaStream_t stream);

gpuopt_status_t vmm_allocate(const char* fn, Buffer& b);
gpuopt_status_t vmm_free(const char* fn, Buffer& b);

}  // namespace gpuopt
