// Parallel host copies for the host-tiled pipeline: the pageable <-> pinned staging of tiles is a
// CPU memcpy, and one core copies at 5-10 GB/s against a host link of 25-55 GB/s, so the staging
// of every worker is spread over a pool of helper threads (shared by the workers: a lone worker
// gets them all, concurrent workers share them first come first served).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpuopt_host_tiled {

class CopyPool {
 public:
  /** Starts @p helpers threads (fewer when the system refuses more; 0 copies on the caller). */
  explicit CopyPool(int helpers);
  ~CopyPool();
  CopyPool(const CopyPool&) = delete;
  CopyPool& operator=(const CopyPool&) = delete;

  /** Runs fn(0) .. fn(pieces - 1) on the calling thread and the helpers; returns when all ran.
   *  Several threads may call it at once. @p fn must not throw. */
  void run(int64_t pieces, const std::function<void(int64_t)>& fn);

  /** The threads a call can use: the helpers and the caller. */
  int threads() const { return static_cast<int>(helpers_.size()) + 1; }

  /** The CPUs this process may run on (sched_getaffinity), at least 1. */
  static int cpus();

 private:
  struct Job;
  void helper_loop();
  bool claim(Job* j, int64_t* piece);  // under mu_

  std::mutex mu_;
  std::condition_variable work_;  // a job was queued, or stop_
  std::condition_variable done_;  // a job's last piece finished
  std::deque<Job*> queue_;        // jobs with pieces not yet claimed
  bool stop_ = false;
  std::vector<std::thread> helpers_;
};

/** Copies rows x cols elements of @p elem bytes from @p src (column-major, leading dimension
 *  @p lds) to @p dst (leading dimension @p ldd) on @p pool, in pieces of at least @p piece_bytes
 *  (a contiguous whole as one flat range); @p pool may be null (the caller copies alone). */
void copy_2d(CopyPool* pool, size_t piece_bytes, void* dst, int64_t ldd, const void* src,
             int64_t lds, int64_t rows, int64_t cols, size_t elem);

/** C = D + beta C on rows x cols elements (@p elem 8: double, 4: float; leading dimensions
 *  @p ldc, @p ldd) on @p pool, in pieces of at least @p piece_bytes of C. */
void add_scaled_2d(CopyPool* pool, size_t piece_bytes, void* c, int64_t ldc, const void* d,
                   int64_t ldd, int64_t rows, int64_t cols, size_t elem, double beta);

}  // namespace gpuopt_host_tiled
