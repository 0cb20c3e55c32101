#include "deferred_finish.hpp"

#include <system_error>
#include <utility>

namespace gpuopt_host_tiled {

DeferredFinish::~DeferredFinish() {
  wait();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void DeferredFinish::hand(std::function<void()> finish) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return !busy_; });
  if (!thread_.joinable()) {
    try {
      thread_ = std::thread(&DeferredFinish::loop, this);
    } catch (const std::system_error&) {
      // No thread to be had (resource limits): finish here, as the synchronous pipeline did.
      lock.unlock();
      finish();
      return;
    }
  }
  task_ = std::move(finish);
  busy_ = true;
  lock.unlock();
  cv_.notify_all();
}

void DeferredFinish::wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return !busy_; });
}

bool DeferredFinish::in_flight() {
  std::lock_guard<std::mutex> lock(mu_);
  return busy_;
}

void DeferredFinish::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return busy_ || stop_; });
    if (!busy_) return;  // stop_, nothing in flight
    std::function<void()> task = std::move(task_);
    task_ = nullptr;
    lock.unlock();
    task();
    task = nullptr;  // what it captured goes before the owner is told it is done
    lock.lock();
    busy_ = false;
    cv_.notify_all();
  }
}

}  // namespace gpuopt_host_tiled
