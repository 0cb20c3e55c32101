// The runs of one gemm() call: a worker taking whole tiles (tiles order) or a gang taking row
// tiles (panels order) until none is left, and how a failure stops them all (fail, drain).
#include "deferred_finish.hpp"
#include "pipeline_internal.hpp"

namespace gpuopt_host_tiled {

// Marks the call failed and wakes the workers waiting for panel chunks.
void fail(Shared& sh) {
  {
    std::lock_guard<std::mutex> lock(sh.mu);
    sh.failed = true;
  }
  sh.loaded.notify_all();
}

namespace {

// Drains what a failed worker enqueued (its error, if any, is the same).
void drain(Pipeline::Worker& w) {
  cudaSetDevice(w.device);
  cudaStreamSynchronize(w.copy);
  cudaStreamSynchronize(w.s);
}

}  // namespace

// Tiles order: worker w takes whole tiles until none is left.
void run_worker(Pipeline::Worker& w, Shared& sh, int64_t tile_k, std::string* error,
                std::string* finish_error) {
  DeferredFinish finish;  // declared first: its destructor waits for the last finish
  const int64_t total = parts(sh.plan);
  while (!sh.failed.load(std::memory_order_relaxed)) {
    const int64_t t = sh.next.fetch_add(1);
    if (t >= total) break;
    const Rect r = part_of(sh.plan, sh.call->m, sh.call->n, t);
    Part part{&w, r.j0, r.cols, t, nullptr};
    bool ok = t != sh.inject_tile;
    if (!ok) *error = "injected failure (testing)";
    if (!ok || !run_parts(sh, &part, 1, r.i0, r.rows, tile_k, finish, t == sh.inject_finish,
                          finish_error, error)) {
      fail(sh);
      drain(w);
      return;
    }
  }
}

// Panels order: the gang (one worker on each device) takes row tiles until none is left.
void run_gang(std::vector<Pipeline::Worker*> gang, Shared& sh, int64_t tile_k, std::string* error,
              std::string* finish_error) {
  DeferredFinish finish;  // declared first: its destructor waits for the last finish
  const Plan& pl = sh.plan;
  std::vector<Part> parts_of_row(gang.size());
  while (!sh.failed.load(std::memory_order_relaxed)) {
    const int64_t row = sh.next.fetch_add(1);
    if (row >= pl.tiles_m) break;
    size_t np = 0;
    int64_t i0 = 0, rows = 0;
    for (size_t d = 0; d < gang.size(); ++d) {
      const int64_t t = row * pl.tiles_n + static_cast<int64_t>(d);
      const Rect r = part_of(pl, sh.call->m, sh.call->n, t);
      i0 = r.i0;
      rows = r.rows;
      parts_of_row[np++] = Part{gang[d], r.j0, r.cols, t, &sh.panels[d]};
    }
    bool ok = row != sh.inject_tile;
    if (!ok) *error = "injected failure (testing)";
    if (!ok || !run_parts(sh, parts_of_row.data(), np, i0, rows, tile_k, finish,
                          row == sh.inject_finish, finish_error, error)) {
      fail(sh);
      for (Pipeline::Worker* w : gang) drain(*w);
      return;
    }
  }
}

}  // namespace gpuopt_host_tiled
