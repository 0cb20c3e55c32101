// Private to the host-tiled pipeline (host_tiled_gemm.hpp): what its files share. A worker's
// buffers, streams and events; the state one gemm() call shares between its runs (the plan, the
// tile counter, the failure flag, the parts done, the B panels); the error macros; and the pieces
// one file defines and another calls. Not for the pipeline's users.
//
// The files:
//   pipeline_lifetime.cpp  creation (workers, buffers, contexts), destruction, accessors
//   pipeline_direct.cpp    gemm_in_place, copy_matrix, measure: one worker, no tiling
//   pipeline_gemm.cpp      Pipeline::gemm: the plan, the runs and their join, the CPU redo
//   worker_runs.cpp        the runs of the two orders (worker, gang); a failure stops them
//   tile_parts.cpp         a row tile over its parts: staging, products, copy out, finish
//   panels.cpp             the panels order's resident B panels: budget, memory, chunk loads
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "host_tiled_gemm.hpp"
#include "tile_plan.hpp"

namespace gpuopt_host_tiled {

class DeferredFinish;

struct Pipeline::Worker {
  int device = 0;
  gpuopt_context_t ctx = nullptr;
  gpuopt_stream_t gs = nullptr;
  cudaStream_t s = nullptr;
  void* dA[2] = {nullptr, nullptr};
  void* dB[2] = {nullptr, nullptr};
  void* dC = nullptr;
  void* hA[2] = {nullptr, nullptr};
  void* hB[2] = {nullptr, nullptr};
  void* hC = nullptr;
  cudaStream_t copy = nullptr;                   // copies in, beside the product stream s
  cudaEvent_t staged[2] = {nullptr, nullptr};    // the slot's copy in has finished
  cudaEvent_t consumed[2] = {nullptr, nullptr};  // the product that read the slot has finished
  cudaEvent_t ring[2] = {nullptr, nullptr};  // panel loading: the copy out of pinned hB[i] is done
  int ring_pos = 0;                          // the hB slot the next panel piece goes through
  cudaEvent_t out_done = nullptr;            // the last copy out of dC (into hC or C) has finished
};

constexpr size_t kMaxElem = 8;  // buffers are sized for f64

inline std::string cuda_text(cudaError_t e, const char* what) {
  return std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

inline std::string gpuopt_text(gpuopt_status_t st, const char* what) {
  char msg[512];
  gpuopt_last_error_message(msg, sizeof msg, nullptr);
  return std::string(what) + ": " + gpuopt_status_name(st) + " (" + msg + ")";
}

#define HT_CUDA(expr)                \
  do {                               \
    cudaError_t e_ = (expr);         \
    if (e_ != cudaSuccess) {         \
      *error = cuda_text(e_, #expr); \
      return false;                  \
    }                                \
  } while (0)

#define HT_GPUOPT(expr)                 \
  do {                                  \
    gpuopt_status_t st_ = (expr);       \
    if (st_ != GPUOPT_SUCCESS) {        \
      *error = gpuopt_text(st_, #expr); \
      return false;                     \
    }                                   \
  } while (0)

inline const void* at(const void* base, int64_t ld, int64_t row, int64_t col, size_t elem) {
  return static_cast<const char*>(base) + (col * ld + row) * static_cast<int64_t>(elem);
}

// The staging copies: the pool, the smallest piece per thread and the smallest block.
struct Copier {
  CopyPool* pool;
  size_t piece;
  size_t block;
};

// Where a staged copy goes: a device buffer, copied on a stream of that device.
struct Target {
  int device;
  cudaStream_t stream;
  void* dst;
};

// Brings rows x cols of a source operand into the device buffer of every target (tile_parts.cpp).
bool stage(const Copier& cp, const Target* targets, size_t ntargets, void* pinned, const void* src,
           Memory mem, int64_t ld, int64_t rows, int64_t cols, size_t elem, std::string* error);

// A device's resident B panel (panels order): op(B)'s k chunks for the device's column block,
// chunk c at c * tile_k * cols elements, packed as stage() packs them. A chunk is loaded by the
// first worker that needs it (state 0 -> 1), which records ready[c] once its copies are issued
// (state 2; 3 when loading failed); the others wait for state 2, then for ready[c] on the GPU.
struct Panel {
  void* mem = nullptr;
  std::vector<cudaEvent_t> ready;
  std::vector<int> state;
};

struct Shared {
  const Call* call;
  Copier copier;
  Plan plan;
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<char> done;          // per part; written by the part's worker, read after the join
  std::vector<Panel> panels;       // panels order: per device index
  std::mutex mu;                   // panel states
  std::condition_variable loaded;  // a panel chunk changed state, or a worker failed
  int64_t inject_tile;
  int64_t inject_finish;  // testing: the tile (tiles order) or row tile whose finish fails
  int64_t tile_k;         // depth of a k chunk
  size_t slot_bytes;      // one pinned A/B slot
};

// One part of a row tile: the worker (device) that computes C[i0:i0+tm, j0:j0+tn], and the index
// of the part (Shared::done).
struct Part {
  Pipeline::Worker* w;
  int64_t j0, tn;
  int64_t index;
  Panel* panel;  // panels order: the device's B panel; tiles order: null (B staged per chunk)
};

// Marks the call failed and wakes the workers waiting for panel chunks (worker_runs.cpp).
void fail(Shared& sh);

// Makes chunk c of w's device panel ready for w's product stream (panels.cpp).
bool panel_chunk(Shared& sh, Panel& panel, Pipeline::Worker& w, int64_t c, int64_t k0, int64_t tk,
                 int64_t j0, int64_t tn, std::string* error);

// Device memory a B panel may take on every one of @p devices (panels.cpp).
int64_t panel_budget(const std::vector<int>& devices);

// The B panels of the panels order; false (nothing kept) when any allocation fails (panels.cpp).
bool make_panels(const Plan& plan, int64_t k, int64_t tile_k, const std::vector<int>& devices,
                 std::vector<Panel>* panels);
void free_panels(std::vector<Panel>& panels, const std::vector<int>& devices);

// Rows i0 .. i0 + tm of C over the given parts, the finish handed to @p finish (tile_parts.cpp).
bool run_parts(Shared& sh, Part* parts, size_t nparts, int64_t i0, int64_t tm, int64_t tile_k,
               DeferredFinish& finish, bool fail_finish, std::string* finish_error,
               std::string* error);

// Tiles order: worker w takes whole tiles until none is left (worker_runs.cpp).
void run_worker(Pipeline::Worker& w, Shared& sh, int64_t tile_k, std::string* error,
                std::string* finish_error);

// Panels order: the gang (one worker on each device) takes row tiles until none is left
// (worker_runs.cpp).
void run_gang(std::vector<Pipeline::Worker*> gang, Shared& sh, int64_t tile_k, std::string* error,
              std::string* finish_error);

}  // namespace gpuopt_host_tiled
