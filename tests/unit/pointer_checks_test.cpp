// The per-context pointer-check policy (gpuopt_context_set_pointer_checks, _pointer_checks,
// gpuopt_context_forget_pointers, GPUOPT_POINTER_CHECKS), host-only through device-less mode:
// the fake allocator stands for the caller's cudaMalloc / cudaFree and counts the fake driver
// queries, so a test tells an answer from the range cache from one the driver gave. Full mode
// queries on every call and refuses freed memory; cached mode queries once per allocation and
// still checks bounds and device; forget restores detection; gpuopt's own buffers are exact in
// both modes.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "deviceless_fixture.hpp"
#include "gpuopt.h"
#include "runtime/deviceless.hpp"
#include "test_support.hpp"

namespace {

constexpr int64_t kN = 1024;
constexpr size_t kBytes = kN * sizeof(float);

class PointerChecks : public unit::DevicelessContext {
 protected:
  void SetUp() override {
    unit::DevicelessContext::SetUp();
    x_ = caller_malloc(kBytes);
    y_ = caller_malloc(kBytes);
  }
  void TearDown() override {
    for (void* p : allocations_) gpuopt::deviceless_free(p);
    unit::DevicelessContext::TearDown();
  }
  // The caller's own allocation (cudaMalloc in a real program), on fake device `device`.
  void* caller_malloc(size_t bytes, int device = 0) {
    void* p = nullptr;
    EXPECT_EQ(gpuopt::deviceless_allocate("test", device, bytes, &p), GPUOPT_SUCCESS);
    allocations_.push_back(p);
    return p;
  }
  void caller_free(void* p) {
    gpuopt::deviceless_free(p);
    allocations_.erase(std::find(allocations_.begin(), allocations_.end(), p));
  }
  gpuopt_status_t axpy(const void* x, void* y, int64_t n = kN) {
    return gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, n, 2.0, x, 1, y, 1);
  }
  // Fake driver queries one axpy call made.
  std::uint64_t queries_of_one_axpy(const void* x, void* y) {
    const std::uint64_t before = gpuopt::deviceless_driver_queries();
    EXPECT_EQ(axpy(x, y), GPUOPT_SUCCESS) << unit::last_message();
    return gpuopt::deviceless_driver_queries() - before;
  }
  gpuopt_pointer_checks_t mode() {
    gpuopt_pointer_checks_t m = static_cast<gpuopt_pointer_checks_t>(-1);
    EXPECT_EQ(gpuopt_context_pointer_checks(ctx_, &m), GPUOPT_SUCCESS) << unit::last_message();
    return m;
  }

  void* x_ = nullptr;
  void* y_ = nullptr;
  std::vector<void*> allocations_;
};

TEST_F(PointerChecks, DefaultIsFullAndTheModeRoundTrips) {
  EXPECT_EQ(mode(), GPUOPT_POINTER_CHECKS_FULL);
  ASSERT_EQ(gpuopt_context_set_pointer_checks(ctx_, GPUOPT_POINTER_CHECKS_CACHED), GPUOPT_SUCCESS);
  EXPECT_EQ(mode(), GPUOPT_POINTER_CHECKS_CACHED);
  ASSERT_EQ(gpuopt_context_set_pointer_checks(ctx_, GPUOPT_POINTER_CHECKS_FULL), GPUOPT_SUCCESS);
  EXPECT_EQ(mode(), GPUOPT_POINTER_CHECKS_FULL);
}

TEST_F(PointerChecks, BadArgumentsAreRefusedByName) {
  EXPECT_NE(gpuopt_context_set_pointer_checks(nullptr, GPUOPT_POINTER_CHECKS_CACHED),
            GPUOPT_SUCCESS);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "ctx")) << unit::last_message();
  for (int bad : {-1, 2, 1000}) {
    EXPECT_EQ(gpuopt_context_set_pointer_checks(ctx_, static_cast<gpuopt_pointer_checks_t>(bad)),
              GPUOPT_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(unit::has_word(unit::last_message(), "mode")) << unit::last_message();
  }
  EXPECT_EQ(mode(), GPUOPT_POINTER_CHECKS_FULL) << "a refused mode changes nothing";
  EXPECT_EQ(gpuopt_context_pointer_checks(ctx_, nullptr), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("mode is NULL"), std::string::npos) << unit::last_message();
  gpuopt_pointer_checks_t m;
  EXPECT_NE(gpuopt_context_pointer_checks(nullptr, &m), GPUOPT_SUCCESS);
  EXPECT_NE(gpuopt_context_forget_pointers(nullptr), GPUOPT_SUCCESS);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "ctx")) << unit::last_message();
  EXPECT_EQ(axpy(x_, y_), GPUOPT_SUCCESS) << "the context stays usable: " << unit::last_message();
}

TEST_F(PointerChecks, FullModeQueriesTheDriverForEachOperandOnEveryCall) {
  queries_of_one_axpy(x_, y_);  // first call: the full queries fill the cache
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(queries_of_one_axpy(x_, y_), 2u) << "one buffer-ID read per operand";
}

// Operands a framework carved from one pool segment (one driver allocation): one buffer-ID read
// per call covers them all, and the next call reads it again.
TEST_F(PointerChecks, FullModeQueriesAnAllocationOncePerCallWhateverItsOperands) {
  char* pool = static_cast<char*>(caller_malloc(2 * kBytes));
  void* x = pool;
  void* y = pool + kBytes;
  EXPECT_EQ(queries_of_one_axpy(x, y), 1u) << "the full query of x verifies y's allocation too";
  for (int i = 0; i < 3; ++i) EXPECT_EQ(queries_of_one_axpy(x, y), 1u) << "one read per call";
  // Operands in two allocations still cost one read each.
  EXPECT_EQ(queries_of_one_axpy(x, y_), 2u);
}

// What one call verified never answers for the next: memory freed between two calls is refused
// although the call before verified it for both operands.
TEST_F(PointerChecks, AnAllocationVerifiedInOneCallIsCheckedAgainInTheNext) {
  char* pool = static_cast<char*>(caller_malloc(2 * kBytes));
  ASSERT_EQ(axpy(pool, pool + kBytes), GPUOPT_SUCCESS) << unit::last_message();
  caller_free(pool);
  EXPECT_EQ(axpy(pool, pool + kBytes), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("x"), std::string::npos) << unit::last_message();
  // The context stays usable.
  EXPECT_EQ(axpy(x_, y_), GPUOPT_SUCCESS) << unit::last_message();
}

// gemm's three operands in one allocation: one read per call.
TEST_F(PointerChecks, GemmOperandsInOneAllocationCostOneRead) {
  constexpr int64_t n = 16;
  constexpr size_t matrix = n * n * sizeof(float);
  char* pool = static_cast<char*>(caller_malloc(3 * matrix));
  gpuopt_gemm_desc_t d = unit::square_gemm_desc(GPUOPT_DTYPE_F32, n);
  auto gemm = [&] {
    const std::uint64_t before = gpuopt::deviceless_driver_queries();
    EXPECT_EQ(gpuopt_gemm(ctx_, stream_, &d, pool, pool + matrix, pool + 2 * matrix),
              GPUOPT_SUCCESS)
        << unit::last_message();
    return gpuopt::deviceless_driver_queries() - before;
  };
  gemm();
  EXPECT_EQ(gemm(), 1u);
}

TEST_F(PointerChecks, CachedModeQueriesOncePerAllocation) {
  ASSERT_EQ(gpuopt_context_set_pointer_checks(ctx_, GPUOPT_POINTER_CHECKS_CACHED), GPUOPT_SUCCESS);
  EXPECT_GT(queries_of_one_axpy(x_, y_), 0u) << "a range is validated by the driver once";
  for (int i = 0; i < 3; ++i) EXPECT_EQ(queries_of_one_axpy(x_, y_), 0u);
  // An interior pointer of a cached allocation is answered from the cache too.
  const std::uint64_t before = gpuopt::deviceless_driver_queries();
  EXPECT_EQ(axpy(static_cast<char*>(x_) + 256, static_cast<char*>(y_) + 256, kN - 64),
            GPUOPT_SUCCESS)
      << unit::last_message();
  EXPECT_EQ(gpuopt::deviceless_driver_queries(), before);
  // Back to full mode: the cached entries are re-checked by buffer ID again.
  ASSERT_EQ(gpuopt_context_set_pointer_checks(ctx_, GPUOPT_POINTER_CHECKS_FULL), GPUOPT_SUCCESS);
  EXPECT_EQ(queries_of_one_axpy(x_, y_), 2u);
}

TEST_F(PointerChecks, CachedModeStillChecksBoundsAndDevice) {
  ASSERT_EQ(gpuopt_context_set_pointer_checks(ctx_, GPUOPT_POINTER_CHECKS_CACHED), GPUOPT_SUCCESS);
  ASSERT_EQ(axpy(x_, y_), GPUOPT_SUCCESS) << unit::last_message();
  // Past the cached allocation: the driver decides, and refuses it.
  EXPECT_EQ(axpy(x_, y_, kN + 1), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("allocation ends"), std::string::npos)
      << unit::last_message();
  // Another device's memory is never cached, so it is refused on every call.
  void* other = caller_malloc(kBytes, 1);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(axpy(other, y_), GPUOPT_ERROR_WRONG_DEVICE);
    EXPECT_TRUE(unit::has_word(unit::last_message(), "x")) << unit::last_message();
  }
  EXPECT_EQ(axpy(x_, y_), GPUOPT_SUCCESS) << unit::last_message();
}

TEST_F(PointerChecks, FullModeRefusesFreedMemory) {
  ASSERT_EQ(axpy(x_, y_), GPUOPT_SUCCESS) << unit::last_message();
  caller_free(y_);
  EXPECT_EQ(axpy(x_, y_), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "y")) << unit::last_message();
}

TEST_F(PointerChecks, CachedModeTrustsFreedMemoryUntilForgotten) {
  ASSERT_EQ(gpuopt_context_set_pointer_checks(ctx_, GPUOPT_POINTER_CHECKS_CACHED), GPUOPT_SUCCESS);
  ASSERT_EQ(axpy(x_, y_), GPUOPT_SUCCESS) << unit::last_message();
  caller_free(y_);
  // The documented trade: the caller freed y, cached mode does not ask the driver (as cuBLAS).
  EXPECT_EQ(axpy(x_, y_), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_context_forget_pointers(ctx_), GPUOPT_SUCCESS);
  EXPECT_EQ(axpy(x_, y_), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "y")) << unit::last_message();
  EXPECT_EQ(mode(), GPUOPT_POINTER_CHECKS_CACHED) << "forgetting keeps the mode";
}

TEST_F(PointerChecks, ForgetDetectsAFreedAndReallocatedRange) {
  ASSERT_EQ(gpuopt_context_set_pointer_checks(ctx_, GPUOPT_POINTER_CHECKS_CACHED), GPUOPT_SUCCESS);
  ASSERT_EQ(axpy(x_, y_), GPUOPT_SUCCESS) << unit::last_message();
  caller_free(x_);
  caller_free(y_);
  // With every fake allocation gone the allocator starts over: same address, a smaller range.
  void* x2 = caller_malloc(kBytes / 2);
  ASSERT_EQ(x2, x_) << "the fake allocator reuses the address";
  ASSERT_EQ(gpuopt_context_forget_pointers(ctx_), GPUOPT_SUCCESS);
  void* y2 = caller_malloc(kBytes);
  EXPECT_EQ(axpy(x2, y2), GPUOPT_ERROR_INVALID_ARGUMENT) << "x2 holds half of what n needs";
  EXPECT_NE(unit::last_message().find("allocation ends"), std::string::npos)
      << unit::last_message();
  EXPECT_EQ(axpy(x2, y2, kN / 2), GPUOPT_SUCCESS) << unit::last_message();
}

TEST_F(PointerChecks, OwnBuffersAreExactInCachedMode) {
  ASSERT_EQ(gpuopt_context_set_pointer_checks(ctx_, GPUOPT_POINTER_CHECKS_CACHED), GPUOPT_SUCCESS);
  gpuopt_buffer_t b = nullptr;
  ASSERT_EQ(gpuopt_buffer_create(ctx_, kBytes, GPUOPT_MEMORY_DEVICE, &b), GPUOPT_SUCCESS);
  void* p = nullptr;
  ASSERT_EQ(gpuopt_buffer_device_pointer(b, &p), GPUOPT_SUCCESS);
  ASSERT_EQ(axpy(x_, p), GPUOPT_SUCCESS) << unit::last_message();
  ASSERT_EQ(gpuopt_buffer_destroy(b), GPUOPT_SUCCESS);
  EXPECT_EQ(axpy(x_, p), GPUOPT_ERROR_INVALID_ARGUMENT) << "gpuopt saw the buffer destroyed";
  EXPECT_TRUE(unit::has_word(unit::last_message(), "y")) << unit::last_message();
}

TEST_F(PointerChecks, ModeChangesWhileThreadsCall) {
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 2; ++t)
    callers.emplace_back([&] {
      for (int i = 0; i < 2000 && !stop.load(); ++i)
        if (axpy(x_, y_) != GPUOPT_SUCCESS) failures.fetch_add(1);
    });
  for (int i = 0; i < 2000; ++i) {
    gpuopt_context_set_pointer_checks(
        ctx_, i % 2 ? GPUOPT_POINTER_CHECKS_CACHED : GPUOPT_POINTER_CHECKS_FULL);
    if (i % 7 == 0) gpuopt_context_forget_pointers(ctx_);
  }
  stop.store(true);
  for (auto& t : callers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

// GPUOPT_POINTER_CHECKS at context creation: full, cached, and a malformed value (one log line,
// the default).
class PointerChecksEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    const gpuopt_device_info_t devices[] = {gpuopt::deviceless_h200()};
    gpuopt::deviceless_enable(devices, 1);
    ASSERT_EQ(gpuopt_get_log_level(&level_), GPUOPT_SUCCESS);
  }
  void TearDown() override {
    unsetenv("GPUOPT_POINTER_CHECKS");
    EXPECT_EQ(gpuopt_set_log_callback(nullptr, nullptr), GPUOPT_SUCCESS);
    EXPECT_EQ(gpuopt_set_log_level(level_), GPUOPT_SUCCESS);
    gpuopt::deviceless_disable();
  }
  gpuopt_pointer_checks_t created_with(const char* value) {
    setenv("GPUOPT_POINTER_CHECKS", value, 1);
    gpuopt_context_t ctx = nullptr;
    gpuopt_pointer_checks_t m = static_cast<gpuopt_pointer_checks_t>(-1);
    EXPECT_EQ(gpuopt_context_create(0, &ctx), GPUOPT_SUCCESS) << unit::last_message();
    EXPECT_EQ(gpuopt_context_pointer_checks(ctx, &m), GPUOPT_SUCCESS);
    EXPECT_EQ(gpuopt_context_destroy(ctx), GPUOPT_SUCCESS);
    return m;
  }
  gpuopt_log_level_t level_ = GPUOPT_LOG_OFF;
};

struct Collected {
  std::mutex mu;
  std::vector<std::string> lines;
};

void collect(gpuopt_log_level_t, const char* message, void* user) {
  auto* c = static_cast<Collected*>(user);
  std::lock_guard<std::mutex> lock(c->mu);
  c->lines.emplace_back(message);
}

TEST_F(PointerChecksEnv, FullAndCachedAreHonoured) {
  EXPECT_EQ(created_with("cached"), GPUOPT_POINTER_CHECKS_CACHED);
  EXPECT_EQ(created_with("full"), GPUOPT_POINTER_CHECKS_FULL);
  EXPECT_EQ(created_with(""), GPUOPT_POINTER_CHECKS_FULL);
}

TEST_F(PointerChecksEnv, AMalformedValueIsLoggedAndIgnored) {
  Collected c;
  ASSERT_EQ(gpuopt_set_log_level(GPUOPT_LOG_INFO), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_set_log_callback(collect, &c), GPUOPT_SUCCESS);
  EXPECT_EQ(created_with("Cached "), GPUOPT_POINTER_CHECKS_FULL);
  ASSERT_EQ(gpuopt_set_log_callback(nullptr, nullptr), GPUOPT_SUCCESS);
  int mentions = 0;
  for (const std::string& l : c.lines)
    if (l.find("GPUOPT_POINTER_CHECKS=Cached ") != std::string::npos) ++mentions;
  EXPECT_EQ(mentions, 1);
}

}  // namespace
