// Stream-ordered device memory of a context (cudaMallocAsync / cudaFreeAsync), where the device
// has memory pools (cudaDevAttrMemoryPoolsSupported): GPUOPT_MEMORY_DEVICE buffers come from a
// pool of the context, so that gpuopt_buffer_destroy_async can give them back in a stream's
// order, with no device synchronization and outside the free gate.
//
// Allocation keeps gpuopt_buffer_create's contract (memory usable at once on every stream): the
// block is allocated on the context's private allocation stream, which is then synchronized
// (it holds nothing but allocations, so the wait is for the allocation alone). The pool is the
// context's own rather than the device's default one so that its reuse policy is gpuopt's: it
// never makes an allocation wait for a free still pending on another stream
// (cudaMemPoolReuseAllowInternalDependencies off), which would make gpuopt_buffer_create wait
// for that stream's work; a block is reused once its free has run. Its release threshold stays
// 0, as cudaFree's footprint: unused memory goes back to the device at synchronizations.
//
// With the caller's allocator (gpuopt_context_set_allocator), whose deallocate may reuse a block
// at once on any stream, a stream-ordered free is deferred instead: an event recorded on the
// stream is kept with the block, and deallocate runs once the event has completed (reaped at the
// context's next buffer call, waited for at context destroy and allocator change), through the
// free gate like every free that may synchronize.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <vector>

#include "allocator.hpp"
#include "gpuopt.h"

namespace gpuopt {

struct OrderedMemory {
  bool supported = false;  // the device has memory pools (read at context creation)
  std::mutex mu;
  cudaStream_t stream = nullptr;  // private allocation stream, made at the first allocation
  cudaMemPool_t pool = nullptr;   // made with it
  struct Deferred {
    cudaEvent_t done = nullptr;  // recorded on the freeing stream
    void* p = nullptr;
    std::size_t bytes = 0;
    Allocator allocator;
  };
  std::vector<Deferred> deferred;  // the caller's allocator's blocks waiting for their stream
};

// Reads whether `device` (current) supports memory pools; false when the query fails.
bool memory_pools_supported(int device);

// `bytes` from the device's current pool, usable on every stream when it returns.
gpuopt_status_t ordered_allocate(const char* fn, OrderedMemory& m, std::size_t bytes, void** out);

// Frees p (from ordered_allocate) in the order of `stream`: no synchronization.
gpuopt_status_t ordered_free(const char* fn, void* p, cudaStream_t stream);

// Frees p after a device synchronization (gpuopt_buffer_destroy: no stream is known, so every
// queued use must end first, as cudaFree would wait for it). Needs no context: it may run
// deferred by the free gate.
gpuopt_status_t ordered_free_synchronized(const char* fn, void* p);

// Gives p back to `a` once the work enqueued on `stream` so far has completed (no wait now).
gpuopt_status_t defer_deallocate(const char* fn, OrderedMemory& m, const Allocator& a, void* p,
                                 std::size_t bytes, cudaStream_t stream);

// Calls deallocate for the deferred blocks whose stream work has completed (all of them, waiting
// for each, when `wait`), on `device` through the free gate.
void reap_deallocations(OrderedMemory& m, int device, bool wait);

// Destroys the allocation stream and the pool (context destroy; the pool goes once the frees
// still pending have run).
void ordered_close(OrderedMemory& m);

}  // namespace gpuopt
