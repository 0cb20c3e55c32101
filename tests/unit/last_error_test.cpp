// gpuopt_last_error_message: truncation, NUL termination, the length out-parameter, the
// NULL-buffer rules, and per-thread messages.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>

#include "gpuopt.h"
#include "test_support.hpp"

namespace {

// Makes the calling thread's last call fail with a message naming gpuopt_stream_create.
void fail_stream_create() {
  gpuopt_stream_t s = nullptr;
  ASSERT_EQ(gpuopt_stream_create(nullptr, &s), GPUOPT_ERROR_INVALID_HANDLE);
}

// Same, naming gpuopt_buffer_size.
void fail_buffer_size() {
  size_t bytes = 0;
  ASSERT_EQ(gpuopt_buffer_size(nullptr, &bytes), GPUOPT_ERROR_INVALID_HANDLE);
}

TEST(LastError, FullCopyAndLength) {
  fail_stream_create();
  size_t len = 0;
  ASSERT_EQ(gpuopt_last_error_message(nullptr, 0, &len), GPUOPT_SUCCESS);
  ASSERT_GT(len, 0u);
  std::string buf(len + 16, 'Z');
  size_t len2 = 0;
  ASSERT_EQ(gpuopt_last_error_message(&buf[0], buf.size(), &len2), GPUOPT_SUCCESS);
  EXPECT_EQ(len2, len);
  EXPECT_EQ(std::strlen(buf.c_str()), len) << "the copy is NUL-terminated right after the message";
  EXPECT_NE(buf.find("gpuopt_stream_create"), std::string::npos) << buf.c_str();
  // Bytes past the NUL are not written.
  for (size_t i = len + 1; i < buf.size(); ++i) {
    EXPECT_EQ(buf[i], 'Z') << "byte " << i;
  }
}

TEST(LastError, TruncatesAndTerminates) {
  fail_stream_create();
  const std::string full = unit::last_message();
  ASSERT_GT(full.size(), 8u);
  for (size_t size : {size_t{1}, size_t{2}, size_t{5}, full.size(), full.size() + 1}) {
    SCOPED_TRACE("size " + std::to_string(size));
    std::string buf(size + 4, 'Z');
    size_t len = 0;
    ASSERT_EQ(gpuopt_last_error_message(&buf[0], size, &len), GPUOPT_SUCCESS);
    EXPECT_EQ(len, full.size()) << "length reports the full message, not the copy";
    const size_t copied = std::min(size - 1, full.size());
    EXPECT_EQ(std::string(buf.data(), copied), full.substr(0, copied));
    EXPECT_EQ(buf[copied], '\0');
    for (size_t i = size; i < buf.size(); ++i) {
      EXPECT_EQ(buf[i], 'Z') << "wrote past size at " << i;
    }
  }
}

TEST(LastError, LengthPointerIsOptional) {
  fail_stream_create();
  char buf[8];
  std::memset(buf, 'Z', sizeof buf);
  ASSERT_EQ(gpuopt_last_error_message(buf, sizeof buf, nullptr), GPUOPT_SUCCESS);
  EXPECT_EQ(buf[7], '\0');
  EXPECT_EQ(std::strlen(buf), 7u);
}

TEST(LastError, NullBufferWithZeroSize) {
  fail_stream_create();
  size_t len = 12345;
  EXPECT_EQ(gpuopt_last_error_message(nullptr, 0, &len), GPUOPT_SUCCESS);
  EXPECT_EQ(len, unit::last_message().size());
  EXPECT_EQ(gpuopt_last_error_message(nullptr, 0, nullptr), GPUOPT_SUCCESS);
}

TEST(LastError, NullBufferWithNonzeroSizeIsInvalid) {
  EXPECT_EQ(gpuopt_last_error_message(nullptr, 16, nullptr), GPUOPT_ERROR_INVALID_ARGUMENT);
  size_t len = 0;
  EXPECT_EQ(gpuopt_last_error_message(nullptr, 1, &len), GPUOPT_ERROR_INVALID_ARGUMENT);
}

TEST(LastError, ZeroSizeBufferIsNotWritten) {
  fail_stream_create();
  char c = 'Z';
  size_t len = 0;
  ASSERT_EQ(gpuopt_last_error_message(&c, 0, &len), GPUOPT_SUCCESS);
  EXPECT_EQ(c, 'Z');
  EXPECT_GT(len, 0u);
}

TEST(LastError, KeptAcrossSuccessfulCalls) {
  fail_stream_create();
  const std::string before = unit::last_message();
  ASSERT_EQ(gpuopt_stream_destroy(nullptr), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_version(), GPUOPT_VERSION);
  EXPECT_EQ(unit::last_message(), before);
}

TEST(LastError, ReplacedByTheNextFailure) {
  fail_stream_create();
  fail_buffer_size();
  const std::string msg = unit::last_message();
  EXPECT_NE(msg.find("gpuopt_buffer_size"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("gpuopt_stream_create"), std::string::npos) << msg;
}

TEST(LastError, IsPerThread) {
  fail_stream_create();
  const std::string mine = unit::last_message();
  ASSERT_NE(mine.find("gpuopt_stream_create"), std::string::npos) << mine;

  std::string fresh_thread_message = "unset";
  std::string other_thread_message;
  std::thread t([&] {
    fresh_thread_message = unit::last_message();
    size_t bytes = 0;
    if (gpuopt_buffer_size(nullptr, &bytes) == GPUOPT_ERROR_INVALID_HANDLE) {
      other_thread_message = unit::last_message();
    }
  });
  t.join();

  EXPECT_EQ(fresh_thread_message, "") << "a new thread starts without a message";
  EXPECT_NE(other_thread_message.find("gpuopt_buffer_size"), std::string::npos)
      << other_thread_message;
  EXPECT_EQ(unit::last_message(), mine) << "another thread's failure changed this thread's message";
}

}  // namespace
