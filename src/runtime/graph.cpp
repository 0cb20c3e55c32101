#include "runtime/graph.hpp"

#include "runtime/handles.hpp"

namespace gpuopt {
gpuopt_status_t check_graph(const char* fn, gpuopt_graph_t g, const char* arg) {
  return check_handle(fn, g, HandleKind::graph, arg);
}
}  // namespace gpuopt
