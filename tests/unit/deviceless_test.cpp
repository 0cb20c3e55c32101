// Handle lifetimes and validation past the handles, host-only, through device-less mode (the
// test seam of src/runtime/deviceless.hpp: fake devices, fake allocations, no CUDA call):
// destroyed, foreign and wrong-kind handles answer GPUOPT_ERROR_INVALID_HANDLE, destroying twice
// is harmless, pointer checks answer from the fake allocator. Inputs the fuzzer (tests/fuzz) once
// crashed on are replayed here as regression cases.
#include "runtime/deviceless.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "deviceless_fixture.hpp"
#include "gpuopt.h"
#include "test_support.hpp"

namespace {

class Deviceless : public unit::DevicelessContext {
 protected:
  void* buffer(gpuopt_context_t c, std::size_t bytes) {
    gpuopt_buffer_t b = nullptr;
    EXPECT_EQ(gpuopt_buffer_create(c, bytes, GPUOPT_MEMORY_DEVICE, &b), GPUOPT_SUCCESS);
    buffers_.push_back(b);
    void* p = nullptr;
    EXPECT_EQ(gpuopt_buffer_device_pointer(b, &p), GPUOPT_SUCCESS);
    return p;
  }
  void free_buffers() {
    for (gpuopt_buffer_t b : buffers_) EXPECT_EQ(gpuopt_buffer_destroy(b), GPUOPT_SUCCESS);
    buffers_.clear();
  }
  gpuopt_reduce_desc_t sum_desc(std::int64_t n) const {
    gpuopt_reduce_desc_t d{};
    d.struct_size = sizeof d;
    d.op = GPUOPT_REDUCE_SUM;
    d.in_type = GPUOPT_DTYPE_F32;
    d.n = n;
    return d;
  }

  std::vector<gpuopt_buffer_t> buffers_;
};

TEST_F(Deviceless, DestroyedContextAnswersInvalidHandleAndDoubleDestroyIsHarmless) {
  gpuopt_context_t c = nullptr;
  ASSERT_EQ(gpuopt_context_create(1, &c), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_context_destroy(c), GPUOPT_SUCCESS);
  gpuopt_device_info_t info{};
  info.struct_size = sizeof info;
  EXPECT_EQ(gpuopt_context_device_info(c, &info), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "ctx")) << unit::last_message();
  EXPECT_EQ(gpuopt_context_destroy(c), GPUOPT_ERROR_INVALID_HANDLE);
  gpuopt_stream_t s = nullptr;
  EXPECT_EQ(gpuopt_stream_create(c, &s), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(s, nullptr);
}

TEST_F(Deviceless, DestroyedStreamAndBufferAnswerInvalidHandleAndDoubleDestroyIsHarmless) {
  gpuopt_stream_t s = nullptr;
  gpuopt_buffer_t b = nullptr;
  ASSERT_EQ(gpuopt_stream_create(ctx_, &s), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_buffer_create(ctx_, 256, GPUOPT_MEMORY_DEVICE, &b), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_stream_destroy(s), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_buffer_destroy(b), GPUOPT_SUCCESS);
  void* native = nullptr;
  std::size_t bytes = 0;
  EXPECT_EQ(gpuopt_stream_native(s, &native), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_buffer_size(b, &bytes), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_stream_destroy(s), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_buffer_destroy(b), GPUOPT_ERROR_INVALID_HANDLE);
  const gpuopt_reduce_desc_t d = sum_desc(16);
  void* p = buffer(ctx_, 1024);
  EXPECT_EQ(gpuopt_reduce(ctx_, s, &d, p, p), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "stream")) << unit::last_message();
  free_buffers();
}

TEST_F(Deviceless, WrongKindAndForeignHandlesAnswerInvalidHandle) {
  alignas(64) unsigned char foreign[256] = {};
  gpuopt_device_info_t info{};
  info.struct_size = sizeof info;
  EXPECT_EQ(gpuopt_context_device_info(reinterpret_cast<gpuopt_context_t>(stream_), &info),
            GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_context_device_info(reinterpret_cast<gpuopt_context_t>(foreign), &info),
            GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_graph_destroy(reinterpret_cast<gpuopt_graph_t>(ctx_)),
            GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_stream_destroy(reinterpret_cast<gpuopt_stream_t>(ctx_)),
            GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_buffer_destroy(reinterpret_cast<gpuopt_buffer_t>(foreign)),
            GPUOPT_ERROR_INVALID_HANDLE);
}

TEST_F(Deviceless, StreamOfAnotherContextIsRefused) {
  gpuopt_context_t other = nullptr;
  gpuopt_stream_t s = nullptr;
  ASSERT_EQ(gpuopt_context_create(1, &other), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_stream_create(other, &s), GPUOPT_SUCCESS);
  const gpuopt_reduce_desc_t d = sum_desc(16);
  void* p = buffer(ctx_, 1024);
  EXPECT_EQ(gpuopt_reduce(ctx_, s, &d, p, p), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "stream")) << unit::last_message();
  EXPECT_EQ(gpuopt_context_destroy(other), GPUOPT_ERROR_INVALID_ARGUMENT);  // owns a stream
  free_buffers();
  EXPECT_EQ(gpuopt_stream_destroy(s), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_context_destroy(other), GPUOPT_SUCCESS);
}

TEST_F(Deviceless, PointerChecksAnswerFromTheFakeAllocator) {
  gpuopt_context_t other = nullptr;
  ASSERT_EQ(gpuopt_context_create(1, &other), GPUOPT_SUCCESS);
  void* in = buffer(ctx_, 64 * sizeof(float));
  void* out = buffer(ctx_, 256);
  void* elsewhere = buffer(other, 256);
  float host[64] = {};
  gpuopt_reduce_desc_t d = sum_desc(64);
  EXPECT_EQ(gpuopt_reduce(ctx_, stream_, &d, in, out), GPUOPT_SUCCESS) << unit::last_message();
  EXPECT_EQ(gpuopt_reduce(ctx_, stream_, &d, elsewhere, out), GPUOPT_ERROR_WRONG_DEVICE);
  EXPECT_EQ(gpuopt_reduce(ctx_, stream_, &d, host, out), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "in")) << unit::last_message();
  d.n = 65;  // one element past the allocation
  EXPECT_EQ(gpuopt_reduce(ctx_, stream_, &d, in, out), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("allocation ends"), std::string::npos)
      << unit::last_message();
  d.n = 64;
  EXPECT_EQ(gpuopt_reduce(ctx_, stream_, &d, static_cast<char*>(in) + 2, out),
            GPUOPT_ERROR_MISALIGNED);
  // Past validation nothing reaches CUDA: a copy stops at its CUDA call with NO_DEVICE.
  EXPECT_EQ(gpuopt_buffer_copy_from_host(buffers_[0], stream_, 0, host, sizeof host),
            GPUOPT_ERROR_NO_DEVICE);
  EXPECT_NE(unit::last_message().find("device-less"), std::string::npos) << unit::last_message();
  free_buffers();
  EXPECT_EQ(gpuopt_context_destroy(other), GPUOPT_SUCCESS);
}

// Fuzzer regression (tests/fuzz/corpus/regress-gdn-empty-huge-n): a GDN pass over no pixels
// (H * W = 0) with a huge batch, or a large H * W with no images, goes through dispatch; the
// variants' can_implement must not overflow on the extents (UBSan found n * c overflowing).
TEST_F(Deviceless, GdnEmptyPassesWithHugeExtentsDispatch) {
  float* beta = static_cast<float*>(buffer(ctx_, 3 * sizeof(float)));
  float* gamma = static_cast<float*>(buffer(ctx_, 9 * sizeof(float)));
  float* dbeta = static_cast<float*>(buffer(ctx_, 3 * sizeof(float)));
  float* dgamma = static_cast<float*>(buffer(ctx_, 9 * sizeof(float)));
  for (int which = 0; which < 2; ++which) {
    gpuopt_gdn_desc_t d{};
    d.struct_size = sizeof d;
    d.channels = 3;
    d.batch = which == 0 ? INT64_MAX / 2 : 0;
    d.height = which == 0 ? 0 : std::int64_t{1} << 40;
    d.width = which == 0 ? 5 : 2;
    EXPECT_EQ(gpuopt_gdn_forward(ctx_, stream_, &d, nullptr, beta, gamma, nullptr, nullptr, 0),
              GPUOPT_SUCCESS)
        << unit::last_message();
    EXPECT_EQ(gpuopt_gdn_backward(ctx_, stream_, &d, nullptr, beta, gamma, nullptr, nullptr, dbeta,
                                  dgamma, nullptr, 0),
              GPUOPT_SUCCESS)
        << unit::last_message();
  }
  free_buffers();
}

}  // namespace

// gpuopt_buffer_destroy_async: the handle checks of gpuopt_buffer_destroy plus the stream's; a
// refused call leaves the buffer alive and usable, an accepted one frees it (the context then
// owns nothing).
TEST_F(Deviceless, DestroyAsyncChecksBufferAndStream) {
  EXPECT_EQ(gpuopt_buffer_destroy_async(nullptr, stream_), GPUOPT_SUCCESS) << "NULL: a no-op";
  gpuopt_buffer_t b = nullptr;
  ASSERT_EQ(gpuopt_buffer_create(ctx_, 4096, GPUOPT_MEMORY_DEVICE, &b), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_buffer_destroy_async(b, nullptr), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "stream")) << unit::last_message();
  EXPECT_EQ(gpuopt_buffer_destroy_async(b, reinterpret_cast<gpuopt_stream_t>(b)),
            GPUOPT_ERROR_INVALID_HANDLE)
      << "a buffer is no stream";
  gpuopt_context_t other = nullptr;
  gpuopt_stream_t s = nullptr;
  ASSERT_EQ(gpuopt_context_create(1, &other), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_stream_create(other, &s), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_buffer_destroy_async(b, s), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "stream")) << unit::last_message();
  std::size_t bytes = 0;
  EXPECT_EQ(gpuopt_buffer_size(b, &bytes), GPUOPT_SUCCESS) << "still alive after a refusal";
  EXPECT_EQ(bytes, 4096u);
  EXPECT_EQ(gpuopt_buffer_destroy_async(b, stream_), GPUOPT_SUCCESS) << unit::last_message();
  EXPECT_EQ(gpuopt_buffer_size(b, &bytes), GPUOPT_ERROR_INVALID_HANDLE) << "the handle is gone";
  EXPECT_EQ(gpuopt_buffer_destroy_async(b, stream_), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_stream_destroy(s), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_context_destroy(other), GPUOPT_SUCCESS);
}

// Every kind goes through it, wrapped memory included; the context ends up owning nothing.
TEST_F(Deviceless, DestroyAsyncReleasesEveryKind) {
  const gpuopt_memory_kind_t kinds[] = {GPUOPT_MEMORY_DEVICE, GPUOPT_MEMORY_PINNED_HOST,
                                        GPUOPT_MEMORY_MAPPED, GPUOPT_MEMORY_COMPRESSIBLE};
  for (gpuopt_memory_kind_t k : kinds) {
    gpuopt_buffer_t b = nullptr;
    ASSERT_EQ(gpuopt_buffer_create(ctx_, 1024, k, &b), GPUOPT_SUCCESS) << unit::last_message();
    EXPECT_EQ(gpuopt_buffer_destroy_async(b, stream_), GPUOPT_SUCCESS) << unit::last_message();
  }
  void* p = buffer(ctx_, 1024);
  gpuopt_buffer_t w = nullptr;
  ASSERT_EQ(gpuopt_buffer_wrap(ctx_, p, 1024, &w), GPUOPT_SUCCESS) << unit::last_message();
  EXPECT_EQ(gpuopt_buffer_destroy_async(w, stream_), GPUOPT_SUCCESS) << unit::last_message();
  std::size_t bytes = 0;
  EXPECT_EQ(gpuopt_buffer_size(buffers_.front(), &bytes), GPUOPT_SUCCESS)
      << "the wrapped memory's own buffer is untouched";
  free_buffers();
}

// The per-thread memo of live handles (handles.cpp) never outlives a destroy, whichever thread
// destroys: a handle checked (and remembered) here, destroyed on another thread, is refused here.
TEST_F(Deviceless, HandleDestroyedOnAnotherThreadIsRefusedAfterBeingChecked) {
  gpuopt_stream_t s = nullptr;
  ASSERT_EQ(gpuopt_stream_create(ctx_, &s), GPUOPT_SUCCESS);
  void* native = nullptr;
  ASSERT_EQ(gpuopt_stream_native(s, &native), GPUOPT_SUCCESS);  // remembered as live
  ASSERT_EQ(gpuopt_stream_native(s, &native), GPUOPT_SUCCESS);  // answered from the memo
  std::thread([s] { EXPECT_EQ(gpuopt_stream_destroy(s), GPUOPT_SUCCESS); }).join();
  EXPECT_EQ(gpuopt_stream_native(s, &native), GPUOPT_ERROR_INVALID_HANDLE);
  // Handles made at a destroyed one's address are found live again, and of their own kind only.
  for (int i = 0; i < 8; ++i) {
    gpuopt_stream_t t = nullptr;
    gpuopt_buffer_t b = nullptr;
    ASSERT_EQ(gpuopt_stream_create(ctx_, &t), GPUOPT_SUCCESS);
    EXPECT_EQ(gpuopt_stream_native(t, &native), GPUOPT_SUCCESS);
    ASSERT_EQ(gpuopt_stream_destroy(t), GPUOPT_SUCCESS);
    ASSERT_EQ(gpuopt_buffer_create(ctx_, 256, GPUOPT_MEMORY_DEVICE, &b), GPUOPT_SUCCESS);
    EXPECT_EQ(gpuopt_stream_native(reinterpret_cast<gpuopt_stream_t>(b), &native),
              GPUOPT_ERROR_INVALID_HANDLE)
        << "a buffer where a stream was is no stream";
    std::size_t bytes = 0;
    EXPECT_EQ(gpuopt_buffer_size(b, &bytes), GPUOPT_SUCCESS);
    EXPECT_EQ(gpuopt_buffer_destroy(b), GPUOPT_SUCCESS);
  }
}
