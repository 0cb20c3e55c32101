// The deferred finishing step of the host-tiled pipeline: a worker (or a gang of workers) hands
// the finish of a tile (wait for its copy out, unpack it into C with beta C, mark it done) to a
// thread of its own and goes on to its next tile at once, so its GPU streams never idle while the
// CPU finishes the last tile (docs/notes/blas.md, "The deferred finish").
//
// Ownership of the buffers a finish reads (the pinned C tile, the device C tile's copy out): from
// hand() until the next hand() or wait() returns, they belong to the finishing thread; the
// worker must call wait() (or hand(), which waits first) before it writes them again. One finish
// is in flight per DeferredFinish, so one pinned C tile per worker suffices.
//
// Pure host code (no CUDA): unit-tested without a GPU (tests/blas/deferred_finish_test.cpp).
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace gpuopt_host_tiled {

class DeferredFinish {
 public:
  DeferredFinish() = default;
  /** Waits for the finish in flight, then joins the thread. */
  ~DeferredFinish();
  DeferredFinish(const DeferredFinish&) = delete;
  DeferredFinish& operator=(const DeferredFinish&) = delete;

  /** Waits until the previous finish is done (its buffers are the caller's again), then hands
   *  @p finish to the finishing thread (started at the first hand()) and returns. @p finish must
   *  not throw. When the thread cannot be started, @p finish runs on the caller before hand()
   *  returns (the synchronous finish: same work, same order). */
  void hand(std::function<void()> finish);

  /** Returns once the finish handed last is done: what it read may be written again. */
  void wait();

  /** True between hand() and the end of that finish (a check for the owner's assertions). */
  bool in_flight();

 private:
  void loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::function<void()> task_;  // the finish in flight (handed, not yet done)
  bool busy_ = false;           // task_ is handed and not done
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace gpuopt_host_tiled
