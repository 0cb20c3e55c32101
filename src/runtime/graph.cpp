#include "runtime/graph.hpp"

#include "runtime/error.hpp"
#include "runtime/free_gate.hpp"
#include "runtime/handles.hpp"
#include "runtime/stream.hpp"

namespace gpuopt {
gpuopt_status_t check_graph(const char* fn, gpuopt_graph_t g, const char* arg) {
  return check_handle(fn, g, HandleKind::graph, arg);
}

// Ends the capture open on s and returns its graph (the caller destroys it).
gpuopt_status_t graph_end_capture(const char* fn, Stream& s, cudaGraph_t* graph) {
  if (!s.capturing.load())
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "stream is not being captured; call gpuopt_graph_begin first");
  GPUOPT_TRY(make_current(fn, *s.ctx));
  cudaError_t err = cudaStreamEndCapture(s.stream, graph);
  s.capturing = false;
  if (thread_capture_depth() > 0) --thread_capture_depth();
  gate_capture_ended();  // the last open capture runs the frees deferred during it
  if (err != cudaSuccess) {
    *graph = nullptr;
    return fail_cuda(err, fn,
                     "cudaStreamEndCapture (the capture was invalidated by an illegal "
                     "call on the stream, or is being ended from another thread)");
  }
  return GPUOPT_SUCCESS;
}

}  // namespace gpuopt
