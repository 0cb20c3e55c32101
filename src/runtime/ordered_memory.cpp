#include "runtime/ordered_memory.hpp"

#include <utility>

#include "runtime/error.hpp"
#include "runtime/free_gate.hpp"

namespace gpuopt {

bool memory_pools_supported(int device) {
  int v = 0;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return v != 0;
}

namespace {
// The context's pool of `device` (current), made with its policy.
gpuopt_status_t make_pool(const char* fn, int device, cudaMemPool_t* out) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  GPUOPT_TRY_CUDA(cudaMemPoolCreate(out, &props), fn, "cudaMemPoolCreate");
  int off = 0;
  if (cudaError_t e =
          cudaMemPoolSetAttribute(*out, cudaMemPoolReuseAllowInternalDependencies, &off)) {
    cudaMemPoolDestroy(*out);
    *out = nullptr;
    return fail_cuda(e, fn, "cudaMemPoolSetAttribute");
  }
  return GPUOPT_SUCCESS;
}

// The allocation stream and pool, made on first use (the context's device is current).
gpuopt_status_t allocation_stream(const char* fn, OrderedMemory& m, cudaStream_t* stream,
                                  cudaMemPool_t* pool) {
  std::lock_guard<std::mutex> lock(m.mu);
  if (!m.stream) {
    int device = 0;
    GPUOPT_TRY_CUDA(cudaGetDevice(&device), fn, "cudaGetDevice");
    GPUOPT_TRY(make_pool(fn, device, &m.pool));
    if (cudaError_t e = cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking)) {
      cudaMemPoolDestroy(m.pool);
      m.pool = nullptr;
      m.stream = nullptr;
      return fail_cuda(e, fn, "cudaStreamCreateWithFlags (the context's allocation stream)");
    }
  }
  *stream = m.stream;
  *pool = m.pool;
  return GPUOPT_SUCCESS;
}
}  // namespace

gpuopt_status_t ordered_allocate(const char* fn, OrderedMemory& m, std::size_t bytes, void** out) {
  *out = nullptr;
  cudaStream_t s = nullptr;
  cudaMemPool_t pool = nullptr;
  GPUOPT_TRY(allocation_stream(fn, m, &s, &pool));
  void* p = nullptr;
  GPUOPT_TRY_CUDA(cudaMallocFromPoolAsync(&p, bytes, pool, s), fn, "cudaMallocFromPoolAsync");
  if (cudaError_t e = cudaStreamSynchronize(s)) {
    cudaFreeAsync(p, s);
    cudaGetLastError();
    return fail_cuda(e, fn, "cudaStreamSynchronize after cudaMallocAsync");
  }
  *out = p;
  return GPUOPT_SUCCESS;
}

gpuopt_status_t ordered_free(const char* fn, void* p, cudaStream_t stream) {
  GPUOPT_TRY_CUDA(cudaFreeAsync(p, stream), fn, "cudaFreeAsync");
  return GPUOPT_SUCCESS;
}

gpuopt_status_t ordered_free_synchronized(const char* fn, void* p) {
  // Given back even when the wait fails (a device with a sticky error runs nothing any more).
  // On the calling thread's per-thread default stream: the device is idle, this may run deferred
  // by the free gate after the context (and its allocation stream) is gone, and unlike the legacy
  // default stream it joins no other blocking stream (one that another thread may be capturing).
  const cudaError_t e = cudaDeviceSynchronize();
  GPUOPT_TRY(ordered_free(fn, p, cudaStreamPerThread));
  return e == cudaSuccess ? GPUOPT_SUCCESS
                          : fail_cuda(e, fn, "cudaDeviceSynchronize before cudaFreeAsync");
}

gpuopt_status_t defer_deallocate(const char* fn, OrderedMemory& m, const Allocator& a, void* p,
                                 std::size_t bytes, cudaStream_t stream) {
  OrderedMemory::Deferred d;
  d.p = p;
  d.bytes = bytes;
  d.allocator = a;
  GPUOPT_TRY_CUDA(cudaEventCreateWithFlags(&d.done, cudaEventDisableTiming), fn,
                  "cudaEventCreateWithFlags");
  if (cudaError_t e = cudaEventRecord(d.done, stream)) {
    cudaEventDestroy(d.done);
    cudaGetLastError();
    return fail_cuda(e, fn, "cudaEventRecord on stream");
  }
  std::lock_guard<std::mutex> lock(m.mu);
  m.deferred.push_back(d);
  return GPUOPT_SUCCESS;
}

void reap_deallocations(OrderedMemory& m, int device, bool wait) {
  std::vector<OrderedMemory::Deferred> ready;
  {
    std::lock_guard<std::mutex> lock(m.mu);
    if (m.deferred.empty()) return;
    if (wait) {
      ready.swap(m.deferred);
    } else {
      std::vector<OrderedMemory::Deferred> later;
      for (const OrderedMemory::Deferred& d : m.deferred) {
        const cudaError_t e = cudaEventQuery(d.done);
        if (e == cudaErrorNotReady)
          later.push_back(d);
        else
          ready.push_back(d);  // done, or a sticky error: no work of it runs any more
      }
      m.deferred.swap(later);
    }
    cudaGetLastError();
  }
  if (ready.empty()) return;
  gate_free(device, [ready = std::move(ready), wait]() -> gpuopt_status_t {
    for (const OrderedMemory::Deferred& d : ready) {
      if (wait) cudaEventSynchronize(d.done);
      cudaEventDestroy(d.done);
      cudaGetLastError();
      d.allocator.deallocate(d.p, d.bytes, nullptr, d.allocator.user);
    }
    return GPUOPT_SUCCESS;
  });
}

void ordered_close(OrderedMemory& m) {
  std::lock_guard<std::mutex> lock(m.mu);
  if (m.stream) {
    cudaStreamDestroy(m.stream);
    cudaMemPoolDestroy(m.pool);
    cudaGetLastError();
    m.stream = nullptr;
    m.pool = nullptr;
  }
}

}  // namespace gpuopt
