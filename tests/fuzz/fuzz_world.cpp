#include <cstdint>

#include "fuzz_calls.hpp"

namespace fuzz {

namespace {
constexpr std::size_t kBytes[] = {64, 4096, std::size_t{1} << 20, std::size_t{1} << 26};

bool ok_or_gone(gpuopt_status_t st) {
  return st == GPUOPT_SUCCESS || st == GPUOPT_ERROR_INVALID_HANDLE;
}
}  // namespace

bool world_open(World& w) {
  for (int d = 0; d < 2; ++d) {
    if (gpuopt_context_create(d, &w.ctx[d]) != GPUOPT_SUCCESS) return false;
    if (gpuopt_stream_create(w.ctx[d], &w.stream[d]) != GPUOPT_SUCCESS) return false;
  }
  for (std::size_t i = 0; i < sizeof kBytes / sizeof kBytes[0]; ++i) {
    gpuopt_buffer_t b = nullptr;
    if (gpuopt_buffer_create(w.ctx[0], kBytes[i], GPUOPT_MEMORY_DEVICE, &b) != GPUOPT_SUCCESS)
      return false;
    w.buffers.push_back(b);
  }
  gpuopt_buffer_t other = nullptr, pinned = nullptr;
  if (gpuopt_buffer_create(w.ctx[1], 4096, GPUOPT_MEMORY_DEVICE, &other) != GPUOPT_SUCCESS ||
      gpuopt_buffer_create(w.ctx[0], 4096, GPUOPT_MEMORY_PINNED_HOST, &pinned) != GPUOPT_SUCCESS)
    return false;
  w.buffers.push_back(other);
  w.buffers.push_back(pinned);
  // Handles that were live once: destroyed before any call sees them.
  gpuopt_context_t c = nullptr;
  gpuopt_stream_t s = nullptr;
  gpuopt_buffer_t b = nullptr;
  if (gpuopt_context_create(1, &c) != GPUOPT_SUCCESS || gpuopt_stream_create(c, &s) ||
      gpuopt_buffer_create(c, 256, GPUOPT_MEMORY_DEVICE, &b) || gpuopt_buffer_destroy(b) ||
      gpuopt_stream_destroy(s) || gpuopt_context_destroy(c))
    return false;
  w.dead_ctx = c;
  w.dead_stream = s;
  w.dead_buffer = b;
  return true;
}

bool world_close(World& w) {
  bool ok = true;
  for (gpuopt_buffer_t b : w.buffers) ok &= ok_or_gone(gpuopt_buffer_destroy(b));
  for (int d = 0; d < 2; ++d) {
    ok &= ok_or_gone(gpuopt_stream_destroy(w.stream[d]));
    ok &= ok_or_gone(gpuopt_context_destroy(w.ctx[d]));
  }
  return ok;
}

gpuopt_context_t World::any_ctx(FuzzInput& in) {
  switch (in.pick(16)) {
    case 0:
      return nullptr;
    case 1:
      return static_cast<gpuopt_context_t>(dead_ctx);
    case 2:
      return reinterpret_cast<gpuopt_context_t>(host);  // foreign memory
    case 3:
      return reinterpret_cast<gpuopt_context_t>(stream[0]);  // another kind of handle
    case 4:
    case 5:
      return ctx[1];
    default:
      return ctx[0];
  }
}

gpuopt_stream_t World::any_stream(FuzzInput& in) {
  switch (in.pick(16)) {
    case 0:
      return nullptr;
    case 1:
      return static_cast<gpuopt_stream_t>(dead_stream);
    case 2:
      return reinterpret_cast<gpuopt_stream_t>(host + 64);
    case 3:
      return reinterpret_cast<gpuopt_stream_t>(ctx[0]);
    case 4:
    case 5:
      return stream[1];
    default:
      return stream[0];
  }
}

gpuopt_buffer_t World::any_buffer(FuzzInput& in) {
  switch (in.pick(16)) {
    case 0:
      return nullptr;
    case 1:
      return static_cast<gpuopt_buffer_t>(dead_buffer);
    case 2:
      return reinterpret_cast<gpuopt_buffer_t>(host + 128);
    case 3:
      return reinterpret_cast<gpuopt_buffer_t>(stream[0]);
    default:
      return buffers.empty() ? nullptr : buffers[in.pick(static_cast<unsigned>(buffers.size()))];
  }
}

gpuopt_graph_t World::any_graph(FuzzInput& in) {
  switch (in.pick(4)) {
    case 0:
      return nullptr;
    case 1:
      return reinterpret_cast<gpuopt_graph_t>(host + 192);
    case 2:
      return reinterpret_cast<gpuopt_graph_t>(stream[0]);
    default:
      return reinterpret_cast<gpuopt_graph_t>(ctx[0]);
  }
}

void* World::any_pointer(FuzzInput& in) {
  const unsigned k = in.pick(16);
  if (k == 0) return nullptr;
  if (k == 1) return host + in.pick(64);
  if (k == 2) return reinterpret_cast<void*>(in.raw<std::uintptr_t>());
  gpuopt_buffer_t b =
      buffers.empty() ? nullptr : buffers[in.pick(static_cast<unsigned>(buffers.size()))];
  void* base = nullptr;
  std::size_t bytes = 0;
  if (gpuopt_buffer_device_pointer(b, &base) != GPUOPT_SUCCESS ||
      gpuopt_buffer_size(b, &bytes) != GPUOPT_SUCCESS)
    return host;
  static const std::size_t kOffsets[] = {0, 0, 0, 0, 1, 2, 4, 8, 16, 60, 64, 256};
  std::size_t off = kOffsets[in.pick(sizeof kOffsets / sizeof kOffsets[0])];
  switch (in.pick(8)) {
    case 0:
      off = bytes;  // one past the end
      break;
    case 1:
      off = bytes > 64 ? bytes - 64 : 0;
      break;
    default:
      break;
  }
  return static_cast<char*>(base) + off;
}

}  // namespace fuzz
