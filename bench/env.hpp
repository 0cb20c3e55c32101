// What every suite needs: the context and stream, a host staging area for copies back, RAII
// buffers, fresh seeds, the progress line, and the "device is broken" latch that stops a run
// from hammering a GPU after a sticky CUDA error.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "check.hpp"
#include "gpuopt.h"
#include "results.hpp"
#include "timer.hpp"

namespace bench {

// An owned gpuopt buffer; destroyed (with a warning on failure) when it goes out of scope.
class DeviceBuffer {
 public:
  DeviceBuffer(gpuopt_context_t ctx, std::size_t bytes, gpuopt_memory_kind_t kind);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  gpuopt_buffer_t handle() const { return buf_; }
  void* device_ptr() const { return dptr_; }
  void* host_ptr() const { return hptr_; }  // pinned and mapped kinds only
  std::size_t bytes() const { return bytes_; }
  bool compressed() const;

 private:
  gpuopt_buffer_t buf_ = nullptr;
  void* dptr_ = nullptr;
  void* hptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// "[bench] k/N what ..." on stderr.
class Progress {
 public:
  void set_total(int total) { total_ = total; }
  void start(const std::string& what);
  void finish(const std::string& result);

 private:
  int total_ = 0;
  int done_ = 0;
  bool open_ = false;
};

struct BenchEnv {
  gpuopt_context_t ctx = nullptr;
  gpuopt_stream_t stream = nullptr;
  cudaStream_t cu = nullptr;  // the gpuopt stream's CUDA stream
  gpuopt_device_info_t info{};
  Options opt;
  TimerConfig timer;
  Progress progress;
  std::vector<std::string> tuning_errors;  // --tune: problems gpuopt_tune failed on
  std::vector<TunedProblem> tuned;         // --tune: what each tuned problem recorded
  bool auto_follows_cache = false;         // TuningInfo::auto_follows_cache of this run

  // Seeds: a new one for every correctness check, so no two checks see the same inputs.
  std::uint64_t next_seed() { return seed_++; }

  // Copies `bytes` of buf (from byte offset) back to host memory (pinned staging when it can be
  // had) and waits. The pointer stays valid until the next call.
  const void* copy_back(const DeviceBuffer& buf, std::size_t offset, std::size_t bytes);

  // Latch after an error: if the device is in a sticky error state, remember it so later rows
  // are recorded as not run instead of failing one by one.
  void note_error();
  bool broken() const { return !broken_reason_.empty(); }
  const std::string& broken_reason() const { return broken_reason_; }

  // Records a row whose measurement threw: a refusal (UNSUPPORTED) of a variant that is not
  // available on this device is a skipped row, anything else an error (and note_error()).
  void record_failure(const BenchError& e, bool variant_available, Row* r);

  // Returns op to automatic dispatch after a group that forced variants (warns on failure).
  void restore_auto(gpuopt_op_t op);

  void release();  // frees the staging area (before the context is destroyed)

  std::size_t staging_hint = 0;  // the staging area is allocated at least this large

 private:
  std::uint64_t seed_ = 0x5eed0001;
  DeviceBuffer* staging_ = nullptr;  // pinned host
  std::vector<unsigned char> pageable_;
  std::string broken_reason_;
};

std::string dtype_str(gpuopt_dtype_t t);  // "f32"

}  // namespace bench
