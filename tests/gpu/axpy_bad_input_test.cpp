// gpuopt_axpy on a live context with bad input: each call answers a specific status with a
// message naming gpuopt_axpy and the argument, writes nothing, and the context keeps working.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "axpy_harness.hpp"
#include "gpu_fixture.hpp"

namespace {

using gput::AxpyHarness;
using gput::AxpyLayout;
using gput::DeviceArray;

class AxpyBadInput : public gput::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    AxpyLayout l;
    l.n = 4096;
    h_.reset(new AxpyHarness<float>(l, 1.5, rng_));
  }
  void TearDown() override {
    if (h_) {
      sync();
      EXPECT_TRUE(h_->check_unchanged()) << "a refused call wrote y";
      gput::expect_axpy_still_works(ctx_, stream_, rng_);
    }
    h_.reset();
    GpuTest::TearDown();
  }
  const float* x() const { return h_->x(); }
  float* y() const { return h_->y(); }

  std::unique_ptr<AxpyHarness<float>> h_;  // valid x and y of 4096 floats, checked untouched
};

TEST_F(AxpyBadInput, NullX) {
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, 16, 1.0, nullptr, 1, y(), 1));
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy", "x"));
}

TEST_F(AxpyBadInput, NullY) {
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, 16, 1.0, x(), 1, nullptr, 1));
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy", "y"));
}

TEST_F(AxpyBadInput, NegativeN) {
  for (std::int64_t n : {std::int64_t{-1}, std::numeric_limits<std::int64_t>::min()}) {
    EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                  gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, n, 1.0, x(), 1, y(), 1));
    EXPECT_TRUE(gput::MessageNames("gpuopt_axpy", "n"));
  }
}

TEST_F(AxpyBadInput, ZeroOrNegativeIncrement) {
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, 16, 1.0, x(), 0, y(), 1));
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy", "incx"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, 16, 1.0, x(), 1, y(), 0));
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy", "incy"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, 16, 1.0, x(), -1, y(), 1));
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy", "incx"));
}

TEST_F(AxpyBadInput, SizeTimesIncrementOverflows) {
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, big / 2 + 2, 1.0, x(), 2, y(), 1));
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F64, 16, 1.0, x(), 1, y(), big / 4));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F64, big, 1.0, x(), 1, y(), 1))
      << "n * sizeof(double) overflows";
}

TEST_F(AxpyBadInput, PageableHostPointer) {
  float* host = static_cast<float*>(std::malloc(4096 * sizeof(float)));
  ASSERT_NE(host, nullptr);
  for (int i = 0; i < 4096; ++i) host[i] = static_cast<float>(i);
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, 4096, 1.0, host, 1, y(), 1));
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy", "x"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, 4096, 1.0, x(), 1, host, 1));
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy", "y"));
  for (int i = 0; i < 4096; ++i) {
    if (host[i] != static_cast<float>(i)) {
      ADD_FAILURE() << "host memory written at " << i;
      break;
    }
  }
  std::free(host);
}

TEST_F(AxpyBadInput, RangePastTheAllocation) {
  DeviceArray<float> small(1000);
  ASSERT_TRUE(small.ok());
  const std::vector<float> ones(1000, 1.0f);
  small.upload(ones);
  const std::int64_t n = 1 << 20;
  DeviceArray<float> big(n);
  ASSERT_TRUE(big.ok());
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, n, 1.0,
                                                           small.data(), 1, big.data(), 1));
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy", "x"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, n, 1.0,
                                                           big.data(), 1, small.data(), 1));
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy", "y"));
  // A stride that walks off the end is the same error (8 MB past a 4 KB allocation, beyond any
  // rounding of the allocation's extent).
  EXPECT_STATUS(
      GPUOPT_ERROR_INVALID_ARGUMENT,
      gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, 100, 1.0, big.data(), 1, small.data(), 20000));
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy", "y"));
  sync();
  EXPECT_EQ(small.download(), ones) << "a refused call wrote the small buffer";
}

TEST_F(AxpyBadInput, UnsupportedDtype) {
  for (gpuopt_dtype_t dt : {GPUOPT_DTYPE_I32, GPUOPT_DTYPE_F16, GPUOPT_DTYPE_BF16}) {
    EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED,
                  gpuopt_axpy(ctx_, stream_, dt, 16, 1.0, x(), 1, y(), 1));
    EXPECT_TRUE(gput::MessageNames("gpuopt_axpy"));
  }
  const gpuopt_status_t st =
      gpuopt_axpy(ctx_, stream_, static_cast<gpuopt_dtype_t>(77), 16, 1.0, x(), 1, y(), 1);
  EXPECT_TRUE(st == GPUOPT_ERROR_INVALID_ARGUMENT || st == GPUOPT_ERROR_UNSUPPORTED)
      << gpuopt_status_name(st) << ": " << gput::last_message();
}

TEST_F(AxpyBadInput, PointerNotAlignedToTheElement) {
  // A double at a 4-byte offset: no variant can load it.
  const void* odd = reinterpret_cast<const char*>(x()) + 4;
  const gpuopt_status_t st = gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F64, 16, 1.0, odd, 1, y(), 1);
  EXPECT_NE(st, GPUOPT_SUCCESS);
  EXPECT_TRUE(st == GPUOPT_ERROR_MISALIGNED || st == GPUOPT_ERROR_INVALID_ARGUMENT ||
              st == GPUOPT_ERROR_UNSUPPORTED)
      << gpuopt_status_name(st) << ": " << gput::last_message();
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy", "x"));
}

TEST_F(AxpyBadInput, NullStream) {
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE,
                gpuopt_axpy(ctx_, nullptr, GPUOPT_DTYPE_F32, 16, 1.0, x(), 1, y(), 1));
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy", "stream"));
}

TEST_F(AxpyBadInput, StreamOfAnotherContext) {
  gput::Context other = gput::make_context();
  ASSERT_TRUE(other);
  gput::Stream foreign = gput::make_stream(other.get());
  ASSERT_TRUE(foreign);
  const gpuopt_status_t st =
      gpuopt_axpy(ctx_, foreign.get(), GPUOPT_DTYPE_F32, 16, 1.0, x(), 1, y(), 1);
  EXPECT_TRUE(st == GPUOPT_ERROR_INVALID_ARGUMENT || st == GPUOPT_ERROR_INVALID_HANDLE)
      << gpuopt_status_name(st) << ": " << gput::last_message();
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy", "stream"));
}

TEST_F(AxpyBadInput, DestroyedStream) {
  gpuopt_stream_t s = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_stream_create(ctx_, &s));
  ASSERT_GPUOPT_OK(gpuopt_stream_destroy(s));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE,
                gpuopt_axpy(ctx_, s, GPUOPT_DTYPE_F32, 16, 1.0, x(), 1, y(), 1));
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy", "stream"));
}

TEST_F(AxpyBadInput, ZeroSizeIsANoOp) {
  EXPECT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, 0, 1.0, x(), 1, y(), 1));
  EXPECT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, 0, 1.0, nullptr, 1, nullptr, 1))
      << "n = 0 touches no memory";
}

}  // namespace
