// Executable graphs captured from a gpuopt stream.
#pragma once
#include <cuda_runtime_api.h>

#include "context.hpp"

struct gpuopt_graph_s {
  gpuopt_context_s* ctx = nullptr;
  cudaGraphExec_t exec = nullptr;
};

namespace gpuopt {
using Graph = gpuopt_graph_s;
gpuopt_status_t check_graph(const char* fn, gpuopt_graph_t g, const char* arg = "graph");

// Ends the capture gpuopt_graph_begin opened on s and returns its graph (the caller destroys it);
// the stream and this thread leave capture mode even when the capture was invalidated.
gpuopt_status_t graph_end_capture(const char* fn, gpuopt_stream_s& s, cudaGraph_t* graph);

// Destroys a captured (not instantiated) graph when it goes out of scope.
struct GraphGuard {
  cudaGraph_t g = nullptr;
  ~GraphGuard() {
    if (g) cudaGraphDestroy(g);
  }
};

}  // namespace gpuopt
