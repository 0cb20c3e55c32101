#include "runtime/free_gate.hpp"

#include <cuda_runtime_api.h>

#include <mutex>
#include <utility>
#include <vector>

#include "runtime/log.hpp"

namespace gpuopt {
namespace {

struct Queued {
  int device;
  std::function<gpuopt_status_t()> release;
};

struct Gate {
  std::mutex mu;
  int open_captures = 0;
  std::vector<Queued> queued;
};

Gate& gate() {
  static Gate* g = new Gate;  // never destroyed: frees may be asked for during static teardown
  return *g;
}

// Runs the queued releases (gate locked, no capture open).
void drain(Gate& g) {
  if (g.queued.empty()) return;
  int current = -1;
  const bool restore = cudaGetDevice(&current) == cudaSuccess;
  for (Queued& q : g.queued) {
    if (cudaSetDevice(q.device) != cudaSuccess) cudaGetLastError();  // the release then says why
    if (q.release() != GPUOPT_SUCCESS)
      log(LogLevel::info, "a free deferred past a graph capture failed on device %d", q.device);
  }
  log(LogLevel::debug, "%zu free(s) deferred past graph captures ran", g.queued.size());
  g.queued.clear();
  if (restore) cudaSetDevice(current);
}

}  // namespace

gpuopt_status_t gate_begin_capture(const std::function<gpuopt_status_t()>& begin) {
  Gate& g = gate();
  std::lock_guard<std::mutex> lock(g.mu);
  const gpuopt_status_t st = begin();
  if (st == GPUOPT_SUCCESS) ++g.open_captures;
  return st;
}

void gate_capture_ended() {
  Gate& g = gate();
  std::lock_guard<std::mutex> lock(g.mu);
  if (g.open_captures > 0 && --g.open_captures == 0) drain(g);
}

gpuopt_status_t gate_free(int device, std::function<gpuopt_status_t()> release) {
  Gate& g = gate();
  std::lock_guard<std::mutex> lock(g.mu);
  if (g.open_captures == 0) return release();
  g.queued.push_back(Queued{device, std::move(release)});
  log(LogLevel::debug, "free deferred until the open graph capture(s) end (%zu queued)",
      g.queued.size());
  return GPUOPT_SUCCESS;
}

int gate_queued_frees() {
  Gate& g = gate();
  std::lock_guard<std::mutex> lock(g.mu);
  return static_cast<int>(g.queued.size());
}

}  // namespace gpuopt
