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
}  // namespace gpuopt
