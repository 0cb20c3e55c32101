// Graph entry points: capture a gpuopt stream, instantiate, update in place, replay.
#include <cuda_runtime_api.h>

#include <memory>

#include "runtime/error.hpp"
#include "runtime/free_gate.hpp"
#include "runtime/graph.hpp"
#include "runtime/handles.hpp"
#include "runtime/log.hpp"
#include "runtime/stream.hpp"

using gpuopt::fail;
using gpuopt::guarded;

extern "C" {

GPUOPT_API gpuopt_status_t gpuopt_graph_begin(gpuopt_context_t ctx, gpuopt_stream_t stream) {
  static const char* fn = "gpuopt_graph_begin";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    GPUOPT_TRY(gpuopt::check_stream(fn, stream, ctx));
    if (stream->capturing.load())
      return fail(GPUOPT_ERROR_CAPTURE_ILLEGAL, fn,
                  "stream is already being captured; end that capture first");
    if (stream->stream == nullptr)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "stream wraps the legacy default stream, which cannot be captured; use "
                  "gpuopt_stream_create or wrap a created stream");
    GPUOPT_TRY(gpuopt::make_current(fn, *ctx));
    cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    GPUOPT_TRY_CUDA(cudaStreamIsCapturing(stream->stream, &cap), fn, "cudaStreamIsCapturing");
    if (cap != cudaStreamCaptureStatusNone)
      return fail(GPUOPT_ERROR_CAPTURE_ILLEGAL, fn,
                  "the CUDA stream is already being captured by its owner");
    // The stream's cuBLAS handle and workspaces, before the capture (nothing allocates or waits
    // during it).
    GPUOPT_TRY(gpuopt::stream_ready_for_capture(fn, *stream));
    // Under the free gate: no gpuopt free runs while this capture is open (free_gate.hpp).
    GPUOPT_TRY(gpuopt::gate_begin_capture([&]() -> gpuopt_status_t {
      GPUOPT_TRY_CUDA(cudaStreamBeginCapture(stream->stream, cudaStreamCaptureModeThreadLocal), fn,
                      "cudaStreamBeginCapture");
      return GPUOPT_SUCCESS;
    }));
    stream->capturing = true;
    ++gpuopt::thread_capture_depth();
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_graph_end(gpuopt_stream_t stream, gpuopt_graph_t* out) {
  static const char* fn = "gpuopt_graph_end";
  return guarded(fn, [&] {
    if (out) *out = nullptr;
    GPUOPT_TRY(gpuopt::check_stream(fn, stream, nullptr));
    // Without an output the capture is still ended, so the stream is usable again.
    gpuopt::GraphGuard g;
    gpuopt_status_t st = gpuopt::graph_end_capture(fn, *stream, &g.g);
    if (st != GPUOPT_SUCCESS) return st;
    if (!out)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "graph (the output) is NULL; the "
                  "capture was ended and discarded");
    auto h = std::make_unique<gpuopt::Graph>();
    h->ctx = stream->ctx;
    GPUOPT_TRY_CUDA(cudaGraphInstantiate(&h->exec, g.g, 0), fn, "cudaGraphInstantiate");
    size_t nodes = 0;
    cudaGraphGetNodes(g.g, nullptr, &nodes);
    gpuopt::log(gpuopt::LogLevel::info, "graph instantiated with %zu node(s)", nodes);
    gpuopt::handle_register(h.get(), gpuopt::HandleKind::graph);
    h->ctx->live_objects.fetch_add(1);
    *out = h.release();
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_graph_end_update(gpuopt_stream_t stream, gpuopt_graph_t graph,
                                                   int* in_place) {
  static const char* fn = "gpuopt_graph_end_update";
  return guarded(fn, [&] {
    if (in_place) *in_place = 0;
    GPUOPT_TRY(gpuopt::check_stream(fn, stream, nullptr));
    gpuopt_status_t graph_ok = gpuopt::check_graph(fn, graph);
    gpuopt::GraphGuard g;
    GPUOPT_TRY(gpuopt::graph_end_capture(fn, *stream, &g.g));
    if (graph_ok != GPUOPT_SUCCESS) return graph_ok;
    if (graph->ctx != stream->ctx)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "graph belongs to another context");
    cudaGraphExecUpdateResultInfo info{};
    if (cudaGraphExecUpdate(graph->exec, g.g, &info) == cudaSuccess) {
      if (in_place) *in_place = 1;
      gpuopt::log(gpuopt::LogLevel::info, "graph updated in place");
      return GPUOPT_SUCCESS;
    }
    cudaGetLastError();
    cudaGraphExec_t fresh = nullptr;
    GPUOPT_TRY_CUDA(cudaGraphInstantiate(&fresh, g.g, 0), fn, "cudaGraphInstantiate");
    cudaGraphExecDestroy(graph->exec);
    graph->exec = fresh;
    gpuopt::log(gpuopt::LogLevel::info,
                "graph topology changed (update result %d): re-instantiated",
                static_cast<int>(info.result));
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_graph_launch(gpuopt_graph_t graph, gpuopt_stream_t stream) {
  static const char* fn = "gpuopt_graph_launch";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_graph(fn, graph));
    GPUOPT_TRY(gpuopt::check_stream(fn, stream, graph->ctx));
    GPUOPT_TRY(gpuopt::make_current(fn, *graph->ctx));
    GPUOPT_TRY_CUDA(cudaGraphLaunch(graph->exec, stream->stream), fn, "cudaGraphLaunch");
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_graph_destroy(gpuopt_graph_t graph) {
  static const char* fn = "gpuopt_graph_destroy";
  return guarded(fn, [&] {
    if (!graph) return GPUOPT_SUCCESS;
    GPUOPT_TRY(gpuopt::check_graph(fn, graph));
    GPUOPT_TRY(gpuopt::make_current(fn, *graph->ctx));
    GPUOPT_TRY_CUDA(cudaGraphExecDestroy(graph->exec), fn, "cudaGraphExecDestroy");
    gpuopt::handle_unregister(graph);
    graph->ctx->live_objects.fetch_sub(1);
    delete graph;
    return GPUOPT_SUCCESS;
  });
}

}  // extern "C"
