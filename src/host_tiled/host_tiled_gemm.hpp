// Host-tiled GEMM: C = alpha op(A) op(B) + beta C where A, B and C may live in host memory (any
// size: out of core) or in device / managed memory, on one or several GPUs.
//
// A reusable piece built on the public API (gpuopt_gemm for the products, so libgpuopt's dispatch
// picks the rung) plus the CUDA runtime for copies, streams and events. Used by the drop-in BLAS
// (src/blas); the multi-GPU work can drive the same pipeline.
//
// The pipeline: C is cut into tiles (tile_mn x tile_mn), dealt dynamically (an atomic counter) to
// workers, streams_per_device workers on each device, each with its own host thread, a copy
// stream and a product stream, device buffers and pinned staging ring (two A/B slots and a C tile,
// allocated once at creation and reused by every call). For each tile the worker walks k in chunks
// of tile_k: it packs the op(A) and op(B) chunks into a free pinned slot (a CPU copy spread over a
// pool of threads shared by the workers, in column blocks each copied in as soon as it is packed;
// overlapping the GPU's work on the previous chunk), copies them in on its copy stream, and runs
// gpuopt_gemm on its product stream (events order the two; the copy of chunk k+1 overlaps the
// product of chunk k), accumulating into the device C tile; then it copies the whole tile out and
// hands the finish (wait for that copy out, unpack into C on the pool; for pageable C, adding
// beta C there: C never crosses the link) to a thread of its own (deferred_finish.hpp), and goes
// on to its next tile. The finish owns the worker's pinned C tile until the worker's next copy
// out, which waits for it first.
// Copies in, products and copies out of the workers of a device overlap too. Page-locked host,
// device and managed operands skip the staging (a 2D copy by the copy engines into the tile
// buffers).
//
// Failures: a tile is written to C only whole. When a worker fails (a CUDA or gpuopt error), the
// others stop taking tiles, the finishes in flight complete (or fail whole) before gemm()
// returns, and every tile not written back is handed to the caller's CPU function, so C is
// always complete.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpuopt.h"
#include "tile_plan.hpp"

namespace gpuopt_host_tiled {

class CopyPool;

struct Options {
  // Large tiles: the host side packs A once per tile column and B once per tile row, and that
  // packing (a CPU copy) bounds the pipeline; 8192 packs an 8192^2 GEMM's operands once (1.6 GB
  // with C) where 4096 tiles packed 2.7 GB (docs/notes/blas.md). Two workers per device, chunks
  // of 512: 2 x (512 MiB C tile + 4 x 32 MiB chunk slots) = 1.25 GiB of device and of pinned host
  // memory per device.
  int64_t tile_mn = 8192;      // rows and columns of a C tile
  int64_t tile_k = 512;        // depth of a k chunk
  int streams_per_device = 2;  // workers (streams + host thread + buffers) per device
  int copy_threads = 0;        // threads of the pageable <-> pinned staging; 0: one per CPU
  int64_t copy_piece_bytes = int64_t(1) << 20;     // smallest share of one staging thread
  int64_t staging_block_bytes = int64_t(8) << 20;  // smallest block copied in while the next packs
  // The walk over C (tile_plan.hpp): kAuto picks per call by the model; kTiles / kPanels force one
  // where it is possible (tests).
  Order order = Order::kAuto;
};

/** Where an operand lives: pageable host memory (staged through the pinned ring), page-locked
 *  host memory (cudaHostAlloc, cudaMallocHost, cudaHostRegister: copied by the GPU's copy engines
 *  straight from where it is), or device / managed memory (copied on the device). */
enum class Memory { kHost, kPinned, kDevice };

/** One GEMM, column-major; f32 or f64 (a_type = c_type). */
struct Call {
  gpuopt_dtype_t dtype = GPUOPT_DTYPE_F64;
  char transa = 'N', transb = 'N';  // 'N' or 'T'
  int64_t m = 0, n = 0, k = 0;
  double alpha = 1, beta = 0;
  const void* A = nullptr;
  int64_t lda = 1;
  const void* B = nullptr;
  int64_t ldb = 1;
  void* C = nullptr;
  int64_t ldc = 1;
  Memory a_mem = Memory::kHost, b_mem = Memory::kHost, c_mem = Memory::kHost;
};

/** The CPU's share: C[i0:i0+rows, j0:j0+cols] of @p call, on the CPU. Called for the tiles a
 *  failure left unwritten, and for every tile of a call with k = 0 (C = beta C). */
using CpuTile =
    std::function<void(const Call& call, int64_t i0, int64_t j0, int64_t rows, int64_t cols)>;

/** Outcome of Pipeline::gemm. */
struct Result {
  bool ok = true;         // every tile ran on the GPU
  int64_t tiles = 0;      // tiles of the call
  int64_t cpu_tiles = 0;  // tiles redone by CpuTile after a failure
  std::string error;      // the first failure, when !ok
  std::string plan;  // the order it ran in, the model's figures (tile_plan.hpp describe), workers
};

class Pipeline {
 public:
  /** Creates contexts, streams, device buffers and the pinned ring on @p devices (ordinals).
   *  Returns nullptr with @p error set when any of it fails (nothing is kept). */
  static std::unique_ptr<Pipeline> create(const std::vector<int>& devices, const Options& options,
                                          std::string* error);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  /** Runs @p call (one call at a time per pipeline: callers serialize). */
  Result gemm(const Call& call, const CpuTile& cpu_tile);

  /** Runs @p call with every operand already on the device (device or managed memory) in place,
   *  on the first stream of device index @p device_index (into devices()), and waits for it. */
  bool gemm_in_place(const Call& call, size_t device_index, std::string* error);

  /** Copies rows x cols elements between host memory (through the pinned ring of the first
   *  worker of @p device_index) and device memory, either way, and waits for it. */
  bool copy_matrix(void* dst, int64_t ldd, const void* src, int64_t lds, int64_t rows, int64_t cols,
                   size_t elem, bool to_device, size_t device_index, std::string* error);

  /** The context and the native CUDA stream of the first worker of @p device_index. */
  gpuopt_context_t context(size_t device_index) const;
  void* native_stream(size_t device_index) const;

  /** The devices and options it was made with. */
  const std::vector<int>& devices() const;
  const Options& options() const;

  /** Measures the host-to-device bandwidth (bytes/s) and the GEMM rate (flop/s, one device) of
   *  @p dtype with the pipeline's buffers. Returns false with @p error on failure. */
  bool measure(gpuopt_dtype_t dtype, double* link_bytes_per_s, double* flops_per_s,
               std::string* error);

  /** Testing: the worker fails (as by a CUDA error) when it starts tile number @p tile of the
   *  next call; -1 (the default) injects nothing. */
  void inject_failure_at_tile(int64_t tile);

  /** Testing: the deferred finish of tile number @p tile (tiles order) or of row tile @p tile
   *  (panels order) of the next call fails before it unpacks anything into (pageable) C, as by
   *  a failed copy out, while its worker has gone on; -1 (the default) injects nothing. */
  void inject_failure_at_finish(int64_t tile);

  struct Worker;

 private:
  Pipeline() = default;
  std::vector<int> devices_;
  Options options_;
  std::vector<gpuopt_context_t> contexts_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::unique_ptr<CopyPool> pool_;  // the staging copies of every worker
  int64_t inject_tile_ = -1;
  int64_t inject_finish_ = -1;
};

}  // namespace gpuopt_host_tiled
