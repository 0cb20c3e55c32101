#include "host_tiled_gemm.hpp"

#include <cuda_runtime.h>
#include <string.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "copy_pool.hpp"

namespace gpuopt_host_tiled {

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
};

namespace {

constexpr size_t kMaxElem = 8;  // buffers are sized for f64

std::string cuda_text(cudaError_t e, const char* what) {
  return std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

std::string gpuopt_text(gpuopt_status_t st, const char* what) {
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

const void* at(const void* base, int64_t ld, int64_t row, int64_t col, size_t elem) {
  return static_cast<const char*>(base) + (col * ld + row) * static_cast<int64_t>(elem);
}

// The staging copies: the pool, the smallest piece per thread and the smallest block.
struct Copier {
  CopyPool* pool;
  size_t piece;
  size_t block;
};

// Column blocks of a staged copy: each is copied in as soon as it is packed, so the link works
// while the CPU packs the next; blocks of at least cp.block bytes (a copy costs microseconds), 4
// at most.
int64_t staging_blocks(const Copier& cp, size_t bytes, int64_t cols) {
  return std::max<int64_t>(1, std::min<int64_t>({4, cols, static_cast<int64_t>(bytes / cp.block)}));
}

// Brings rows x cols of a source operand into the device buffer dst (packed, leading dimension
// rows): through the pinned slot for pageable host memory (packed by the copy pool, block by
// block), by a 2D copy of the copy engines otherwise (page-locked host, device, managed).
bool stage(const Copier& cp, cudaStream_t stream, void* dst, void* pinned, const void* src,
           Memory mem, int64_t ld, int64_t rows, int64_t cols, size_t elem, std::string* error) {
  const size_t width = static_cast<size_t>(rows) * elem;
  if (mem != Memory::kHost) {
    HT_CUDA(cudaMemcpy2DAsync(dst, width, src, static_cast<size_t>(ld) * elem, width,
                              static_cast<size_t>(cols), cudaMemcpyDefault, stream));
    return true;
  }
  const int64_t blocks = staging_blocks(cp, width * static_cast<size_t>(cols), cols);
  const int64_t per = (cols + blocks - 1) / blocks;
  for (int64_t c0 = 0; c0 < cols; c0 += per) {
    const int64_t nc = std::min(per, cols - c0);
    const size_t off = width * static_cast<size_t>(c0);
    char* p = static_cast<char*>(pinned) + off;
    copy_2d(cp.pool, cp.piece, p, rows, at(src, ld, 0, c0, elem), ld, rows, nc, elem);
    HT_CUDA(cudaMemcpyAsync(static_cast<char*>(dst) + off, p, width * static_cast<size_t>(nc),
                            cudaMemcpyHostToDevice, stream));
  }
  return true;
}

struct Shared {
  const Call* call;
  Copier copier;
  int64_t tiles_m, tiles_n, tile;
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<char> done;  // written by the tile's worker, read after the join
  int64_t inject_tile;
};

// One C tile on worker w.
bool run_tile(Pipeline::Worker& w, Shared& sh, int64_t t, int64_t tile_k, std::string* error) {
  const Call& c = *sh.call;
  const size_t elem = c.dtype == GPUOPT_DTYPE_F64 ? 8 : 4;
  if (t == sh.inject_tile) {
    *error = "injected failure (testing)";
    return false;
  }
  const int64_t i0 = (t % sh.tiles_m) * sh.tile, j0 = (t / sh.tiles_m) * sh.tile;
  const int64_t tm = std::min(sh.tile, c.m - i0), tn = std::min(sh.tile, c.n - j0);
  const bool na = c.transa == 'N', nb = c.transb == 'N';
  // Copies in run on w.copy, products on w.s: the copy of chunk k+1 overlaps the product of
  // chunk k. staged[slot] orders a product after its copy (and the CPU's repacking of the pinned
  // slot after the copy that read it); consumed[slot] orders a copy into a device slot after the
  // product that read it.
  // Pageable C is not staged in: the products start from beta = 0 and C = D + beta C is applied
  // on the CPU while the tile is unpacked (C read once, on the host, instead of packed, copied in
  // and copied out again).
  const bool host_c = c.c_mem == Memory::kHost;
  if (!host_c && c.beta != 0) {
    if (!stage(sh.copier, w.copy, w.dC, w.hC, at(c.C, c.ldc, i0, j0, elem), c.c_mem, c.ldc, tm, tn,
               elem, error))
      return false;
  }
  int slot = 0;
  for (int64_t k0 = 0; k0 < c.k; k0 += tile_k, slot ^= 1) {
    const int64_t tk = std::min(tile_k, c.k - k0);
    HT_CUDA(cudaEventSynchronize(w.staged[slot]));  // the pinned slot's last copy is done
    HT_CUDA(cudaStreamWaitEvent(w.copy, w.consumed[slot], 0));
    // op(A)[i0:i0+tm, k0:k0+tk] as stored: A[i0.., k0..] (N) or A[k0.., i0..] (T).
    const int64_t ar = na ? tm : tk, ac = na ? tk : tm;
    const void* a = na ? at(c.A, c.lda, i0, k0, elem) : at(c.A, c.lda, k0, i0, elem);
    if (!stage(sh.copier, w.copy, w.dA[slot], w.hA[slot], a, c.a_mem, c.lda, ar, ac, elem, error))
      return false;
    const int64_t br = nb ? tk : tn, bc = nb ? tn : tk;
    const void* b = nb ? at(c.B, c.ldb, k0, j0, elem) : at(c.B, c.ldb, j0, k0, elem);
    if (!stage(sh.copier, w.copy, w.dB[slot], w.hB[slot], b, c.b_mem, c.ldb, br, bc, elem, error))
      return false;
    HT_CUDA(cudaEventRecord(w.staged[slot], w.copy));
    HT_CUDA(cudaStreamWaitEvent(w.s, w.staged[slot], 0));
    gpuopt_gemm_desc_t d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    d.trans_a = na ? GPUOPT_TRANS_N : GPUOPT_TRANS_T;
    d.trans_b = nb ? GPUOPT_TRANS_N : GPUOPT_TRANS_T;
    d.m = tm;
    d.n = tn;
    d.k = tk;
    d.alpha = c.alpha;
    d.beta = k0 > 0 ? 1.0 : host_c ? 0.0 : c.beta;
    d.a_type = d.c_type = c.dtype;
    d.compute = GPUOPT_COMPUTE_DEFAULT;
    d.lda = ar;
    d.ldb = br;
    d.ldc = tm;
    HT_GPUOPT(gpuopt_gemm(w.ctx, w.gs, &d, w.dA[slot], w.dB[slot], w.dC));
    HT_CUDA(cudaEventRecord(w.consumed[slot], w.s));
  }
  size_t width = static_cast<size_t>(tm) * elem;
  void* dst = static_cast<char*>(c.C) + (j0 * c.ldc + i0) * static_cast<int64_t>(elem);
  if (host_c) {
    HT_CUDA(
        cudaMemcpyAsync(w.hC, w.dC, width * static_cast<size_t>(tn), cudaMemcpyDeviceToHost, w.s));
    HT_CUDA(cudaStreamSynchronize(w.s));  // the whole tile is here before any of it is written
    if (c.beta == 0)                      // C is not read
      copy_2d(sh.copier.pool, sh.copier.piece, dst, c.ldc, w.hC, tm, tm, tn, elem);
    else
      add_scaled_2d(sh.copier.pool, sh.copier.piece, dst, c.ldc, w.hC, tm, tm, tn, elem, c.beta);
  } else {
    HT_CUDA(cudaMemcpy2DAsync(dst, static_cast<size_t>(c.ldc) * elem, w.dC, width, width,
                              static_cast<size_t>(tn), cudaMemcpyDefault, w.s));
    HT_CUDA(cudaStreamSynchronize(w.s));
  }
  return true;
}

void run_worker(Pipeline::Worker& w, Shared& sh, int64_t tile_k, std::string* error) {
  cudaError_t e = cudaSetDevice(w.device);
  if (e != cudaSuccess) {
    *error = cuda_text(e, "cudaSetDevice");
    sh.failed = true;
    return;
  }
  const int64_t total = sh.tiles_m * sh.tiles_n;
  while (!sh.failed.load(std::memory_order_relaxed)) {
    int64_t t = sh.next.fetch_add(1);
    if (t >= total) break;
    if (!run_tile(w, sh, t, tile_k, error)) {
      sh.failed = true;
      cudaStreamSynchronize(w.copy);  // drain what was enqueued (its error, if any, is the same)
      cudaStreamSynchronize(w.s);
      return;
    }
    sh.done[static_cast<size_t>(t)] = 1;
  }
}

void release(Pipeline::Worker& w) {
  cudaSetDevice(w.device);
  if (w.s) cudaStreamSynchronize(w.s);
  if (w.copy) {
    cudaStreamSynchronize(w.copy);
    cudaStreamDestroy(w.copy);
  }
  for (int i = 0; i < 2; ++i) {
    if (w.consumed[i]) cudaEventDestroy(w.consumed[i]);
    cudaFree(w.dA[i]);
    cudaFree(w.dB[i]);
    cudaFreeHost(w.hA[i]);
    cudaFreeHost(w.hB[i]);
    if (w.staged[i]) cudaEventDestroy(w.staged[i]);
  }
  cudaFree(w.dC);
  cudaFreeHost(w.hC);
  gpuopt_stream_destroy(w.gs);
}

bool allocate(Pipeline::Worker& w, const Options& o, std::string* error) {
  HT_CUDA(cudaSetDevice(w.device));
  HT_GPUOPT(gpuopt_stream_create(w.ctx, &w.gs));
  void* native = nullptr;
  HT_GPUOPT(gpuopt_stream_native(w.gs, &native));
  w.s = static_cast<cudaStream_t>(native);
  HT_CUDA(cudaStreamCreateWithFlags(&w.copy, cudaStreamNonBlocking));
  const size_t ab = static_cast<size_t>(o.tile_mn * o.tile_k) * kMaxElem;
  const size_t cb = static_cast<size_t>(o.tile_mn * o.tile_mn) * kMaxElem;
  for (int i = 0; i < 2; ++i) {
    HT_CUDA(cudaMalloc(&w.dA[i], ab));
    HT_CUDA(cudaMalloc(&w.dB[i], ab));
    HT_CUDA(cudaHostAlloc(&w.hA[i], ab, cudaHostAllocPortable));
    HT_CUDA(cudaHostAlloc(&w.hB[i], ab, cudaHostAllocPortable));
    HT_CUDA(cudaEventCreateWithFlags(&w.staged[i], cudaEventDisableTiming));
    HT_CUDA(cudaEventCreateWithFlags(&w.consumed[i], cudaEventDisableTiming));
  }
  HT_CUDA(cudaMalloc(&w.dC, cb));
  HT_CUDA(cudaHostAlloc(&w.hC, cb, cudaHostAllocPortable));
  return true;
}

}  // namespace

std::unique_ptr<Pipeline> Pipeline::create(const std::vector<int>& devices, const Options& options,
                                           std::string* error) {
  if (devices.empty() || options.tile_mn < 64 || options.tile_k < 16 ||
      options.streams_per_device < 1 || options.copy_threads < 0 || options.copy_piece_bytes < 1 ||
      options.staging_block_bytes < 1) {
    *error = "no devices, or options out of range";
    return nullptr;
  }
  std::unique_ptr<Pipeline> p(new Pipeline());
  p->devices_ = devices;
  p->options_ = options;
  const int copy_threads = options.copy_threads > 0 ? options.copy_threads : CopyPool::cpus();
  p->pool_.reset(new CopyPool(copy_threads - 1));
  for (int d : devices) {
    gpuopt_context_t ctx = nullptr;
    gpuopt_status_t st = gpuopt_context_create(d, &ctx);
    if (st != GPUOPT_SUCCESS) {
      *error = gpuopt_text(st, "gpuopt_context_create");
      return nullptr;
    }
    p->contexts_.push_back(ctx);
    for (int s = 0; s < options.streams_per_device; ++s) {
      std::unique_ptr<Worker> w(new Worker());
      w->device = d;
      w->ctx = ctx;
      bool ok = allocate(*w, options, error);
      p->workers_.push_back(std::move(w));
      if (!ok) return nullptr;  // the destructor frees what was made
    }
  }
  return p;
}

Pipeline::~Pipeline() {
  for (auto& w : workers_) release(*w);
  for (gpuopt_context_t c : contexts_) gpuopt_context_destroy(c);
}

gpuopt_context_t Pipeline::context(size_t device_index) const { return contexts_[device_index]; }

void* Pipeline::native_stream(size_t device_index) const {
  return workers_[device_index * static_cast<size_t>(options_.streams_per_device)]->s;
}

bool Pipeline::gemm_in_place(const Call& c, size_t device_index, std::string* error) {
  Worker& w = *workers_[device_index * static_cast<size_t>(options_.streams_per_device)];
  HT_CUDA(cudaSetDevice(w.device));
  gpuopt_gemm_desc_t d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.trans_a = c.transa == 'N' ? GPUOPT_TRANS_N : GPUOPT_TRANS_T;
  d.trans_b = c.transb == 'N' ? GPUOPT_TRANS_N : GPUOPT_TRANS_T;
  d.m = c.m;
  d.n = c.n;
  d.k = c.k;
  d.alpha = c.alpha;
  d.beta = c.beta;
  d.a_type = d.c_type = c.dtype;
  d.lda = c.lda;
  d.ldb = c.ldb;
  d.ldc = c.ldc;
  HT_GPUOPT(gpuopt_gemm(w.ctx, w.gs, &d, c.A, c.B, c.C));
  HT_CUDA(cudaStreamSynchronize(w.s));
  return true;
}

bool Pipeline::copy_matrix(void* dst, int64_t ldd, const void* src, int64_t lds, int64_t rows,
                           int64_t cols, size_t elem, bool to_device, size_t device_index,
                           std::string* error) {
  Worker& w = *workers_[device_index * static_cast<size_t>(options_.streams_per_device)];
  HT_CUDA(cudaSetDevice(w.device));
  const size_t ring = static_cast<size_t>(options_.tile_mn * options_.tile_mn) * kMaxElem;
  const size_t colb = static_cast<size_t>(rows) * elem;
  const size_t piece = static_cast<size_t>(options_.copy_piece_bytes);
  if (colb == 0 || cols == 0) return true;
  int64_t step = static_cast<int64_t>(ring / colb);
  if (step < 1) {  // a column larger than the ring: pageable copy
    HT_CUDA(cudaMemcpy2DAsync(dst, static_cast<size_t>(ldd) * elem, src,
                              static_cast<size_t>(lds) * elem, colb, static_cast<size_t>(cols),
                              to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, w.s));
    HT_CUDA(cudaStreamSynchronize(w.s));
    return true;
  }
  for (int64_t j = 0; j < cols; j += step) {
    const int64_t nc = std::min(step, cols - j);
    const char* s = static_cast<const char*>(src) + j * lds * static_cast<int64_t>(elem);
    char* d = static_cast<char*>(dst) + j * ldd * static_cast<int64_t>(elem);
    if (to_device) {
      copy_2d(pool_.get(), piece, w.hC, rows, s, lds, rows, nc, elem);
      HT_CUDA(cudaMemcpy2DAsync(d, static_cast<size_t>(ldd) * elem, w.hC, colb, colb,
                                static_cast<size_t>(nc), cudaMemcpyHostToDevice, w.s));
      HT_CUDA(cudaStreamSynchronize(w.s));
    } else {
      HT_CUDA(cudaMemcpy2DAsync(w.hC, colb, s, static_cast<size_t>(lds) * elem, colb,
                                static_cast<size_t>(nc), cudaMemcpyDeviceToHost, w.s));
      HT_CUDA(cudaStreamSynchronize(w.s));
      copy_2d(pool_.get(), piece, d, ldd, w.hC, rows, rows, nc, elem);
    }
  }
  return true;
}

const std::vector<int>& Pipeline::devices() const { return devices_; }
const Options& Pipeline::options() const { return options_; }
void Pipeline::inject_failure_at_tile(int64_t tile) { inject_tile_ = tile; }

Result Pipeline::gemm(const Call& call, const CpuTile& cpu_tile) {
  Result r;
  Shared sh;
  sh.call = &call;
  sh.copier = Copier{pool_.get(), static_cast<size_t>(options_.copy_piece_bytes),
                     static_cast<size_t>(options_.staging_block_bytes)};
  sh.tile = options_.tile_mn;
  sh.tiles_m = (call.m + sh.tile - 1) / sh.tile;
  sh.tiles_n = (call.n + sh.tile - 1) / sh.tile;
  r.tiles = sh.tiles_m * sh.tiles_n;
  sh.done.assign(static_cast<size_t>(r.tiles), 0);
  sh.inject_tile = inject_tile_;
  inject_tile_ = -1;
  if (r.tiles == 0) return r;
  if (call.k <= 0) {  // nothing to multiply: C = beta C is the CPU's (no copy is worth it)
    for (int64_t t = 0; t < r.tiles; ++t) {
      const int64_t i0 = (t % sh.tiles_m) * sh.tile, j0 = (t / sh.tiles_m) * sh.tile;
      cpu_tile(call, i0, j0, std::min(sh.tile, call.m - i0), std::min(sh.tile, call.n - j0));
    }
    r.cpu_tiles = r.tiles;
    return r;
  }
  const size_t nworkers = std::min(workers_.size(), static_cast<size_t>(r.tiles));
  std::vector<std::string> errors(nworkers);
  if (nworkers == 1) {
    run_worker(*workers_[0], sh, options_.tile_k, &errors[0]);
  } else {
    // Deal the workers round-robin over the devices so a call with few tiles still spreads.
    std::vector<size_t> order;
    const size_t per = static_cast<size_t>(options_.streams_per_device);
    for (size_t s = 0; s < per; ++s)
      for (size_t d = 0; d < devices_.size(); ++d) order.push_back(d * per + s);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < nworkers; ++i)
      threads.emplace_back(run_worker, std::ref(*workers_[order[i]]), std::ref(sh), options_.tile_k,
                           &errors[i]);
    for (auto& t : threads) t.join();
  }
  if (!sh.failed) return r;
  r.ok = false;
  for (const std::string& e : errors)
    if (!e.empty()) {
      r.error = e;
      break;
    }
  for (int64_t t = 0; t < r.tiles; ++t) {
    if (sh.done[static_cast<size_t>(t)]) continue;
    const int64_t i0 = (t % sh.tiles_m) * sh.tile, j0 = (t / sh.tiles_m) * sh.tile;
    cpu_tile(call, i0, j0, std::min(sh.tile, call.m - i0), std::min(sh.tile, call.n - j0));
    ++r.cpu_tiles;
  }
  return r;
}

bool Pipeline::measure(gpuopt_dtype_t dtype, double* link_bytes_per_s, double* flops_per_s,
                       std::string* error) {
  Worker& w = *workers_[0];
  HT_CUDA(cudaSetDevice(w.device));
  const int64_t t = options_.tile_mn, k = options_.tile_k;
  const size_t cb = static_cast<size_t>(t * t) * kMaxElem;
  const size_t ab = static_cast<size_t>(t * k) * kMaxElem;
  HT_CUDA(cudaMemsetAsync(w.dA[0], 0, ab, w.s));
  HT_CUDA(cudaMemsetAsync(w.dB[0], 0, ab, w.s));
  memset(w.hC, 0, cb);
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  HT_CUDA(cudaEventCreate(&e0));
  cudaError_t ce = cudaEventCreate(&e1);
  if (ce != cudaSuccess) {
    cudaEventDestroy(e0);
    *error = cuda_text(ce, "cudaEventCreate");
    return false;
  }
  gpuopt_gemm_desc_t d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.m = d.n = t;
  d.k = k;
  d.alpha = 1;
  d.beta = 0;
  d.a_type = d.c_type = dtype;
  d.lda = t;
  d.ldb = k;
  d.ldc = t;
  float copy_ms = 0, gemm_ms = 0;
  bool ok = false;
  do {
    // Warm up (first launch, module loading), then time one copy in and one product.
    if (cudaMemcpyAsync(w.dC, w.hC, cb / 8, cudaMemcpyHostToDevice, w.s) != cudaSuccess) break;
    if (gpuopt_gemm(w.ctx, w.gs, &d, w.dA[0], w.dB[0], w.dC) != GPUOPT_SUCCESS) break;
    if (cudaEventRecord(e0, w.s) != cudaSuccess) break;
    if (cudaMemcpyAsync(w.dC, w.hC, cb, cudaMemcpyHostToDevice, w.s) != cudaSuccess) break;
    if (cudaEventRecord(e1, w.s) != cudaSuccess) break;
    if (cudaEventSynchronize(e1) != cudaSuccess) break;
    cudaEventElapsedTime(&copy_ms, e0, e1);
    if (cudaEventRecord(e0, w.s) != cudaSuccess) break;
    if (gpuopt_gemm(w.ctx, w.gs, &d, w.dA[0], w.dB[0], w.dC) != GPUOPT_SUCCESS) break;
    if (cudaEventRecord(e1, w.s) != cudaSuccess) break;
    if (cudaEventSynchronize(e1) != cudaSuccess) break;
    cudaEventElapsedTime(&gemm_ms, e0, e1);
    ok = copy_ms > 0 && gemm_ms > 0;
  } while (false);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  if (!ok) {
    *error = "measuring the link and GEMM rates failed";
    return false;
  }
  *link_bytes_per_s = static_cast<double>(cb) / (copy_ms * 1e-3);
  *flops_per_s = 2.0 * static_cast<double>(t) * static_cast<double>(t) * static_cast<double>(k) /
                 (gemm_ms * 1e-3);
  return true;
}

}  // namespace gpuopt_host_tiled
