// The panels order's resident B panels: how much device memory a panel may take, their
// allocation and release per call, and the loading of a panel's k chunks (by the first worker
// that needs one, through its pinned B slots; the others wait for it).
#include <stdint.h>

#include <algorithm>

#include "pipeline_internal.hpp"

namespace gpuopt_host_tiled {

namespace {

// Stages rows x cols of an operand into dst through w's two pinned B slots in turn (pieces of
// whole stored columns that fit a slot; ring[s] orders the repacking of slot s after its copy).
bool stage_through_ring(Shared& sh, Pipeline::Worker& w, char* dst, const void* src, Memory mem,
                        int64_t ld, int64_t rows, int64_t cols, size_t elem, std::string* error) {
  const size_t width = static_cast<size_t>(rows) * elem;
  const int64_t per = std::max<int64_t>(1, static_cast<int64_t>(sh.slot_bytes / width));
  for (int64_t c0 = 0; c0 < cols; c0 += per) {
    const int64_t nc = std::min(per, cols - c0);
    const int s = w.ring_pos;
    w.ring_pos ^= 1;
    HT_CUDA(cudaEventSynchronize(w.ring[s]));
    const Target t{w.device, w.copy, dst + width * static_cast<size_t>(c0)};
    if (!stage(sh.copier, &t, 1, w.hB[s], at(src, ld, 0, c0, elem), mem, ld, rows, nc, elem, error))
      return false;
    HT_CUDA(cudaSetDevice(w.device));
    HT_CUDA(cudaEventRecord(w.ring[s], w.copy));
  }
  return true;
}

}  // namespace

// Makes chunk c (rows k0 .. k0 + tk of op(B), columns j0 .. j0 + tn) of w's device panel ready:
// loads it on w's copy stream when no worker has, else waits until the loader has issued it.
// Then w's product stream waits for it. False on failure (error left empty when another worker
// failed: that worker reports it).
bool panel_chunk(Shared& sh, Panel& panel, Pipeline::Worker& w, int64_t c, int64_t k0, int64_t tk,
                 int64_t j0, int64_t tn, std::string* error) {
  const Call& call = *sh.call;
  const size_t elem = call.dtype == GPUOPT_DTYPE_F64 ? 8 : 4;
  const size_t uc = static_cast<size_t>(c);
  std::unique_lock<std::mutex> lock(sh.mu);
  if (panel.state[uc] == 0) {
    panel.state[uc] = 1;
    lock.unlock();
    const bool nb = call.transb == 'N';
    const int64_t br = nb ? tk : tn, bc = nb ? tn : tk;
    const void* b = nb ? at(call.B, call.ldb, k0, j0, elem) : at(call.B, call.ldb, j0, k0, elem);
    char* dst = static_cast<char*>(panel.mem) +
                static_cast<size_t>(c * sh.plan.tile_n) * static_cast<size_t>(sh.tile_k) * elem;
    bool ok = stage_through_ring(sh, w, dst, b, call.b_mem, call.ldb, br, bc, elem, error);
    if (ok) {
      cudaError_t e = cudaEventRecord(panel.ready[uc], w.copy);
      if (e != cudaSuccess) {
        *error = cuda_text(e, "cudaEventRecord(panel chunk)");
        ok = false;
      }
    }
    lock.lock();
    panel.state[uc] = ok ? 2 : 3;
    lock.unlock();
    sh.loaded.notify_all();
    if (!ok) return false;
  } else {
    sh.loaded.wait(lock, [&] { return panel.state[uc] >= 2 || sh.failed.load(); });
    if (panel.state[uc] != 2) return false;
    lock.unlock();
  }
  HT_CUDA(cudaSetDevice(w.device));
  HT_CUDA(cudaStreamWaitEvent(w.s, panel.ready[uc], 0));
  return true;
}

// Device memory a B panel may take on every one of @p devices: the smallest free memory less a
// reserve (a tenth of the device, at least 1 GiB: the program's and the libraries' own needs).
int64_t panel_budget(const std::vector<int>& devices) {
  int64_t budget = INT64_MAX;
  for (int d : devices) {
    size_t free_b = 0, total_b = 0;
    if (cudaSetDevice(d) != cudaSuccess || cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    const int64_t reserve = std::max<int64_t>(int64_t(1) << 30, static_cast<int64_t>(total_b / 10));
    budget = std::min(budget, static_cast<int64_t>(free_b) - reserve);
  }
  return std::max<int64_t>(0, budget);
}

void free_panels(std::vector<Panel>& panels, const std::vector<int>& devices) {
  for (size_t d = 0; d < panels.size(); ++d) {
    cudaSetDevice(devices[d]);
    for (cudaEvent_t e : panels[d].ready)
      if (e) cudaEventDestroy(e);
    cudaFree(panels[d].mem);
  }
  panels.clear();
  cudaGetLastError();  // an allocation that failed is not the call's error
}

// The B panels of the panels order on the first plan.devices devices; false (nothing kept) when
// any allocation fails: the call then runs in the tiles order.
bool make_panels(const Plan& plan, int64_t k, int64_t tile_k, const std::vector<int>& devices,
                 std::vector<Panel>* panels) {
  const size_t chunks = static_cast<size_t>((k + tile_k - 1) / tile_k);
  panels->assign(static_cast<size_t>(plan.devices), Panel());
  for (size_t d = 0; d < panels->size(); ++d) {
    Panel& p = (*panels)[d];
    bool ok = cudaSetDevice(devices[d]) == cudaSuccess &&
              cudaMalloc(&p.mem, static_cast<size_t>(plan.panel_bytes)) == cudaSuccess;
    p.ready.assign(chunks, nullptr);
    p.state.assign(chunks, 0);
    for (size_t c = 0; ok && c < chunks; ++c)
      ok = cudaEventCreateWithFlags(&p.ready[c], cudaEventDisableTiming) == cudaSuccess;
    if (!ok) {
      free_panels(*panels, devices);
      return false;
    }
  }
  return true;
}

}  // namespace gpuopt_host_tiled
