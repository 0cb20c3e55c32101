#include "runtime/range_cache.hpp"

namespace gpuopt {

bool RangeCache::find(std::uintptr_t p, Entry* out) const {
  for (;;) {
    const std::uint64_t before = seq_.load(std::memory_order_acquire);
    if (before & 1) continue;  // a writer is changing the slots
    bool found = false;
    for (const Slot& s : slots_) {
      const std::uintptr_t end = s.end.load(std::memory_order_relaxed);
      const std::uintptr_t base = s.base.load(std::memory_order_relaxed);
      if (end && p >= base && p < end) {
        out->base = base;
        out->end = end;
        out->id = s.id.load(std::memory_order_relaxed);
        out->owned = s.owned.load(std::memory_order_relaxed);
        found = true;
        break;
      }
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    if (seq_.load(std::memory_order_relaxed) == before) return found;
  }
}

void RangeCache::store(Slot& s, const Entry& e) {
  s.base.store(e.base, std::memory_order_relaxed);
  s.end.store(e.end, std::memory_order_relaxed);
  s.id.store(e.id, std::memory_order_relaxed);
  s.owned.store(e.owned, std::memory_order_relaxed);
}

namespace {
// Brackets a writer's changes: readers that overlap it see an odd or changed sequence and retry.
class WriteSection {
 public:
  explicit WriteSection(std::atomic<std::uint64_t>& seq) : seq_(seq) {
    seq_.store(seq_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
  }
  ~WriteSection() {
    seq_.store(seq_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  WriteSection(const WriteSection&) = delete;
  WriteSection& operator=(const WriteSection&) = delete;

 private:
  std::atomic<std::uint64_t>& seq_;
};
}  // namespace

void RangeCache::insert(const Entry& e) {
  std::lock_guard<std::mutex> lock(mu_);
  WriteSection w(seq_);
  for (Slot& s : slots_)
    if (s.end.load(std::memory_order_relaxed) && s.base.load(std::memory_order_relaxed) == e.base) {
      store(s, e);
      return;
    }
  store(slots_[next_], e);
  next_ = (next_ + 1) % kSlots;
}

void RangeCache::erase(std::uintptr_t base) {
  std::lock_guard<std::mutex> lock(mu_);
  WriteSection w(seq_);
  for (Slot& s : slots_)
    if (s.end.load(std::memory_order_relaxed) && s.base.load(std::memory_order_relaxed) == base)
      store(s, Entry{});
}

void RangeCache::erase_foreign() {
  std::lock_guard<std::mutex> lock(mu_);
  WriteSection w(seq_);
  for (Slot& s : slots_)
    if (s.end.load(std::memory_order_relaxed) && !s.owned.load(std::memory_order_relaxed))
      store(s, Entry{});
}

}  // namespace gpuopt
