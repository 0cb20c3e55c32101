// A gpuopt stream: a CUDA stream (owned or borrowed) with its own cuBLAS handle and workspace,
// created up front so enqueueing never allocates (graph capture included).
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <atomic>

#include "context.hpp"

struct gpuopt_stream_s {
  gpuopt_context_s* ctx = nullptr;
  cudaStream_t stream = nullptr;
  bool owned = false;
  cublasHandle_t blas = nullptr;
  void* blas_workspace = nullptr;
  void* op_workspace = nullptr;        // kOpWorkspaceBytes, zeroed at creation (registry.hpp)
  std::atomic<bool> capturing{false};  // between gpuopt_graph_begin and _end
};

namespace gpuopt {

using Stream = gpuopt_stream_s;

// Validates a stream handle argument; when ctx is given, the stream must belong to it.
gpuopt_status_t check_stream(const char* fn, gpuopt_stream_t s, const Context* ctx,
                             const char* arg = "stream");

// Answers GPUOPT_ERROR_CAPTURE_ILLEGAL when the calling thread has a gpuopt capture open (an
// allocating or synchronizing call would invalidate it).
gpuopt_status_t check_not_capturing(const char* fn);

// Per-thread count of captures begun by gpuopt_graph_begin and not yet ended.
int& thread_capture_depth();

// Enqueue environment for launchers.
ExecEnv exec_env(const char* fn, const Stream& s);

}  // namespace gpuopt

namespace gpuopt {
// Builds a gpuopt stream on the context's device around cuda_stream (created when owned is
// true) with its cuBLAS handle and workspace. On failure nothing is left allocated.
gpuopt_status_t stream_open(const char* fn, Context& ctx, cudaStream_t cuda_stream, bool owned,
                            Stream** out);
// Releases what stream_open made (not a borrowed cudaStream_t).
void stream_close(Stream* s);
// The status of a failed cuBLAS call (OUT_OF_MEMORY for allocation failures, else CUBLAS), with
// "what: name (description)" as the message of fn.
gpuopt_status_t blas_fail(cublasStatus_t st, const char* fn, const char* what);

}  // namespace gpuopt
