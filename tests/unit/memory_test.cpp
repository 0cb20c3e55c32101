// Memory the caller controls, host-only: gpuopt_context_set_allocator's argument checks (through
// device-less mode: no CUDA call), and the range cache that spares pointer checks their driver
// queries (src/runtime/range_cache.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <thread>

#include "gpuopt.h"
#include "runtime/deviceless.hpp"
#include "runtime/range_cache.hpp"
#include "test_support.hpp"

namespace {

void* never_allocate(size_t, void*, void*) { return nullptr; }
void never_deallocate(void*, size_t, void*, void*) {}

class SetAllocator : public ::testing::Test {
 protected:
  void SetUp() override {
    const gpuopt_device_info_t devices[] = {gpuopt::deviceless_h200()};
    gpuopt::deviceless_enable(devices, 1);
    ASSERT_EQ(gpuopt_context_create(0, &ctx_), GPUOPT_SUCCESS) << unit::last_message();
    a_.struct_size = sizeof a_;
    a_.allocate = never_allocate;
    a_.deallocate = never_deallocate;
  }
  void TearDown() override {
    EXPECT_EQ(gpuopt_context_destroy(ctx_), GPUOPT_SUCCESS) << unit::last_message();
    gpuopt::deviceless_disable();
  }
  gpuopt_context_t ctx_ = nullptr;
  gpuopt_allocator_t a_{};
};

TEST_F(SetAllocator, AcceptsAnAllocatorAndNull) {
  EXPECT_EQ(gpuopt_context_set_allocator(ctx_, &a_), GPUOPT_SUCCESS) << unit::last_message();
  EXPECT_EQ(gpuopt_context_set_allocator(ctx_, nullptr), GPUOPT_SUCCESS) << unit::last_message();
}

TEST_F(SetAllocator, NullContextIsAnInvalidHandle) {
  EXPECT_EQ(gpuopt_context_set_allocator(nullptr, &a_), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "gpuopt_context_set_allocator"));
}

TEST_F(SetAllocator, BadStructSizeIsRefused) {
  a_.struct_size = sizeof a_ - 1;
  EXPECT_EQ(gpuopt_context_set_allocator(ctx_, &a_), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("struct_size"), std::string::npos) << unit::last_message();
  a_.struct_size = 0;
  EXPECT_EQ(gpuopt_context_set_allocator(ctx_, &a_), GPUOPT_ERROR_INVALID_ARGUMENT);
}

TEST_F(SetAllocator, NullCallbacksAreRefusedByName) {
  a_.allocate = nullptr;
  EXPECT_EQ(gpuopt_context_set_allocator(ctx_, &a_), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("allocate"), std::string::npos) << unit::last_message();
  a_.allocate = never_allocate;
  a_.deallocate = nullptr;
  EXPECT_EQ(gpuopt_context_set_allocator(ctx_, &a_), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("deallocate"), std::string::npos) << unit::last_message();
}

TEST_F(SetAllocator, RefusedWhileObjectsLive) {
  gpuopt_stream_t s = nullptr;
  ASSERT_EQ(gpuopt_stream_create(ctx_, &s), GPUOPT_SUCCESS) << unit::last_message();
  EXPECT_EQ(gpuopt_context_set_allocator(ctx_, &a_), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("stream"), std::string::npos) << unit::last_message();
  ASSERT_EQ(gpuopt_stream_destroy(s), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_context_set_allocator(ctx_, &a_), GPUOPT_SUCCESS) << unit::last_message();
  // The context stays usable after the refusals.
  ASSERT_EQ(gpuopt_stream_create(ctx_, &s), GPUOPT_SUCCESS) << unit::last_message();
  EXPECT_EQ(gpuopt_stream_destroy(s), GPUOPT_SUCCESS);
}

using gpuopt::RangeCache;

RangeCache::Entry entry(std::uintptr_t base, std::uintptr_t bytes, unsigned long long id) {
  RangeCache::Entry e;
  e.base = base;
  e.end = base + bytes;
  e.id = id;
  return e;
}

TEST(RangeCache, FindsTheRangeHoldingAPointer) {
  RangeCache c;
  c.insert(entry(0x1000, 0x100, 7));
  RangeCache::Entry e;
  ASSERT_TRUE(c.find(0x1000, &e));
  EXPECT_EQ(e.id, 7u);
  EXPECT_TRUE(c.find(0x10ff, &e));
  EXPECT_FALSE(c.find(0x1100, &e)) << "end is exclusive";
  EXPECT_FALSE(c.find(0xfff, &e));
}

TEST(RangeCache, EraseAndReplaceByBase) {
  RangeCache c;
  c.insert(entry(0x1000, 0x100, 7));
  c.insert(entry(0x1000, 0x200, 8));  // the same base again: replaced, not duplicated
  RangeCache::Entry e;
  ASSERT_TRUE(c.find(0x1150, &e));
  EXPECT_EQ(e.id, 8u);
  c.erase(0x1000);
  EXPECT_FALSE(c.find(0x1000, &e));
}

TEST(RangeCache, BoundedRoundRobin) {
  RangeCache c;
  const int n = RangeCache::kSlots + 5;
  for (int i = 0; i < n; ++i) c.insert(entry(0x10000u * (i + 1), 0x100, i + 1));
  RangeCache::Entry e;
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(c.find(0x10000u * (i + 1), &e)) << "evicted " << i;
  for (int i = 5; i < n; ++i) EXPECT_TRUE(c.find(0x10000u * (i + 1), &e)) << "kept " << i;
}

// Lookups take no lock: while a thread keeps replacing entries, a lookup answers either nothing
// or an entry as it was inserted, never fields of two different entries.
TEST(RangeCache, LookupsRacingWritersSeeWholeEntries) {
  RangeCache c;
  std::atomic<bool> stop{false}, started{false};
  std::thread writer([&] {
    for (unsigned round = 0; !stop.load(); ++round) {
      for (unsigned k = 1; k <= 8; ++k) {
        // Base k * 0x10000: size and id follow from k and the round, so a torn read shows.
        c.insert(entry(0x10000u * k, 0x100 + (round % 7) * 0x10 + k, round * 16 + k));
        if (round % 3 == 0) c.erase(0x10000u * k);
      }
      started.store(true);
    }
  });
  while (!started.load()) std::this_thread::yield();
  int seen = 0;
  for (int i = 0; i < 200000; ++i) {
    const unsigned k = 1 + i % 8;
    RangeCache::Entry e;
    if (!c.find(0x10000u * k, &e)) continue;
    ++seen;
    const std::uint64_t round = e.id / 16;
    ASSERT_EQ(e.id % 16, k);
    ASSERT_EQ(e.base, 0x10000u * k);
    ASSERT_EQ(e.end - e.base, 0x100 + (round % 7) * 0x10 + k) << "size of another insert";
  }
  stop.store(true);
  writer.join();
  std::printf("[   NOTE   ] %d of 200000 lookups found an entry while it was rewritten\n", seen);
}

}  // namespace
