#include "runtime/stream.hpp"

#include <memory>

#include "runtime/deviceless.hpp"
#include "runtime/error.hpp"
#include "runtime/handles.hpp"

namespace gpuopt {

int& thread_capture_depth() {
  thread_local int depth = 0;
  return depth;
}

gpuopt_status_t check_not_capturing(const char* fn) {
  if (thread_capture_depth() > 0)
    return fail(GPUOPT_ERROR_CAPTURE_ILLEGAL, fn,
                "this thread is capturing a graph (gpuopt_graph_begin without gpuopt_graph_end); "
                "allocating, freeing or synchronizing now would invalidate the capture: do it "
                "before gpuopt_graph_begin or after gpuopt_graph_end");
  return GPUOPT_SUCCESS;
}

gpuopt_status_t check_stream_not_captured(const char* fn, const Stream& s) {
  bool captured = s.capturing.load(std::memory_order_relaxed);
  if (!captured && s.stream && !deviceless_active()) {
    cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(s.stream, &cap) != cudaSuccess) cudaGetLastError();
    captured = cap != cudaStreamCaptureStatusNone;
  }
  if (captured)
    return fail(GPUOPT_ERROR_CAPTURE_ILLEGAL, fn,
                "stream is being captured; a stream-ordered free there would become part of the "
                "graph: free on another stream, or after the capture ends");
  return GPUOPT_SUCCESS;
}

gpuopt_status_t check_stream(const char* fn, gpuopt_stream_t s, const Context* ctx,
                             const char* arg) {
  GPUOPT_TRY(check_handle(fn, s, HandleKind::stream, arg));
  if (ctx && s->ctx != ctx)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "%s belongs to another context (device %d); the call's context is on device %d",
                arg, s->ctx->device, ctx->device);
  return GPUOPT_SUCCESS;
}

ExecEnv exec_env(const char* fn, const Stream& s) {
  ExecEnv env;
  env.stream = s.stream;
  env.device = &s.ctx->desc;
  env.fn = fn;
  if (s.res) {
    env.blas = s.res->blas;
    env.blas_workspace = s.res->blas_workspace;
    env.blas_workspace_bytes = s.res->blas_workspace_bytes;
    env.workspace = s.res->op_workspace;
    env.workspace_bytes = kOpWorkspaceBytes;
  }
  return env;
}

namespace {
gpuopt_status_t take(const char* fn, Stream& s, TakeMode mode) {
  Context& ctx = *s.ctx;
  return resources_take(fn, ctx.pool, ctx.allocator, ctx.desc.cc, s.stream, mode, &s.res);
}
}  // namespace

gpuopt_status_t stream_ready(const char* fn, Stream& s) {
  if (s.res || deviceless_active()) return GPUOPT_SUCCESS;
  // Once per stream: a stream its owner captures cannot take a set (that may allocate or wait).
  if (!s.capturing.load(std::memory_order_relaxed)) {
    cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(s.stream, &cap) != cudaSuccess) cudaGetLastError();
    if (cap != cudaStreamCaptureStatusNone)
      return fail(GPUOPT_ERROR_CAPTURE_ILLEGAL, fn,
                  "stream's CUDA stream is being captured by its owner, and the stream has no "
                  "cuBLAS handle and workspace yet (a stream takes them at its first op, which "
                  "may allocate): run one op on it before the capture begins, or capture with "
                  "gpuopt_graph_begin");
  }
  return take(fn, s, thread_capture_depth() > 0 ? TakeMode::enqueue_no_alloc : TakeMode::enqueue);
}

gpuopt_status_t stream_ready_for_capture(const char* fn, Stream& s) {
  if (s.res || deviceless_active()) return GPUOPT_SUCCESS;
  // This thread capturing another stream already: nothing may allocate or wait on the host.
  return take(fn, s,
              thread_capture_depth() > 0 ? TakeMode::enqueue_no_alloc : TakeMode::before_capture);
}

gpuopt_status_t stream_open(const char* fn, Context& ctx, cudaStream_t cuda_stream, bool owned,
                            Stream** out) {
  auto s = std::make_unique<Stream>();
  s->ctx = &ctx;
  s->stream = cuda_stream;
  if (owned && !deviceless_active()) {  // device-less mode: no CUDA stream
    GPUOPT_TRY_CUDA(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking), fn,
                    "cudaStreamCreateWithFlags");
    s->owned = true;
  }
  handle_register(s.get(), HandleKind::stream);
  ctx.live_objects.fetch_add(1);
  *out = s.release();
  return GPUOPT_SUCCESS;
}

void stream_close(Stream* s) {
  // No wait: the resources go back to the pool behind an event recorded after the work already
  // on the stream (the next stream to take them waits for it), and an owned CUDA stream is
  // destroyed with its work still queued, which CUDA allows.
  if (s->res) resources_give_back(s->ctx->pool, s->res, s->stream);
  if (s->owned && s->stream) cudaStreamDestroy(s->stream);
  if (!deviceless_active()) cudaGetLastError();
  delete s;
}

}  // namespace gpuopt
