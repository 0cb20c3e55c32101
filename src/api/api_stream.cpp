// Stream entry points.
#include "runtime/deviceless.hpp"
#include "runtime/error.hpp"
#include "runtime/handles.hpp"
#include "runtime/stream.hpp"

using gpuopt::fail;
using gpuopt::guarded;

extern "C" {

GPUOPT_API gpuopt_status_t gpuopt_stream_create(gpuopt_context_t ctx, gpuopt_stream_t* stream) {
  static const char* fn = "gpuopt_stream_create";
  return guarded(fn, [&] {
    if (stream) *stream = nullptr;
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    if (!stream) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "stream (the output) is NULL");
    GPUOPT_TRY(gpuopt::check_not_capturing(fn));
    GPUOPT_TRY(gpuopt::make_current(fn, *ctx));
    return gpuopt::stream_open(fn, *ctx, nullptr, true, stream);
  });
}

GPUOPT_API gpuopt_status_t gpuopt_stream_wrap(gpuopt_context_t ctx, void* cuda_stream,
                                              gpuopt_stream_t* stream) {
  static const char* fn = "gpuopt_stream_wrap";
  return guarded(fn, [&] {
    if (stream) *stream = nullptr;
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    if (!stream) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "stream (the output) is NULL");
    GPUOPT_TRY(gpuopt::check_not_capturing(fn));
    GPUOPT_TRY(gpuopt::make_current(fn, *ctx));
    auto cs = static_cast<cudaStream_t>(cuda_stream);
    if (cs && gpuopt::deviceless_active())
      return gpuopt::deviceless_stop(fn, "cudaStreamGetDevice");
    if (cs) {
      int dev = -1;
      cudaError_t err = cudaStreamGetDevice(cs, &dev);
      if (err != cudaSuccess) {
        cudaGetLastError();
        return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                    "cuda_stream (%p) is not a valid CUDA "
                    "stream: %s",
                    cuda_stream, cudaGetErrorString(err));
      }
      if (dev != ctx->device)
        return fail(GPUOPT_ERROR_WRONG_DEVICE, fn,
                    "cuda_stream belongs to device %d; the context is on device %d", dev,
                    ctx->device);
      cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
      if (cudaStreamIsCapturing(cs, &cap) == cudaSuccess && cap != cudaStreamCaptureStatusNone)
        return fail(GPUOPT_ERROR_CAPTURE_ILLEGAL, fn,
                    "cuda_stream is being captured; wrap it and run one op on it before the "
                    "capture begins (its first op takes its cuBLAS handle and workspaces, which "
                    "may allocate)");
    }
    return gpuopt::stream_open(fn, *ctx, cs, false, stream);
  });
}

GPUOPT_API gpuopt_status_t gpuopt_stream_native(gpuopt_stream_t stream, void** cuda_stream) {
  static const char* fn = "gpuopt_stream_native";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_stream(fn, stream, nullptr));
    if (!cuda_stream) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "cuda_stream is NULL");
    *cuda_stream = stream->stream;
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_stream_synchronize(gpuopt_stream_t stream) {
  static const char* fn = "gpuopt_stream_synchronize";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_stream(fn, stream, nullptr));
    if (stream->capturing.load())
      return fail(GPUOPT_ERROR_CAPTURE_ILLEGAL, fn,
                  "stream is being captured into a graph; end the capture first");
    GPUOPT_TRY(gpuopt::check_not_capturing(fn));
    GPUOPT_TRY(gpuopt::make_current(fn, *stream->ctx));
    GPUOPT_TRY_CUDA(cudaStreamSynchronize(stream->stream), fn, "cudaStreamSynchronize");
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_stream_destroy(gpuopt_stream_t stream) {
  static const char* fn = "gpuopt_stream_destroy";
  return guarded(fn, [&] {
    if (!stream) return GPUOPT_SUCCESS;
    GPUOPT_TRY(gpuopt::check_stream(fn, stream, nullptr));
    if (stream->capturing.load())
      return fail(GPUOPT_ERROR_CAPTURE_ILLEGAL, fn,
                  "stream is being captured into a graph; end the capture first");
    GPUOPT_TRY(gpuopt::check_not_capturing(fn));
    GPUOPT_TRY(gpuopt::make_current(fn, *stream->ctx));
    gpuopt::handle_unregister(stream);
    stream->ctx->live_objects.fetch_sub(1);
    gpuopt::stream_close(stream);
    return GPUOPT_SUCCESS;
  });
}

}  // extern "C"
