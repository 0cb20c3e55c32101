// The pipeline's construction and lifetime: each worker's streams, events, device buffers and
// pinned ring (allocate / release), the contexts and the copy pool, and the accessors.
#include "copy_pool.hpp"
#include "pipeline_internal.hpp"

namespace gpuopt_host_tiled {

namespace {

void release(Pipeline::Worker& w) {
  cudaSetDevice(w.device);
  if (w.s) cudaStreamSynchronize(w.s);
  if (w.copy) {
    cudaStreamSynchronize(w.copy);
    cudaStreamDestroy(w.copy);
  }
  for (int i = 0; i < 2; ++i) {
    if (w.consumed[i]) cudaEventDestroy(w.consumed[i]);
    if (w.ring[i]) cudaEventDestroy(w.ring[i]);
    cudaFree(w.dA[i]);
    cudaFree(w.dB[i]);
    cudaFreeHost(w.hA[i]);
    cudaFreeHost(w.hB[i]);
    if (w.staged[i]) cudaEventDestroy(w.staged[i]);
  }
  if (w.out_done) cudaEventDestroy(w.out_done);
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
    HT_CUDA(cudaEventCreateWithFlags(&w.ring[i], cudaEventDisableTiming));
  }
  HT_CUDA(cudaEventCreateWithFlags(&w.out_done, cudaEventDisableTiming));
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

const std::vector<int>& Pipeline::devices() const { return devices_; }
const Options& Pipeline::options() const { return options_; }
void Pipeline::inject_failure_at_tile(int64_t tile) { inject_tile_ = tile; }
void Pipeline::inject_failure_at_finish(int64_t tile) { inject_finish_ = tile; }

}  // namespace gpuopt_host_tiled
