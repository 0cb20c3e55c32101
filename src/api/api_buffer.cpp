// Buffer entry points.
#include <cuda_runtime_api.h>

#include <memory>

#include "api/getter.hpp"
#include "runtime/buffer.hpp"
#include "runtime/deviceless.hpp"
#include "runtime/error.hpp"
#include "runtime/handles.hpp"
#include "runtime/log.hpp"
#include "runtime/stream.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace {

gpuopt_status_t finish(gpuopt::Buffer* raw, gpuopt_buffer_t* out) {
  gpuopt::handle_register(raw, gpuopt::HandleKind::buffer);
  raw->ctx->live_objects.fetch_add(1);
  *out = raw;
  return GPUOPT_SUCCESS;
}

// The handle of a buffer whose memory was released (or is on its way back).
gpuopt_status_t forget(gpuopt::Buffer* b) {
  gpuopt::handle_unregister(b);
  b->ctx->live_objects.fetch_sub(1);
  delete b;
  return GPUOPT_SUCCESS;
}

// Checks that [offset, offset + bytes) lies inside the buffer.
gpuopt_status_t check_span(const char* fn, const gpuopt::Buffer& b, size_t offset, size_t bytes) {
  if (bytes == 0) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "bytes is 0");
  if (offset > b.bytes || bytes > b.bytes - offset)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "offset %zu + bytes %zu exceeds the buffer's %zu bytes", offset, bytes, b.bytes);
  return GPUOPT_SUCCESS;
}

// Where copies to and from the buffer land: device pointer, else host pointer.
char* base_of(const gpuopt::Buffer& b) {
  return static_cast<char*>(b.host_ptr ? b.host_ptr : b.device_ptr);
}

// A pageable host pointer makes the copy synchronous, which a capture cannot record.
gpuopt_status_t check_capturable(const char* fn, const gpuopt::Stream& s, const void* host,
                                 const char* arg) {
  if (!s.capturing.load()) return GPUOPT_SUCCESS;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, host) != cudaSuccess ||
      attr.type == cudaMemoryTypeUnregistered) {
    cudaGetLastError();
    return fail(GPUOPT_ERROR_CAPTURE_ILLEGAL, fn,
                "%s is pageable host memory and stream is being captured: a graph can only copy "
                "from pinned memory",
                arg);
  }
  return GPUOPT_SUCCESS;
}

}  // namespace

extern "C" {

GPUOPT_API gpuopt_status_t gpuopt_buffer_create(gpuopt_context_t ctx, size_t bytes,
                                                gpuopt_memory_kind_t kind,
                                                gpuopt_buffer_t* buffer) {
  static const char* fn = "gpuopt_buffer_create";
  return guarded(fn, [&] {
    if (buffer) *buffer = nullptr;
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    if (!buffer) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "buffer (the output) is NULL");
    if (bytes == 0) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "bytes is 0; expected > 0");
    GPUOPT_TRY(gpuopt::check_not_capturing(fn));
    GPUOPT_TRY(gpuopt::make_current(fn, *ctx));
    auto b = std::make_unique<gpuopt::Buffer>();
    b->ctx = ctx;
    b->kind = kind;
    b->bytes = bytes;
    GPUOPT_TRY(gpuopt::buffer_allocate(fn, *b));
    gpuopt::log(gpuopt::LogLevel::debug, "buffer %p: %zu bytes of %s memory", b->device_ptr, bytes,
                gpuopt::memory_kind_name(kind));
    return finish(b.release(), buffer);
  });
}

GPUOPT_API gpuopt_status_t gpuopt_buffer_wrap(gpuopt_context_t ctx, void* device_ptr, size_t bytes,
                                              gpuopt_buffer_t* buffer) {
  static const char* fn = "gpuopt_buffer_wrap";
  return guarded(fn, [&] {
    if (buffer) *buffer = nullptr;
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    if (!buffer) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "buffer (the output) is NULL");
    if (!device_ptr) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "device_ptr is NULL");
    if (bytes == 0) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "bytes is 0; expected > 0");
    GPUOPT_TRY(gpuopt::make_current(fn, *ctx));
    GPUOPT_TRY(gpuopt::check_device_range(fn, "device_ptr", *ctx, device_ptr, bytes));
    auto b = std::make_unique<gpuopt::Buffer>();
    b->ctx = ctx;
    b->kind = GPUOPT_MEMORY_EXTERNAL;
    b->bytes = bytes;
    b->device_ptr = device_ptr;
    // Borrowed until the buffer is destroyed: pointers into it are checked with no driver query.
    if (!gpuopt::deviceless_active()) gpuopt::remember_owned_range(*ctx, device_ptr, bytes);
    return finish(b.release(), buffer);
  });
}

GPUOPT_API gpuopt_status_t gpuopt_buffer_device_pointer(gpuopt_buffer_t buffer, void** ptr) {
  static const char* fn = "gpuopt_buffer_device_pointer";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_buffer(fn, buffer));
    if (!ptr) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "ptr is NULL");
    *ptr = nullptr;
    if (!buffer->device_ptr)
      return fail(GPUOPT_ERROR_UNSUPPORTED, fn,
                  "buffer holds pinned host memory, which the device does not address; use "
                  "GPUOPT_MEMORY_MAPPED for zero-copy access");
    *ptr = buffer->device_ptr;
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_buffer_host_pointer(gpuopt_buffer_t buffer, void** ptr) {
  static const char* fn = "gpuopt_buffer_host_pointer";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_buffer(fn, buffer));
    if (!ptr) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "ptr is NULL");
    *ptr = nullptr;
    if (!buffer->host_ptr)
      return fail(GPUOPT_ERROR_UNSUPPORTED, fn,
                  "buffer holds %s memory, which has no host address; copy it with "
                  "gpuopt_buffer_copy_to_host",
                  gpuopt::memory_kind_name(buffer->kind));
    *ptr = buffer->host_ptr;
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_buffer_size(gpuopt_buffer_t buffer, size_t* bytes) {
  return gpuopt::get_property("gpuopt_buffer_size", gpuopt::check_buffer, "buffer", buffer, "bytes",
                              bytes, [](gpuopt_buffer_t h) { return h->bytes; });
}

GPUOPT_API gpuopt_status_t gpuopt_buffer_kind(gpuopt_buffer_t buffer, gpuopt_memory_kind_t* kind) {
  return gpuopt::get_property("gpuopt_buffer_kind", gpuopt::check_buffer, "buffer", buffer, "kind",
                              kind, [](gpuopt_buffer_t h) { return h->kind; });
}

GPUOPT_API gpuopt_status_t gpuopt_buffer_is_compressed(gpuopt_buffer_t buffer, int* compressed) {
  return gpuopt::get_property("gpuopt_buffer_is_compressed", gpuopt::check_buffer, "buffer", buffer,
                              "compressed", compressed,
                              [](gpuopt_buffer_t h) { return h->compressed ? 1 : 0; });
}

GPUOPT_API gpuopt_status_t gpuopt_buffer_copy_from_host(gpuopt_buffer_t buffer,
                                                        gpuopt_stream_t stream, size_t offset,
                                                        const void* src, size_t bytes) {
  static const char* fn = "gpuopt_buffer_copy_from_host";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_buffer(fn, buffer));
    GPUOPT_TRY(gpuopt::check_stream(fn, stream, buffer->ctx));
    if (!src) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "src is NULL");
    GPUOPT_TRY(check_span(fn, *buffer, offset, bytes));
    GPUOPT_TRY(check_capturable(fn, *stream, src, "src"));
    GPUOPT_TRY(gpuopt::make_current(fn, *buffer->ctx));
    GPUOPT_TRY_CUDA(
        cudaMemcpyAsync(base_of(*buffer) + offset, src, bytes, cudaMemcpyDefault, stream->stream),
        fn, "cudaMemcpyAsync");
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_buffer_copy_to_host(gpuopt_buffer_t buffer,
                                                      gpuopt_stream_t stream, size_t offset,
                                                      void* dst, size_t bytes) {
  static const char* fn = "gpuopt_buffer_copy_to_host";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_buffer(fn, buffer));
    GPUOPT_TRY(gpuopt::check_stream(fn, stream, buffer->ctx));
    if (!dst) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "dst is NULL");
    GPUOPT_TRY(check_span(fn, *buffer, offset, bytes));
    GPUOPT_TRY(check_capturable(fn, *stream, dst, "dst"));
    GPUOPT_TRY(gpuopt::make_current(fn, *buffer->ctx));
    GPUOPT_TRY_CUDA(
        cudaMemcpyAsync(dst, base_of(*buffer) + offset, bytes, cudaMemcpyDefault, stream->stream),
        fn, "cudaMemcpyAsync");
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_buffer_destroy(gpuopt_buffer_t buffer) {
  static const char* fn = "gpuopt_buffer_destroy";
  return guarded(fn, [&] {
    if (!buffer) return GPUOPT_SUCCESS;
    GPUOPT_TRY(gpuopt::check_buffer(fn, buffer));
    GPUOPT_TRY(gpuopt::check_not_capturing(fn));
    GPUOPT_TRY(gpuopt::make_current(fn, *buffer->ctx));
    GPUOPT_TRY(gpuopt::buffer_release(fn, *buffer));
    return forget(buffer);
  });
}

GPUOPT_API gpuopt_status_t gpuopt_buffer_destroy_async(gpuopt_buffer_t buffer,
                                                       gpuopt_stream_t stream) {
  static const char* fn = "gpuopt_buffer_destroy_async";
  return guarded(fn, [&] {
    if (!buffer) return GPUOPT_SUCCESS;
    GPUOPT_TRY(gpuopt::check_buffer(fn, buffer));
    GPUOPT_TRY(gpuopt::check_stream(fn, stream, buffer->ctx));
    GPUOPT_TRY(gpuopt::check_not_capturing(fn));
    GPUOPT_TRY(gpuopt::check_stream_not_captured(fn, *stream));
    GPUOPT_TRY(gpuopt::make_current(fn, *buffer->ctx));
    GPUOPT_TRY(gpuopt::buffer_release_ordered(fn, *buffer, stream->stream));
    return forget(buffer);
  });
}

}  // extern "C"
