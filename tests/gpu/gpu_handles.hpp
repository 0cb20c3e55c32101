// RAII owners for the GPU tests, so that every test frees what it allocated (compute-sanitizer
// leak checks) even when an assertion returns early: gpuopt handles and cudaMalloc'd arrays.
#pragma once
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "gpu_check.hpp"
#include "gpuopt.h"

namespace gput {

struct ContextDeleter {
  void operator()(gpuopt_context_t c) const { EXPECT_GPUOPT_OK(gpuopt_context_destroy(c)); }
};
struct StreamDeleter {
  void operator()(gpuopt_stream_t s) const { EXPECT_GPUOPT_OK(gpuopt_stream_destroy(s)); }
};
struct BufferDeleter {
  void operator()(gpuopt_buffer_t b) const { EXPECT_GPUOPT_OK(gpuopt_buffer_destroy(b)); }
};
struct GraphDeleter {
  void operator()(gpuopt_graph_t g) const { EXPECT_GPUOPT_OK(gpuopt_graph_destroy(g)); }
};

using Context = std::unique_ptr<gpuopt_context_s, ContextDeleter>;
using Stream = std::unique_ptr<gpuopt_stream_s, StreamDeleter>;
using Buffer = std::unique_ptr<gpuopt_buffer_s, BufferDeleter>;
using Graph = std::unique_ptr<gpuopt_graph_s, GraphDeleter>;

// Creators: an empty owner (and a recorded failure) when the call fails.
inline Context make_context(int device = 0) {
  gpuopt_context_t c = nullptr;
  EXPECT_GPUOPT_OK(gpuopt_context_create(device, &c));
  return Context(c);
}
inline Stream make_stream(gpuopt_context_t ctx) {
  gpuopt_stream_t s = nullptr;
  EXPECT_GPUOPT_OK(gpuopt_stream_create(ctx, &s));
  return Stream(s);
}
inline Buffer make_buffer(gpuopt_context_t ctx, size_t bytes, gpuopt_memory_kind_t kind) {
  gpuopt_buffer_t b = nullptr;
  EXPECT_GPUOPT_OK(gpuopt_buffer_create(ctx, bytes, kind, &b));
  return Buffer(b);
}

// cudaMalloc'd array of n elements of T (at least one is allocated), freed on destruction.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(size_t n) : n_(n) {
    const cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&p_), (n ? n : 1) * sizeof(T));
    if (e != cudaSuccess) {
      ADD_FAILURE() << "cudaMalloc of " << n << " elements: " << cudaGetErrorName(e);
      p_ = nullptr;
    }
  }
  ~DeviceArray() {
    if (p_) {
      EXPECT_CUDA_OK(cudaFree(p_));
    }
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(o.n_) {}

  T* data() const { return p_; }
  size_t size() const { return n_; }
  bool ok() const { return p_ != nullptr; }

  // Host -> device, complete on return (the copy is also ordered before any later stream work).
  void upload(const std::vector<T>& host) const {
    ASSERT_TRUE(ok());
    ASSERT_LE(host.size(), n_);
    ASSERT_CUDA_OK(cudaMemcpy(p_, host.data(), host.size() * sizeof(T), cudaMemcpyDefault));
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
  }
  // Device -> host. The caller has synchronized the gpuopt stream that wrote the array.
  std::vector<T> download() const {
    std::vector<T> host(n_);
    if (ok() && n_) {
      EXPECT_CUDA_OK(cudaMemcpy(host.data(), p_, n_ * sizeof(T), cudaMemcpyDefault));
    }
    return host;
  }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

}  // namespace gput
