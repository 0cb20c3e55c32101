// A gpuopt stream: a CUDA stream (owned or borrowed) and, from its first op or capture on, a set
// of stream resources (cuBLAS handle and workspaces) taken from its context's pool. Creating or
// wrapping a stream allocates nothing (stream_resources.hpp).
#pragma once
#include <cuda_runtime_api.h>

#include <atomic>

#include "context.hpp"
#include "stream_resources.hpp"

struct gpuopt_stream_s {
  gpuopt_context_s* ctx = nullptr;
  cudaStream_t stream = nullptr;
  bool owned = false;
  gpuopt::StreamResources* res = nullptr;  // nullptr until the first op or capture
  std::atomic<bool> capturing{false};      // between gpuopt_graph_begin and _end
};

namespace gpuopt {

using Stream = gpuopt_stream_s;

// Validates a stream handle argument; when ctx is given, the stream must belong to it.
gpuopt_status_t check_stream(const char* fn, gpuopt_stream_t s, const Context* ctx,
                             const char* arg = "stream");

// Answers GPUOPT_ERROR_CAPTURE_ILLEGAL when the calling thread has a gpuopt capture open (an
// allocating or synchronizing call would invalidate it).
gpuopt_status_t check_not_capturing(const char* fn);

// CAPTURE_ILLEGAL when s is being captured, by gpuopt_graph_begin or by the owner of its CUDA
// stream (a stream-ordered free there would need a graph allocation).
gpuopt_status_t check_stream_not_captured(const char* fn, const Stream& s);

// Per-thread count of captures begun by gpuopt_graph_begin and not yet ended.
int& thread_capture_depth();

// Makes sure s holds its resources before an op is enqueued (a no-op after its first op): takes
// a set from the context's pool, or makes one. CAPTURE_ILLEGAL, naming what to do instead, when
// its CUDA stream is being captured by its owner (nothing may allocate or wait then).
gpuopt_status_t stream_ready(const char* fn, Stream& s);

// The same before gpuopt_graph_begin starts a capture on s: the set's previous work has
// finished when it returns, so the graph may run on any stream. While this thread captures
// another stream, only an idle set will do (CAPTURE_ILLEGAL without one).
gpuopt_status_t stream_ready_for_capture(const char* fn, Stream& s);

// Enqueue environment for launchers (after stream_ready).
ExecEnv exec_env(const char* fn, const Stream& s);

// Builds a gpuopt stream on the context's device around cuda_stream (created when owned is
// true). Nothing else is allocated.
gpuopt_status_t stream_open(const char* fn, Context& ctx, cudaStream_t cuda_stream, bool owned,
                            Stream** out);
// Gives the stream's resources back to its context's pool (after the work already enqueued) and
// destroys an owned CUDA stream (not a borrowed one).
void stream_close(Stream* s);

}  // namespace gpuopt
