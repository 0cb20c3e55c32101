// Streams: create, wrap a caller's cudaStream_t (and the legacy default stream), native,
// synchronize, destroy; out-pointer validation and stale handles.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "axpy_harness.hpp"
#include "gpu_fixture.hpp"

namespace {

using gput::AxpyHarness;
using gput::AxpyLayout;

class Streams : public gput::GpuTest {
 protected:
  // A correct axpy enqueued on stream s.
  void expect_axpy_on(gpuopt_stream_t s) {
    AxpyLayout l;
    l.n = 100003;
    AxpyHarness<float> h(l, rng_.alpha(), rng_);
    ASSERT_GPUOPT_OK(h.run(ctx_, s));
    ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(s));
    EXPECT_TRUE(h.check_result());
  }
};

TEST_F(Streams, CreateNativeSynchronizeDestroy) {
  gpuopt_stream_t s = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_stream_create(ctx_, &s));
  ASSERT_NE(s, nullptr);
  void* native = nullptr;
  EXPECT_GPUOPT_OK(gpuopt_stream_native(s, &native));
  EXPECT_NE(native, nullptr) << "an owned stream is a real CUDA stream, not the default one";
  expect_axpy_on(s);
  EXPECT_GPUOPT_OK(gpuopt_stream_synchronize(s));
  EXPECT_GPUOPT_OK(gpuopt_stream_destroy(s));
}

TEST_F(Streams, WrapBorrowsTheCallersStream) {
  cudaStream_t cs = nullptr;
  ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
  gpuopt_stream_t s = nullptr;
  EXPECT_GPUOPT_OK(gpuopt_stream_wrap(ctx_, cs, &s));
  if (s) {
    void* native = nullptr;
    EXPECT_GPUOPT_OK(gpuopt_stream_native(s, &native));
    EXPECT_EQ(native, static_cast<void*>(cs));
    expect_axpy_on(s);
    EXPECT_GPUOPT_OK(gpuopt_stream_destroy(s));
  }
  // Destroying the gpuopt stream leaves the borrowed CUDA stream alive and usable.
  EXPECT_CUDA_OK(cudaStreamSynchronize(cs));
  EXPECT_CUDA_OK(cudaStreamQuery(cs));
  EXPECT_CUDA_OK(cudaStreamDestroy(cs));
}

TEST_F(Streams, WrapLegacyDefaultStream) {
  gpuopt_stream_t s = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_stream_wrap(ctx_, nullptr, &s));
  gput::Stream owner(s);
  void* native = reinterpret_cast<void*>(0x1);
  EXPECT_GPUOPT_OK(gpuopt_stream_native(s, &native));
  EXPECT_EQ(native, nullptr);
  expect_axpy_on(s);
}

TEST_F(Streams, SeveralStreamsOfOneContext) {
  gput::Stream a = gput::make_stream(ctx_);
  gput::Stream b = gput::make_stream(ctx_);
  ASSERT_TRUE(a && b);
  void* na = nullptr;
  void* nb = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_stream_native(a.get(), &na));
  ASSERT_GPUOPT_OK(gpuopt_stream_native(b.get(), &nb));
  EXPECT_NE(na, nb);
  expect_axpy_on(a.get());
  expect_axpy_on(b.get());
}

TEST_F(Streams, NullOutPointers) {
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_stream_create(ctx_, nullptr));
  EXPECT_TRUE(gput::MessageNames("gpuopt_stream_create", "stream"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_stream_wrap(ctx_, nullptr, nullptr));
  EXPECT_TRUE(gput::MessageNames("gpuopt_stream_wrap", "stream"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_stream_native(stream_, nullptr));
  EXPECT_TRUE(gput::MessageNames("gpuopt_stream_native", "cuda_stream"));
}

TEST_F(Streams, DestroyedHandleIsInvalid) {
  gpuopt_stream_t s = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_stream_create(ctx_, &s));
  ASSERT_GPUOPT_OK(gpuopt_stream_destroy(s));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE, gpuopt_stream_synchronize(s));
  void* native = nullptr;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE, gpuopt_stream_native(s, &native));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE, gpuopt_stream_destroy(s)) << "double destroy";
  gput::expect_axpy_still_works(ctx_, stream_, rng_);
}

TEST_F(Streams, WrongKindOfHandle) {
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE,
                gpuopt_stream_synchronize(reinterpret_cast<gpuopt_stream_t>(ctx_)));
  size_t bytes = 0;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE,
                gpuopt_buffer_size(reinterpret_cast<gpuopt_buffer_t>(stream_), &bytes));
  gpuopt_device_info_t info{};
  info.struct_size = sizeof info;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE,
                gpuopt_context_device_info(reinterpret_cast<gpuopt_context_t>(stream_), &info));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE,
                gpuopt_graph_launch(reinterpret_cast<gpuopt_graph_t>(stream_), stream_));
  gput::expect_axpy_still_works(ctx_, stream_, rng_);
}

}  // namespace
