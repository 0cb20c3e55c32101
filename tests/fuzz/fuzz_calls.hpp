// The fuzzer's world (fake contexts, streams and buffers in device-less mode, plus handles that
// must be refused: destroyed, foreign, of another kind) and its table of calls, one entry per
// public entry point. A new op is one line in kCalls (fuzz_calls.cpp) and one function.
#pragma once
#include <vector>

#include "fuzz_input.hpp"
#include "gpuopt.h"

namespace fuzz {

struct World {
  gpuopt_context_t ctx[2] = {};  // fake H200 (device 0) and fake A100 (device 1)
  gpuopt_stream_t stream[2] = {};
  std::vector<gpuopt_buffer_t> buffers;  // buffers[i] on ctx[i % 2] at first; more added by calls
  void* dead_ctx = nullptr;              // a context destroyed at setup (dangling on purpose)
  void* dead_stream = nullptr;
  void* dead_buffer = nullptr;
  alignas(64) unsigned char host[4096] = {};  // pageable host memory; also "foreign handles"
  alignas(16) double coeffs[64] = {};

  gpuopt_context_t any_ctx(FuzzInput& in);
  gpuopt_stream_t any_stream(FuzzInput& in);
  gpuopt_buffer_t any_buffer(FuzzInput& in);
  gpuopt_graph_t any_graph(FuzzInput& in);  // never a live one: none exist device-less
  // NULL, a fake device pointer (inside, at the end of or past a buffer, misaligned), memory of
  // the other device, pageable host memory or an arbitrary address.
  void* any_pointer(FuzzInput& in);
};

// Builds the world; false when device-less setup failed (a harness bug: it aborts).
bool world_open(World& w);
// Destroys what the world still owns; false when a destroy answered something other than
// SUCCESS or INVALID_HANDLE (already destroyed by a fuzzed call).
bool world_close(World& w);

struct Call {
  const char* fn;  // entry point: every failure message must start with "<fn>: "
  gpuopt_status_t (*run)(World&, FuzzInput&);
};

// Every entry point that is reached device-less; see fuzz_calls.cpp.
const std::vector<Call>& calls();

}  // namespace fuzz
