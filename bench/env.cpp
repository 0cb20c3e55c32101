#include "env.hpp"

#include <cstdio>
#include <cstring>

#include "check.hpp"

namespace bench {

DeviceBuffer::DeviceBuffer(gpuopt_context_t ctx, std::size_t bytes, gpuopt_memory_kind_t kind)
    : bytes_(bytes) {
  GPUOPT_CHECK(gpuopt_buffer_create(ctx, bytes, kind, &buf_));
  try {
    if (kind == GPUOPT_MEMORY_PINNED_HOST) {
      GPUOPT_CHECK(gpuopt_buffer_host_pointer(buf_, &hptr_));
    } else {
      GPUOPT_CHECK(gpuopt_buffer_device_pointer(buf_, &dptr_));
      if (kind == GPUOPT_MEMORY_MAPPED) GPUOPT_CHECK(gpuopt_buffer_host_pointer(buf_, &hptr_));
    }
  } catch (...) {
    gpuopt_buffer_destroy(buf_);
    throw;
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (!buf_) return;
  gpuopt_status_t s = gpuopt_buffer_destroy(buf_);
  if (s != GPUOPT_SUCCESS) {
    std::fprintf(stderr, "[bench] warning: gpuopt_buffer_destroy failed: %s\n",
                 gpuopt_describe(s).c_str());
  }
}

bool DeviceBuffer::compressed() const {
  int c = 0;
  GPUOPT_CHECK(gpuopt_buffer_is_compressed(buf_, &c));
  return c != 0;
}

void Progress::start(const std::string& what) {
  if (open_) std::fputc('\n', stderr);
  ++done_;
  std::fprintf(stderr, "[bench] %d/%d %s ...", done_, total_, what.c_str());
  std::fflush(stderr);
  open_ = true;
}

void Progress::finish(const std::string& result) {
  std::fprintf(stderr, " %s\n", result.c_str());
  std::fflush(stderr);
  open_ = false;
}

const void* BenchEnv::copy_back(const DeviceBuffer& buf, std::size_t offset, std::size_t bytes) {
  if (staging_ == nullptr || staging_->bytes() < bytes) {
    delete staging_;
    staging_ = nullptr;
    try {
      staging_ = new DeviceBuffer(ctx, bytes > staging_hint ? bytes : staging_hint,
                                  GPUOPT_MEMORY_PINNED_HOST);
    } catch (const BenchError& e) {
      // Pinned memory is only faster; pageable memory is copied synchronously and is fine here.
      std::fprintf(stderr, "\n[bench] note: no pinned staging buffer (%s); using pageable memory\n",
                   e.what());
      staging_ = nullptr;
    }
  }
  void* dst = nullptr;
  if (staging_) {
    dst = staging_->host_ptr();
  } else {
    if (pageable_.size() < bytes) pageable_.resize(bytes);
    dst = pageable_.data();
  }
  // Poison first, so a copy that silently did nothing cannot pass for a result.
  std::memset(dst, 0xff, bytes);
  GPUOPT_CHECK(gpuopt_buffer_copy_to_host(buf.handle(), stream, offset, dst, bytes));
  GPUOPT_CHECK(gpuopt_stream_synchronize(stream));
  return dst;
}

void BenchEnv::record_failure(const BenchError& e, bool variant_available, Row* r) {
  r->correct = false;
  if (!variant_available && e.status() == GPUOPT_ERROR_UNSUPPORTED) {
    r->skipped = true;  // the library says this device cannot run it: not a failure
    r->error = std::string("skipped: ") + e.what();
    return;
  }
  r->error = e.what();
  note_error();
}

void BenchEnv::restore_auto(gpuopt_op_t op) {
  if (broken()) return;
  const gpuopt_status_t st = gpuopt_context_set_variant(ctx, op, nullptr);
  if (st != GPUOPT_SUCCESS)
    std::fprintf(stderr, "[bench] warning: restoring auto dispatch failed: %s\n",
                 gpuopt_describe(st).c_str());
}

void BenchEnv::note_error() {
  if (broken()) return;
  // Clear this runtime's non-sticky error, then ask the device: a sticky error (illegal address,
  // launch failure) makes every later synchronization fail too.
  (void)cudaGetLastError();
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    cudaError_t again = cudaDeviceSynchronize();
    if (again != cudaSuccess) {
      broken_reason_ = std::string(cudaGetErrorName(again)) + ": " + cudaGetErrorString(again);
    }
  }
}

void BenchEnv::release() {
  delete staging_;
  staging_ = nullptr;
  pageable_.clear();
  pageable_.shrink_to_fit();
}

std::string dtype_str(gpuopt_dtype_t t) {
  const char* n = gpuopt_dtype_name(t);
  return n ? n : "dtype" + std::to_string(static_cast<int>(t));
}

}  // namespace bench
