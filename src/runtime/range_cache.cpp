#include "runtime/range_cache.hpp"

namespace gpuopt {

bool RangeCache::find(std::uintptr_t p, Entry* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Entry& e : slots_)
    if (e.end && p >= e.base && p < e.end) {
      *out = e;
      return true;
    }
  return false;
}

void RangeCache::insert(const Entry& e) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Entry& s : slots_)
    if (s.end && s.base == e.base) {
      s = e;
      return;
    }
  slots_[next_] = e;
  next_ = (next_ + 1) % kSlots;
}

void RangeCache::erase(std::uintptr_t base) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Entry& s : slots_)
    if (s.end && s.base == base) s = Entry{};
}

}  // namespace gpuopt
