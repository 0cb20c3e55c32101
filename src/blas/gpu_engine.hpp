// The process's GPU state for gpuopt_blas: the host-tiled pipeline on the GPUOPT_BLAS_DEVICES
// (made at the first call routed to the GPU, never at load), the measured rates of the routing
// model, cuBLAS handles for the in-core non-GEMM routines, and the fork and failure policy.
#pragma once

#include <cublas_v2.h>

#include <mutex>
#include <string>

#include "host_tiled_gemm.hpp"

namespace gpuopt_blas {
namespace gpu {

/** Where a pointer's memory is (cudaPointerGetAttributes). */
enum class Mem { kHost, kDevice, kManaged };
struct Where {
  Mem mem = Mem::kHost;
  int device = -1;
  bool pinned = false;  // kHost and page-locked (the GPU's copy engines read it as it is)
};
Where classify(const void* p);

/** Rates measured once at first use (bytes/s, flop/s; index 0 f32, 1 f64). */
struct Rates {
  double link = 0;         // host to device, one GPU, pinned
  double gpu[2] = {0, 0};  // one GPU
  double cpu[2] = {0, 0};  // the CPU BLAS on all its threads
};

class Engine {
 public:
  static Engine& get();

  /** Serializes GPU calls (the pipeline's workers and buffers are shared). */
  std::mutex& mutex() { return mutex_; }

  /** The pipeline, made (and the rates measured) on first use; nullptr with @p why when no GPU
   *  can be used. Caller holds mutex(). */
  gpuopt_host_tiled::Pipeline* pipeline(std::string* why);
  const Rates& rates() const { return rates_; }

  /** Index of @p device in the pipeline's devices, or -1. */
  int device_index(int device) const;

  /** A cuBLAS handle on device index @p i, bound to its first stream. Caller holds mutex(). */
  cublasHandle_t cublas(size_t i, std::string* why);

  /** After a GPU failure: prints one line on stderr the first time (always: results stay right,
   *  but the user should know the GPU is not doing the work), frees the pipeline so the next call
   *  starts afresh. Caller holds mutex(). */
  void failed(const char* routine, const std::string& error);

 private:
  Engine() = default;
  std::mutex mutex_;
  std::unique_ptr<gpuopt_host_tiled::Pipeline> pipe_;
  static constexpr int kMaxSetupFailures = 8;
  int setup_failures_ = 0;
  bool permanent_failure_ = false;
  std::string permanent_reason_;
  bool measured_ = false;
  Rates rates_;
  cublasHandle_t cublas_[16] = {};
  bool warned_ = false;
};

/** Keeps the calling thread's current CUDA device across gpuopt_blas's GPU work: a program's
 *  cudaSetDevice() choice is its own, whatever device the BLAS call ran on. */
class DeviceScope {
 public:
  DeviceScope();
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int device_ = -1;
};

}  // namespace gpu
}  // namespace gpuopt_blas
