// The log API (gpuopt_set_log_level, gpuopt_get_log_level, gpuopt_set_log_callback), host-only:
// through device-less mode (fake H200, no CUDA call) a real dispatch decision reaches the
// callback; the level gates it; NULL restores stderr; re-entry from the callback is refused and
// does not recurse; replacing the callback while threads log never calls a callback after its
// replacement returned.
#include "runtime/log.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gpuopt.h"
#include "runtime/deviceless.hpp"
#include "test_support.hpp"

namespace {

struct Lines {
  std::mutex mu;
  std::vector<std::pair<gpuopt_log_level_t, std::string>> got;
  std::string joined() {
    std::lock_guard<std::mutex> lock(mu);
    std::string all;
    for (auto& l : got) all += l.second + "\n";
    return all;
  }
};

void collect(gpuopt_log_level_t level, const char* message, void* user) {
  auto* lines = static_cast<Lines*>(user);
  std::lock_guard<std::mutex> lock(lines->mu);
  lines->got.emplace_back(level, message);
}

class Log : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(gpuopt_get_log_level(&initial_), GPUOPT_SUCCESS);
    const gpuopt_device_info_t devices[] = {gpuopt::deviceless_h200()};
    gpuopt::deviceless_enable(devices, 1);
    ASSERT_EQ(gpuopt_context_create(0, &ctx_), GPUOPT_SUCCESS) << unit::last_message();
    ASSERT_EQ(gpuopt_stream_create(ctx_, &stream_), GPUOPT_SUCCESS) << unit::last_message();
    for (gpuopt_buffer_t* b : {&bx_, &by_}) {
      ASSERT_EQ(gpuopt_buffer_create(ctx_, 4096 * sizeof(float), GPUOPT_MEMORY_DEVICE, b),
                GPUOPT_SUCCESS);
    }
    ASSERT_EQ(gpuopt_buffer_device_pointer(bx_, &x_), GPUOPT_SUCCESS);
    ASSERT_EQ(gpuopt_buffer_device_pointer(by_, &y_), GPUOPT_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(gpuopt_set_log_callback(nullptr, nullptr), GPUOPT_SUCCESS);
    EXPECT_EQ(gpuopt_set_log_level(initial_), GPUOPT_SUCCESS);
    EXPECT_EQ(gpuopt_buffer_destroy(bx_), GPUOPT_SUCCESS);
    EXPECT_EQ(gpuopt_buffer_destroy(by_), GPUOPT_SUCCESS);
    EXPECT_EQ(gpuopt_stream_destroy(stream_), GPUOPT_SUCCESS);
    EXPECT_EQ(gpuopt_context_destroy(ctx_), GPUOPT_SUCCESS);
    gpuopt::deviceless_disable();
  }
  gpuopt_status_t axpy() {
    return gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, 4096, 2.0, x_, 1, y_, 1);
  }

  gpuopt_log_level_t initial_ = GPUOPT_LOG_OFF;
  gpuopt_context_t ctx_ = nullptr;
  gpuopt_stream_t stream_ = nullptr;
  gpuopt_buffer_t bx_ = nullptr, by_ = nullptr;
  void* x_ = nullptr;
  void* y_ = nullptr;
};

TEST_F(Log, LevelRoundTripsAndBadLevelsAreRefused) {
  gpuopt_log_level_t level = GPUOPT_LOG_OFF;
  ASSERT_EQ(gpuopt_set_log_level(GPUOPT_LOG_DEBUG), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_get_log_level(&level), GPUOPT_SUCCESS);
  EXPECT_EQ(level, GPUOPT_LOG_DEBUG);
  EXPECT_EQ(gpuopt_set_log_level(static_cast<gpuopt_log_level_t>(3)),
            GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("gpuopt_set_log_level"), std::string::npos);
  EXPECT_EQ(gpuopt_set_log_level(static_cast<gpuopt_log_level_t>(-1)),
            GPUOPT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(gpuopt_get_log_level(&level), GPUOPT_SUCCESS);
  EXPECT_EQ(level, GPUOPT_LOG_DEBUG) << "a refused level leaves the level unchanged";
  EXPECT_EQ(gpuopt_get_log_level(nullptr), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("level is NULL"), std::string::npos);
}

TEST_F(Log, CallbackSeesTheDispatchDecision) {
  Lines lines;
  ASSERT_EQ(gpuopt_set_log_level(GPUOPT_LOG_INFO), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_set_log_callback(collect, &lines), GPUOPT_SUCCESS);
  ASSERT_EQ(axpy(), GPUOPT_SUCCESS) << unit::last_message();
  const char* ran = nullptr;
  ASSERT_EQ(gpuopt_last_variant(ctx_, GPUOPT_OP_AXPY, &ran), GPUOPT_SUCCESS);
  ASSERT_EQ(lines.got.size(), 1u) << lines.joined();
  EXPECT_EQ(lines.got[0].first, GPUOPT_LOG_INFO);
  const std::string& line = lines.got[0].second;
  EXPECT_EQ(line.rfind("axpy", 0), 0u) << line;
  EXPECT_NE(line.find(std::string("-> ") + ran + " (auto)"), std::string::npos) << line;
  EXPECT_EQ(line.find('\n'), std::string::npos) << "no newline in a callback's line";
  EXPECT_EQ(line.find("[gpuopt"), std::string::npos) << "no prefix in a callback's line";

  ASSERT_EQ(gpuopt_set_log_level(GPUOPT_LOG_DEBUG), GPUOPT_SUCCESS);
  ASSERT_EQ(axpy(), GPUOPT_SUCCESS);
  ASSERT_EQ(lines.got.size(), 2u) << lines.joined();
  EXPECT_NE(lines.got[1].second.find("candidates:"), std::string::npos) << lines.got[1].second;
}

TEST_F(Log, LevelOffDeliversNothing) {
  Lines lines;
  ASSERT_EQ(gpuopt_set_log_callback(collect, &lines), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_set_log_level(GPUOPT_LOG_OFF), GPUOPT_SUCCESS);
  ASSERT_EQ(axpy(), GPUOPT_SUCCESS);
  EXPECT_TRUE(lines.got.empty()) << lines.joined();
}

TEST_F(Log, NullRestoresStderr) {
  Lines lines;
  ASSERT_EQ(gpuopt_set_log_level(GPUOPT_LOG_INFO), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_set_log_callback(collect, &lines), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_set_log_callback(nullptr, &lines), GPUOPT_SUCCESS);
  testing::internal::CaptureStderr();
  ASSERT_EQ(axpy(), GPUOPT_SUCCESS);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(lines.got.empty()) << lines.joined();
  EXPECT_EQ(err.rfind("[gpuopt info] axpy", 0), 0u) << err;
  EXPECT_EQ(err.back(), '\n') << err;
}

// The callback calls gpuopt: its own calls do not log (no recursion) and replacing the callback
// from inside is refused with a message.
struct Reentry {
  int calls = 0;
  gpuopt_status_t replace = GPUOPT_SUCCESS;
  std::string message;
  gpuopt_context_t ctx = nullptr;
};

void reenter(gpuopt_log_level_t, const char*, void* user) {
  auto* r = static_cast<Reentry*>(user);
  ++r->calls;
  r->replace = gpuopt_set_log_callback(nullptr, nullptr);
  r->message = unit::last_message();
  gpuopt_context_t c = nullptr;  // logs "context on device 0" when not inside the callback
  if (gpuopt_context_create(0, &c) == GPUOPT_SUCCESS) gpuopt_context_destroy(c);
}

TEST_F(Log, ReentryIsRefusedAndDoesNotRecurse) {
  Reentry r;
  ASSERT_EQ(gpuopt_set_log_level(GPUOPT_LOG_INFO), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_set_log_callback(reenter, &r), GPUOPT_SUCCESS);
  ASSERT_EQ(axpy(), GPUOPT_SUCCESS);
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(r.replace, GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(r.message.find("gpuopt_set_log_callback"), std::string::npos) << r.message;
  ASSERT_EQ(axpy(), GPUOPT_SUCCESS);
  EXPECT_EQ(r.calls, 2) << "the refused replacement left the callback installed";
}

// Threads log while the main thread swaps callbacks: once gpuopt_set_log_callback returned, the
// replaced callback is never entered again (its user data may be freed).
struct Counted {
  std::atomic<bool> retired{false};
  std::atomic<int> calls{0};
  std::atomic<int> after_retired{0};
};

void count(gpuopt_log_level_t, const char*, void* user) {
  auto* c = static_cast<Counted*>(user);
  c->calls.fetch_add(1);
  if (c->retired.load()) c->after_retired.fetch_add(1);
}

TEST_F(Log, ReplacingTheCallbackWhileThreadsLog) {
  ASSERT_EQ(gpuopt_set_log_level(GPUOPT_LOG_INFO), GPUOPT_SUCCESS);
  std::vector<Counted> sinks(64);
  ASSERT_EQ(gpuopt_set_log_callback(count, &sinks[0]), GPUOPT_SUCCESS);
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      while (!stop.load()) gpuopt::log(gpuopt::LogLevel::info, "line from a thread");
    });
  for (std::size_t i = 1; i < sinks.size(); ++i) {
    while (sinks[i - 1].calls.load() == 0) std::this_thread::yield();
    ASSERT_EQ(gpuopt_set_log_callback(count, &sinks[i]), GPUOPT_SUCCESS);
    sinks[i - 1].retired.store(true);
  }
  stop.store(true);
  for (auto& th : threads) th.join();
  for (std::size_t i = 0; i < sinks.size(); ++i) {
    EXPECT_EQ(sinks[i].after_retired.load(), 0) << "callback " << i << " entered after its "
                                                << "replacement returned";
    if (i + 1 < sinks.size()) {
      EXPECT_GT(sinks[i].calls.load(), 0);
    }
  }
}

}  // namespace
