#include "gpu_engine.hpp"

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include <atomic>
#include <vector>

#include "config.hpp"
#include "cpu_calls.hpp"
#include "gpu.hpp"

namespace gpuopt_blas {
namespace gpu {
namespace {

constexpr int kDefaultWorkers = 4;   // pipeline workers per GPU (see Engine::pipeline)
constexpr int kFallbackWorkers = 2;  // when the GPUs cannot hold four

std::atomic<bool> g_forked{false};
void on_fork_child() { g_forked = true; }

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// flop/s of the CPU BLAS on an n^3 GEMM (the second of two runs: the first wakes its threads).
template <class T>
double cpu_rate() {
  const int n = 512;
  std::vector<T> a(static_cast<size_t>(n) * n, T(1)), b(a), c(a);
  double best = 0;
  for (int r = 0; r < 2; ++r) {
    double t0 = now_s();
    Cpu<T>::gemm('N', 'N', n, n, n, T(1), a.data(), n, b.data(), n, T(0), c.data(), n);
    double dt = now_s() - t0;
    if (dt > 0) best = 2.0 * n * n * n / dt;
  }
  return best;
}

}  // namespace

DeviceScope::DeviceScope() {
  if (cudaGetDevice(&device_) != cudaSuccess) {
    cudaGetLastError();
    device_ = -1;
  }
}

DeviceScope::~DeviceScope() {
  if (device_ >= 0) cudaSetDevice(device_);
}

bool forked_child() { return g_forked.load(std::memory_order_relaxed); }

Where classify(const void* p) {
  Where w;
  cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return w;
  }
  if (a.type == cudaMemoryTypeDevice) {
    w.mem = Mem::kDevice;
    w.device = a.device;
  } else if (a.type == cudaMemoryTypeManaged) {
    w.mem = Mem::kManaged;
    w.device = a.device;
  } else if (a.type == cudaMemoryTypeHost) {
    w.pinned = true;
  }
  return w;
}

Engine& Engine::get() {
  static Engine* e = new Engine();  // never destroyed: calls may come from atexit handlers
  return *e;
}

int Engine::device_index(int device) const {
  if (!pipe_) return -1;
  const std::vector<int>& d = pipe_->devices();
  for (size_t i = 0; i < d.size(); ++i)
    if (d[i] == device) return static_cast<int>(i);
  return -1;
}

gpuopt_host_tiled::Pipeline* Engine::pipeline(std::string* why) {
  if (pipe_) return pipe_.get();
  if (permanent_failure_) {
    *why = permanent_reason_;
    return nullptr;
  }
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, [] { pthread_atfork(nullptr, nullptr, on_fork_child); });
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    permanent_failure_ = true;
    permanent_reason_ = std::string("no GPU (") +
                        (e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device") + ")";
    *why = permanent_reason_;
    return nullptr;
  }
  const Config& c = config();
  std::vector<int> devices;
  if (c.devices_set) {
    for (int d : c.devices)
      if (d < count) devices.push_back(d);
  } else {
    for (int d = 0; d < count; ++d) devices.push_back(d);
  }
  if (devices.empty() || devices.size() > 16) {
    permanent_failure_ = true;
    permanent_reason_ = "GPUOPT_BLAS_DEVICES names no visible GPU (or more than 16)";
    *why = permanent_reason_;
    return nullptr;
  }
  std::string err;
  gpuopt_host_tiled::Options options;
  // Workers per GPU: GPUOPT_BLAS_STREAMS, else 4. Measured on 2x H100 (dgemm_ on host arrays,
  // n = 32768, panels order): 2 workers 1.924 s on one GPU / 1.070 s on two (1.80x), 3 workers
  // 1.662 / 0.966, 4 workers 1.580 / 0.871 (1.81x); 4 workers hold 2.5 GiB of device and of
  // pinned memory per GPU, so a GPU that cannot hold them gets 2.
  options.streams_per_device = c.streams > 0 ? c.streams : kDefaultWorkers;
  pipe_ = gpuopt_host_tiled::Pipeline::create(devices, options, &err);
  if (!pipe_ && c.streams <= 0) {
    options.streams_per_device = kFallbackWorkers;
    pipe_ = gpuopt_host_tiled::Pipeline::create(devices, options, &err);
  }
  if (!pipe_) {
    // Retried by later calls (memory may be free by then), up to kMaxSetupFailures in a row.
    if (++setup_failures_ >= kMaxSetupFailures) {
      permanent_failure_ = true;
      permanent_reason_ = "GPU setup failed " + std::to_string(setup_failures_) +
                          " times in a row, the GPU is no longer tried: " + err;
    }
    *why = "GPU setup failed: " + err;
    return nullptr;
  }
  setup_failures_ = 0;
  if (!measured_) {
    bool ok = pipe_->measure(GPUOPT_DTYPE_F64, &rates_.link, &rates_.gpu[1], &err) &&
              pipe_->measure(GPUOPT_DTYPE_F32, &rates_.link, &rates_.gpu[0], &err);
    if (!ok) {
      pipe_.reset();
      *why = "GPU setup failed: " + err;
      return nullptr;
    }
    rates_.cpu[1] = cpu_rate<double>();
    rates_.cpu[0] = cpu_rate<float>();
    measured_ = true;
  }
  return pipe_.get();
}

cublasHandle_t Engine::cublas(size_t i, std::string* why) {
  if (!pipe_ || i >= 16) {
    *why = "no pipeline";
    return nullptr;
  }
  if (!cublas_[i]) {
    cudaSetDevice(pipe_->devices()[i]);
    cublasHandle_t h = nullptr;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
      *why = "cublasCreate failed";
      return nullptr;
    }
    cublas_[i] = h;
  }
  cublasSetStream(cublas_[i], static_cast<cudaStream_t>(pipe_->native_stream(i)));
  return cublas_[i];
}

void Engine::failed(const char* routine, const std::string& error) {
  if (!warned_) {
    warned_ = true;
    fprintf(stderr, "gpuopt_blas: %s: the GPU failed (%s); the call was finished on the CPU\n",
            routine, error.c_str());
  }
  for (cublasHandle_t& h : cublas_) {
    if (h) cublasDestroy(h);
    h = nullptr;
  }
  pipe_.reset();
}

}  // namespace gpu
}  // namespace gpuopt_blas
