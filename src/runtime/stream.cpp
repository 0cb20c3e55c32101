#include "runtime/stream.hpp"

#include <memory>

#include "runtime/deviceless.hpp"
#include "runtime/error.hpp"
#include "runtime/free_gate.hpp"
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
  env.blas = s.blas;
  env.device = &s.ctx->desc;
  env.fn = fn;
  env.workspace = s.op_workspace;
  env.workspace_bytes = s.op_workspace ? kOpWorkspaceBytes : 0;
  return env;
}

namespace {
// cuBLAS recommends 32 MiB of workspace on Hopper, 4 MiB before it.
size_t blas_workspace_bytes(const Context& ctx) {
  return ctx.desc.cc >= 90 ? (32u << 20) : (4u << 20);
}

}  // namespace

gpuopt_status_t blas_fail(cublasStatus_t st, const char* fn, const char* what) {
  return fail(st == CUBLAS_STATUS_ALLOC_FAILED ? GPUOPT_ERROR_OUT_OF_MEMORY : GPUOPT_ERROR_CUBLAS,
              fn, "%s: %s (%s)", what, cublasGetStatusName(st), cublasGetStatusString(st));
}

gpuopt_status_t stream_open(const char* fn, Context& ctx, cudaStream_t cuda_stream, bool owned,
                            Stream** out) {
  // stream_close releases whatever was made so far on every early return.
  std::unique_ptr<Stream, void (*)(Stream*)> s(new Stream, stream_close);
  s->ctx = &ctx;
  if (deviceless_active()) {  // no CUDA stream, cuBLAS handle or workspace
    handle_register(s.get(), HandleKind::stream);
    ctx.live_objects.fetch_add(1);
    *out = s.release();
    return GPUOPT_SUCCESS;
  }
  s->stream = cuda_stream;
  if (owned) {
    GPUOPT_TRY_CUDA(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking), fn,
                    "cudaStreamCreateWithFlags");
    s->owned = true;
  }
  cublasStatus_t st = cublasCreate(&s->blas);
  if (st != CUBLAS_STATUS_SUCCESS) {
    s->blas = nullptr;
    return blas_fail(st, fn, "cublasCreate");
  }
  size_t ws = blas_workspace_bytes(ctx);
  GPUOPT_TRY_CUDA(cudaMalloc(&s->blas_workspace, ws), fn, "cudaMalloc of the cuBLAS workspace");
  if ((st = cublasSetStream(s->blas, s->stream)) != CUBLAS_STATUS_SUCCESS)
    return blas_fail(st, fn, "cublasSetStream");
  if ((st = cublasSetWorkspace(s->blas, s->blas_workspace, ws)) != CUBLAS_STATUS_SUCCESS)
    return blas_fail(st, fn, "cublasSetWorkspace");
  // The op workspace, zeroed before any kernel can use it (its counters must start at zero; a
  // graph captured on this stream may later run on another stream, hence the wait).
  GPUOPT_TRY_CUDA(cudaMalloc(&s->op_workspace, kOpWorkspaceBytes), fn,
                  "cudaMalloc of the op workspace");
  GPUOPT_TRY_CUDA(cudaMemsetAsync(s->op_workspace, 0, kOpWorkspaceBytes, s->stream), fn,
                  "cudaMemsetAsync of the op workspace");
  GPUOPT_TRY_CUDA(cudaStreamSynchronize(s->stream), fn, "cudaStreamSynchronize");
  handle_register(s.get(), HandleKind::stream);
  ctx.live_objects.fetch_add(1);
  *out = s.release();
  return GPUOPT_SUCCESS;
}

void stream_close(Stream* s) {
  // Now: wait for the work that may still use the workspaces, detach cuBLAS from the CUDA stream
  // (a borrowed one may be destroyed by its owner as soon as this returns), destroy an owned one.
  if (s->blas_workspace || s->op_workspace) cudaStreamSynchronize(s->stream);
  if (s->blas) cublasSetStream(s->blas, nullptr);
  if (s->owned && s->stream) cudaStreamDestroy(s->stream);
  s->stream = nullptr;
  if (!deviceless_active()) cudaGetLastError();
  // cublasDestroy and cudaFree synchronize the device: through the free gate (free_gate.hpp).
  gate_free(s->ctx ? s->ctx->device : 0, [s]() -> gpuopt_status_t {
    if (s->blas) cublasDestroy(s->blas);
    if (s->blas_workspace) cudaFree(s->blas_workspace);
    if (s->op_workspace) cudaFree(s->op_workspace);
    if (!deviceless_active()) cudaGetLastError();
    delete s;
    return GPUOPT_SUCCESS;
  });
}

}  // namespace gpuopt
