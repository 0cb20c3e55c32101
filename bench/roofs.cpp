#include "roofs.hpp"

#include <cstdio>
#include <string>

#include "check.hpp"
#include "data.hpp"

namespace bench {
namespace {

// cudaMalloc'd memory freed on every path.
class RawDeviceMemory {
 public:
  RawDeviceMemory() = default;
  ~RawDeviceMemory() {
    if (p_) cudaFree(p_);
  }
  RawDeviceMemory(const RawDeviceMemory&) = delete;
  RawDeviceMemory& operator=(const RawDeviceMemory&) = delete;
  // True on success; false (error cleared) when the device is out of memory.
  bool allocate(std::size_t bytes) {
    cudaError_t e = cudaMalloc(&p_, bytes);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      p_ = nullptr;
      return false;
    }
    CUDA_CHECK(e);
    return true;
  }
  void reset() {
    if (p_) CUDA_CHECK(cudaFree(p_));
    p_ = nullptr;
  }
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

}  // namespace

void measure_copy_roof(cudaStream_t s, const TimerConfig& cfg, Roofs* roofs, std::size_t bytes) {
  constexpr std::size_t kMinBytes = std::size_t{64} << 20;
  try {
    std::size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    // Two buffers, leaving a fifth of the free memory to everyone else.
    while (bytes > kMinBytes && 2 * bytes > free_b / 5 * 4) bytes /= 2;
    RawDeviceMemory src, dst;
    while (true) {
      if (src.allocate(bytes) && dst.allocate(bytes)) break;
      src.reset();
      dst.reset();
      if (bytes <= kMinBytes) {
        throw BenchError(GPUOPT_ERROR_OUT_OF_MEMORY, "copy roof: cannot allocate two buffers of " +
                                                         std::to_string(bytes) + " bytes");
      }
      bytes /= 2;
    }
    const auto words = static_cast<std::int64_t>(bytes / 4);
    fill_device(src.get(), GPUOPT_DTYPE_F32, words, DataKind::kRandom, 0xC0FFEE, kStreamCopy, 0, s);
    fill_device(dst.get(), GPUOPT_DTYPE_F32, words, DataKind::kRandom, 0xC0FFEF, kStreamCopy, 0, s);
    CUDA_CHECK(cudaStreamSynchronize(s));

    TimerConfig c = cfg;
    c.inner = 1;
    c.sync_each = false;
    Timing t = time_on_stream(
        s,
        [&](long) {
          CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s));
        },
        c);
    roofs->copy_bytes = static_cast<double>(bytes);
    roofs->copy_ms = t.median_ms;
    roofs->copy_gbs = 2.0 * static_cast<double>(bytes) / (t.median_ms * 1e-3) / 1e9;
  } catch (const BenchError& e) {
    roofs->copy_error = e.what();
  }
}

}  // namespace bench
