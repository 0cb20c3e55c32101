// One context shared by four threads, each with its own stream and buffers, 50 axpy calls each;
// frees in one thread while another captures a graph (the free gate, docs/threading.md).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "axpy_harness.hpp"
#include "gpu_fixture.hpp"

namespace {

using gput::AxpyHarness;
using gput::AxpyLayout;

class Threads : public gput::GpuTest {};

TEST_F(Threads, FourThreadsShareAContext) {
  constexpr int kThreads = 4;
  constexpr int kCalls = 50;
  std::vector<std::uint64_t> seeds;
  for (int t = 0; t < kThreads; ++t) seeds.push_back(rng_.split());
  std::vector<std::string> errors(kThreads);

  auto work = [&](int t) {
    gput::Rng rng(seeds[t]);
    gpuopt_stream_t s = nullptr;
    if (gpuopt_stream_create(ctx_, &s) != GPUOPT_SUCCESS) {
      errors[t] = "gpuopt_stream_create: " + gput::last_message();
      return;
    }
    {
      AxpyLayout l;
      l.n = 65536 + 3 * t + 1;  // a different size (and tail) per thread
      AxpyHarness<float> h(l, rng.dyadic_alpha(), rng, gput::Fill::dyadic);
      for (int i = 0; i < kCalls && errors[t].empty(); ++i) {
        if (h.run(ctx_, s) != GPUOPT_SUCCESS) errors[t] = "gpuopt_axpy: " + gput::last_message();
      }
      if (gpuopt_stream_synchronize(s) != GPUOPT_SUCCESS && errors[t].empty()) {
        errors[t] = "gpuopt_stream_synchronize: " + gput::last_message();
      }
      if (errors[t].empty()) {
        const ::testing::AssertionResult r = h.check_result(kCalls);
        if (!r) errors[t] = r.message();
      }
    }
    if (gpuopt_stream_destroy(s) != GPUOPT_SUCCESS && errors[t].empty()) {
      errors[t] = "gpuopt_stream_destroy: " + gput::last_message();
    }
  };

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
  }
  const std::string last = last_variant();
  EXPECT_NE(last, "<none>");
}

// Thread A opens a capture; thread B destroys a device buffer, a pinned buffer and a stream
// (cudaFree / cudaFreeHost / cublasDestroy synchronize the device, which would invalidate A's
// capture); A's capture must still end cleanly and its graph replay correctly. The frees run when
// the capture ends.
TEST_F(Threads, FreesDuringAnotherThreadsCaptureAreDeferred) {
  const std::int64_t n = 4099;
  std::vector<float> x(n), y(n);
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 7);
    y[i] = static_cast<float>(i % 5);
  }
  gput::DeviceArray<float> dx(n), dy(n);
  dx.upload(x);
  dy.upload(y);

  // What thread B frees: made before the capture opens.
  gpuopt_buffer_t dev = nullptr, pinned = nullptr;
  gpuopt_stream_t other = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_buffer_create(ctx_, 1 << 20, GPUOPT_MEMORY_DEVICE, &dev));
  ASSERT_GPUOPT_OK(gpuopt_buffer_create(ctx_, 1 << 16, GPUOPT_MEMORY_PINNED_HOST, &pinned));
  ASSERT_GPUOPT_OK(gpuopt_stream_create(ctx_, &other));

  std::promise<void> opened, freed;
  std::string b_error;
  std::thread b([&] {
    opened.get_future().wait();
    if (gpuopt_buffer_destroy(dev) != GPUOPT_SUCCESS)
      b_error = "gpuopt_buffer_destroy(device): " + gput::last_message();
    else if (gpuopt_buffer_destroy(pinned) != GPUOPT_SUCCESS)
      b_error = "gpuopt_buffer_destroy(pinned): " + gput::last_message();
    else if (gpuopt_stream_destroy(other) != GPUOPT_SUCCESS)
      b_error = "gpuopt_stream_destroy: " + gput::last_message();
    freed.set_value();
  });

  gpuopt_status_t begin = gpuopt_graph_begin(ctx_, stream_);
  opened.set_value();
  freed.get_future().wait();
  b.join();
  ASSERT_GPUOPT_OK(begin);
  gpuopt_status_t a1 =
      gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, n, 2.0, dx.data(), 1, dy.data(), 1);
  gpuopt_graph_t g = nullptr;
  gpuopt_status_t end = gpuopt_graph_end(stream_, &g);
  gput::Graph owner(g);
  EXPECT_EQ(b_error, "");
  ASSERT_GPUOPT_OK(a1);
  ASSERT_GPUOPT_OK(end);  // CAPTURE_ILLEGAL here: a free invalidated the capture
  ASSERT_GPUOPT_OK(gpuopt_graph_launch(g, stream_));
  ASSERT_GPUOPT_OK(gpuopt_graph_launch(g, stream_));
  ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(stream_));
  const std::vector<float> got = dy.download();
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(got[i], y[i] + 4.0f * x[i]) << "element " << i;
  }
}

}  // namespace
