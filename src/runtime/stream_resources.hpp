// What enqueueing on a gpuopt stream needs besides the CUDA stream: a cuBLAS handle, its
// workspace and the op workspace (kOpWorkspaceBytes, registry.hpp). A stream holds one set from
// its first op (or gpuopt_graph_begin) until it is destroyed; sets are pooled per context, so
// creating or wrapping a stream allocates nothing and a wrap per call reuses the same set.
//
// Ordering: a set given back records `released` on the stream that used it; the next stream to
// take it waits for that event (cudaStreamWaitEvent), so its kernels never overlap the previous
// user's, and the op workspace is zero again by then (each op leaves its zeros as it found
// them). A set taken for a capture (gpuopt_graph_begin) waits on the host instead, because the
// graph may later run on any stream.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <vector>

#include "allocator.hpp"
#include "gpuopt.h"

namespace gpuopt {

struct StreamResources {
  cublasHandle_t blas = nullptr;
  void* blas_workspace = nullptr;
  std::size_t blas_workspace_bytes = 0;
  void* op_workspace = nullptr;
  cudaEvent_t released = nullptr;  // recorded when the last stream gave the set back
  Allocator allocator;             // what made the workspaces (they go back to it)
};

// A context's idle sets.
struct ResourcePool {
  std::mutex mu;
  std::vector<StreamResources*> idle;
};

// How the stream taking a set is being used right now.
enum class TakeMode {
  enqueue,           // an op: the stream waits for the set's previous user (an event)
  enqueue_no_alloc,  // an op while this thread captures another stream: nothing may allocate,
                     // so only an idle set will do (CAPTURE_ILLEGAL without one)
  before_capture,    // gpuopt_graph_begin, before cudaStreamBeginCapture: waits on the host
};

// A set for `stream` (cuBLAS bound to it, workspaces set), from the pool or made with
// `allocator` on the current device (cc selects the cuBLAS workspace size).
gpuopt_status_t resources_take(const char* fn, ResourcePool& pool, const Allocator& allocator,
                               int cc, cudaStream_t stream, TakeMode mode, StreamResources** out);

// Back to the pool after the work already enqueued on `stream`.
void resources_give_back(ResourcePool& pool, StreamResources* r, cudaStream_t stream);

// Frees every idle set, each through the allocator that made it (context destroy, allocator
// change). `device` is current while the frees run (through the free gate).
void resources_drain(ResourcePool& pool, int device);

}  // namespace gpuopt
