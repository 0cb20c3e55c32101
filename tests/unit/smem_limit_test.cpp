// The shared-memory limit record (runtime/smem_limit.hpp): a raise is asked of the driver once
// per kernel and context and only upwards; contexts are separate (a reset context's new key is
// raised again); threads raising one kernel to different sizes never leave it below either; a
// full table still raises (it just records nothing); a failed raise records nothing.
#include "runtime/smem_limit.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace {

using gpuopt::SmemLimitTable;

// A kernel's limit as the driver would hold it, per context, and the calls that set it.
struct FakeAttribute {
  int limit = 48 * 1024;
  int calls = 0;
  bool fail = false;
  bool operator()(int bytes) {
    ++calls;
    if (fail) return false;
    limit = bytes;
    return true;
  }
};

const void* kernel_a() {
  static int a;
  return &a;
}
const void* kernel_b() {
  static int b;
  return &b;
}

TEST(SmemLimit, RaisesOncePerKernelAndContextAndOnlyUpwards) {
  auto t = std::make_unique<SmemLimitTable>();
  FakeAttribute a;
  EXPECT_FALSE(t->raised(kernel_a(), 7, 100000));
  EXPECT_TRUE(t->raise(kernel_a(), 7, 100000, [&](int b) { return a(b); }));
  EXPECT_TRUE(t->raised(kernel_a(), 7, 100000));
  EXPECT_TRUE(t->raised(kernel_a(), 7, 60000));  // fewer bytes fit under the raised limit
  EXPECT_TRUE(t->raise(kernel_a(), 7, 60000, [&](int b) { return a(b); }));
  EXPECT_EQ(a.calls, 1);
  EXPECT_EQ(a.limit, 100000);  // never lowered
  EXPECT_FALSE(t->raised(kernel_a(), 7, 200000));
  EXPECT_TRUE(t->raise(kernel_a(), 7, 200000, [&](int b) { return a(b); }));
  EXPECT_EQ(a.calls, 2);
  EXPECT_EQ(a.limit, 200000);
  EXPECT_TRUE(t->raised(kernel_a(), 7, 200000));
  // Another kernel, another context: each its own record.
  EXPECT_FALSE(t->raised(kernel_b(), 7, 1));
  EXPECT_FALSE(t->raised(kernel_a(), 8, 1));
}

TEST(SmemLimit, ANewContextIsRaisedAgain) {
  auto t = std::make_unique<SmemLimitTable>();
  FakeAttribute before_reset, after_reset;
  EXPECT_TRUE(t->raise(kernel_a(), 3, 150000, [&](int b) { return before_reset(b); }));
  // cudaDeviceReset(): the device's primary context comes back with a new ID (key 4).
  EXPECT_TRUE(t->raise(kernel_a(), 4, 150000, [&](int b) { return after_reset(b); }));
  EXPECT_EQ(before_reset.calls, 1);
  EXPECT_EQ(after_reset.calls, 1);
  EXPECT_EQ(after_reset.limit, 150000);
}

TEST(SmemLimit, NoContextAndFailedRaisesAreNotRecorded) {
  auto t = std::make_unique<SmemLimitTable>();
  FakeAttribute a;
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(t->raise(kernel_a(), 0, 90000, [&](int b) { return a(b); }));
  EXPECT_EQ(a.calls, 3);  // key 0: no current context, nothing cached
  FakeAttribute f;
  f.fail = true;
  EXPECT_FALSE(t->raise(kernel_b(), 5, 90000, [&](int b) { return f(b); }));
  EXPECT_FALSE(t->raised(kernel_b(), 5, 90000));
  f.fail = false;
  EXPECT_TRUE(t->raise(kernel_b(), 5, 90000, [&](int b) { return f(b); }));
  EXPECT_TRUE(t->raised(kernel_b(), 5, 90000));
}

TEST(SmemLimit, AFullTableStillRaises) {
  auto t = std::make_unique<SmemLimitTable>();
  FakeAttribute a;
  for (unsigned long long key = 1; key <= SmemLimitTable::kEntries; ++key)
    EXPECT_TRUE(t->raise(kernel_a(), key, 1000, [&](int b) { return a(b); }));
  for (unsigned long long key = 1; key <= SmemLimitTable::kEntries; ++key)
    EXPECT_TRUE(t->raised(kernel_a(), key, 1000)) << key;
  const unsigned long long extra = SmemLimitTable::kEntries + 1;
  EXPECT_TRUE(t->raise(kernel_a(), extra, 1000, [&](int b) { return a(b); }));
  EXPECT_TRUE(t->raise(kernel_a(), extra, 1000, [&](int b) { return a(b); }));
  EXPECT_FALSE(t->raised(kernel_a(), extra, 1000));
  EXPECT_EQ(a.calls, SmemLimitTable::kEntries + 2);
}

TEST(SmemLimit, ThreadsRaisingDifferentSizesNeverLeaveItBelowEither) {
  auto t = std::make_unique<SmemLimitTable>();
  std::atomic<int> limit{48 * 1024};
  std::atomic<int> in_set{0};
  std::atomic<bool> overlapped{false};
  std::vector<std::thread> threads;
  for (int th = 0; th < 8; ++th)
    threads.emplace_back([&, th] {
      for (int i = 0; i < 2000; ++i) {
        const int bytes = 50000 + ((th * 7919 + i * 104729) % 150000);
        if (!t->raised(kernel_a(), 9, bytes)) {
          t->raise(kernel_a(), 9, bytes, [&](int b) {
            if (in_set.fetch_add(1) != 0) overlapped = true;
            limit.store(b);
            in_set.fetch_sub(1);
            return true;
          });
        }
        // What a launch of `bytes` needs right after the raise.
        ASSERT_GE(limit.load(), bytes);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_FALSE(overlapped.load());
}

}  // namespace
