// One context shared by four threads, each with its own stream and buffers, 50 axpy calls each.
#include <gtest/gtest.h>

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

}  // namespace
