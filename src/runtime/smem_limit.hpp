// A kernel's dynamic shared-memory limit (cudaFuncAttributeMaxDynamicSharedMemorySize), raised by
// every rung that launches with more than the default 48 KiB: one service in place of each
// launcher's own flag or per-launch call.
//
// The attribute belongs to the kernel's function in one context, so a raise is recorded per
// (kernel, context key) (runtime/context_key.hpp): after cudaDeviceReset() the device's new
// primary context has a new key and is raised again, where a per-device flag would have skipped
// it and the launch would have failed. Raises only go up and are serialized, so two host threads
// launching one kernel with different sizes never leave its limit below what either launches.
// A recorded raise costs a launch one context-key read and a lock-free table probe; a host
// attribute, not stream work: legal during stream capture.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "gpuopt.h"

namespace gpuopt {

// The record: open addressing over (kernel, context key), entries never removed (a process
// launches a bounded set of kernels in a bounded set of contexts; with every entry taken a raise
// is simply not recorded, and the next launch raises again).
class SmemLimitTable {
 public:
  static constexpr int kEntries = 1024;  // a power of two

  // Whether a raise to at least `bytes` is recorded for (kernel, key). Lock-free.
  bool raised(const void* kernel, unsigned long long key, int bytes) const {
    for (int i = 0, at = home(kernel, key); i < kEntries; ++i, at = (at + 1) & (kEntries - 1)) {
      const unsigned long long k = e_[at].key.load(std::memory_order_acquire);
      if (k == 0) return false;
      if (k == key && e_[at].kernel.load(std::memory_order_relaxed) == kernel)
        return e_[at].bytes.load(std::memory_order_acquire) >= bytes;
    }
    return false;
  }

  // Raises (kernel, key) to `bytes` through set(bytes) -> bool (true: raised) unless a raise to
  // at least `bytes` is recorded; records it. Serialized: no two set() calls overlap. key 0 (no
  // current context) is never recorded. Returns set()'s answer, or true when none was needed.
  template <class Set>
  bool raise(const void* kernel, unsigned long long key, int bytes, Set&& set) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (key != 0 && raised(kernel, key, bytes)) return true;
    if (!set(bytes)) return false;
    if (key != 0) record(kernel, key, bytes);
    return true;
  }

 private:
  struct Entry {
    std::atomic<unsigned long long> key{0};  // 0: free
    std::atomic<const void*> kernel{nullptr};
    std::atomic<int> bytes{0};
  };
  static int home(const void* kernel, unsigned long long key) {
    std::uint64_t h = reinterpret_cast<std::uintptr_t>(kernel) ^ (key * 0x9E3779B97F4A7C15ull);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return static_cast<int>(h & (kEntries - 1));
  }
  // Under mutex_: the entry of (kernel, key) takes `bytes` (a raise is only ever upwards); a new
  // entry is published by its key last.
  void record(const void* kernel, unsigned long long key, int bytes) {
    for (int i = 0, at = home(kernel, key); i < kEntries; ++i, at = (at + 1) & (kEntries - 1)) {
      Entry& en = e_[at];
      const unsigned long long k = en.key.load(std::memory_order_relaxed);
      if (k == key && en.kernel.load(std::memory_order_relaxed) == kernel) {
        en.bytes.store(bytes, std::memory_order_release);
        return;
      }
      if (k != 0) continue;
      en.kernel.store(kernel, std::memory_order_relaxed);
      en.bytes.store(bytes, std::memory_order_relaxed);
      en.key.store(key, std::memory_order_release);
      return;
    }
  }
  Entry e_[kEntries];
  std::mutex mutex_;
};

// Raises `kernel`'s dynamic shared-memory limit to at least `bytes` in the calling thread's
// current context (the context of the stream the caller launches on: launches run after
// make_current). On failure: the CUDA status, fn's message led by `what`.
gpuopt_status_t raise_smem_limit(const void* kernel, int bytes, const char* fn, const char* what);

template <class... Args>
gpuopt_status_t raise_smem_limit(void (*kernel)(Args...), int bytes, const char* fn,
                                 const char* what) {
  return raise_smem_limit(reinterpret_cast<const void*>(kernel), bytes, fn, what);
}

}  // namespace gpuopt
