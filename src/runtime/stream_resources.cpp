#include "runtime/stream_resources.hpp"

#include <memory>
#include <utility>

#include "runtime/blas_error.hpp"
#include "runtime/error.hpp"
#include "runtime/free_gate.hpp"
#include "runtime/registry.hpp"
#include "runtime/stream.hpp"

namespace gpuopt {
namespace {

// cuBLAS recommends 32 MiB of workspace on Hopper, 4 MiB before it.
std::size_t blas_workspace_bytes(int cc) { return cc >= 90 ? (32u << 20) : (4u << 20); }

void destroy_set(StreamResources* r) {
  if (r->blas) cublasDestroy(r->blas);
  if (r->released) cudaEventDestroy(r->released);
  device_release("gpuopt_context_destroy", r->allocator, r->blas_workspace,
                 r->blas_workspace_bytes);
  device_release("gpuopt_context_destroy", r->allocator, r->op_workspace, kOpWorkspaceBytes);
  cudaGetLastError();
  delete r;
}

// destroy_set through the free gate, on the current device (a failed make_set).
void destroy_set_gated(StreamResources* r) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) cudaGetLastError();
  gate_free(device, [r]() -> gpuopt_status_t {
    destroy_set(r);
    return GPUOPT_SUCCESS;
  });
}

// A new set on the current device; its op workspace is zeroed on `stream`.
gpuopt_status_t make_set(const char* fn, const Allocator& allocator, int cc, cudaStream_t stream,
                         StreamResources** out) {
  std::unique_ptr<StreamResources, void (*)(StreamResources*)> r(new StreamResources,
                                                                 destroy_set_gated);
  r->allocator = allocator;
  cublasStatus_t st = cublasCreate(&r->blas);
  if (st != CUBLAS_STATUS_SUCCESS) {
    r->blas = nullptr;
    return blas_fail(st, fn, "cublasCreate");
  }
  GPUOPT_TRY_CUDA(cudaEventCreateWithFlags(&r->released, cudaEventDisableTiming), fn,
                  "cudaEventCreateWithFlags");
  r->blas_workspace_bytes = blas_workspace_bytes(cc);
  GPUOPT_TRY(device_allocate(fn, "allocating the cuBLAS workspace", allocator,
                             r->blas_workspace_bytes, &r->blas_workspace));
  GPUOPT_TRY(device_allocate(fn, "allocating the op workspace", allocator, kOpWorkspaceBytes,
                             &r->op_workspace));
  // Zeroed before any kernel can use it (its counters must start at zero).
  GPUOPT_TRY_CUDA(cudaMemsetAsync(r->op_workspace, 0, kOpWorkspaceBytes, stream), fn,
                  "cudaMemsetAsync of the op workspace");
  *out = r.release();
  return GPUOPT_SUCCESS;
}

void push_idle(ResourcePool& pool, StreamResources* r) {
  std::lock_guard<std::mutex> lock(pool.mu);
  pool.idle.push_back(r);
}

StreamResources* pop_idle(ResourcePool& pool) {
  std::lock_guard<std::mutex> lock(pool.mu);
  if (pool.idle.empty()) return nullptr;
  StreamResources* r = pool.idle.back();
  pool.idle.pop_back();
  return r;
}

}  // namespace

gpuopt_status_t resources_take(const char* fn, ResourcePool& pool, const Allocator& allocator,
                               int cc, cudaStream_t stream, TakeMode mode, StreamResources** out) {
  StreamResources* r = pop_idle(pool);
  if (!r && mode == TakeMode::enqueue_no_alloc)
    return fail(GPUOPT_ERROR_CAPTURE_ILLEGAL, fn,
                "stream has no cuBLAS handle and workspace yet, and this thread is capturing a "
                "graph, so none can be allocated: run one op on the stream (or begin its own "
                "capture) before this thread's capture begins");
  if (r) {
    cudaError_t e = mode == TakeMode::before_capture ? cudaEventSynchronize(r->released)
                                                     : cudaStreamWaitEvent(stream, r->released, 0);
    if (e != cudaSuccess) {
      push_idle(pool, r);
      return fail_cuda(e, fn, "waiting for the workspace's previous stream");
    }
  } else {
    GPUOPT_TRY(make_set(fn, allocator, cc, stream, &r));
    // A graph captured next may run on another stream: the zeroing must be done by then.
    if (mode == TakeMode::before_capture) {
      if (cudaError_t e = cudaStreamSynchronize(stream)) {
        resources_give_back(pool, r, stream);
        return fail_cuda(e, fn, "cudaStreamSynchronize");
      }
    }
  }
  cublasStatus_t st = cublasSetStream(r->blas, stream);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasSetWorkspace(r->blas, r->blas_workspace, r->blas_workspace_bytes);
  if (st != CUBLAS_STATUS_SUCCESS) {
    resources_give_back(pool, r, stream);
    return blas_fail(st, fn, "cublasSetStream/cublasSetWorkspace");
  }
  *out = r;
  return GPUOPT_SUCCESS;
}

void resources_give_back(ResourcePool& pool, StreamResources* r, cudaStream_t stream) {
  // After the work already on `stream`; cuBLAS forgets the stream (a borrowed one may be
  // destroyed by its owner as soon as the gpuopt stream is).
  if (cudaEventRecord(r->released, stream) != cudaSuccess) {
    cudaGetLastError();
    cudaStreamSynchronize(stream);  // no event: the next user cannot wait, so wait now
    cudaGetLastError();
    cudaEventRecord(r->released, nullptr);
    cudaGetLastError();
  }
  cublasSetStream(r->blas, nullptr);
  push_idle(pool, r);
}

void resources_drain(ResourcePool& pool, int device) {
  std::vector<StreamResources*> sets;
  {
    std::lock_guard<std::mutex> lock(pool.mu);
    sets.swap(pool.idle);
  }
  if (sets.empty()) return;
  // cublasDestroy and the frees synchronize the device: through the free gate (free_gate.hpp).
  gate_free(device, [sets]() -> gpuopt_status_t {
    for (StreamResources* r : sets) destroy_set(r);
    return GPUOPT_SUCCESS;
  });
}

}  // namespace gpuopt
