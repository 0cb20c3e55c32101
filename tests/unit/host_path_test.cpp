// The host work of one op call, in ns, through the device-less seam: handle checks, argument and
// pointer checks, dispatch, with no CUDA call (docs/notes/latency.md). Printed for comparison
// between builds; the bound only catches a pathological regression (a lock convoy, a string or
// an allocation per call), loose enough for sanitizer builds and a loaded CI machine.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "gpuopt.h"
#include "runtime/deviceless.hpp"
#include "test_support.hpp"

namespace {

template <class F>
double ns_per_call(int calls, F&& call) {
  for (int i = 0; i < calls / 10; ++i) call();  // warm-up
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) call();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / calls;
}

TEST(HostPath, AxpyCallAndHandleCheckInNs) {
  const gpuopt_device_info_t devices[] = {gpuopt::deviceless_h200()};
  gpuopt::deviceless_enable(devices, 1);
  gpuopt_context_t ctx = nullptr;
  gpuopt_stream_t s = nullptr;
  gpuopt_buffer_t bx = nullptr, by = nullptr;
  ASSERT_EQ(gpuopt_context_create(0, &ctx), GPUOPT_SUCCESS) << unit::last_message();
  ASSERT_EQ(gpuopt_stream_create(ctx, &s), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_buffer_create(ctx, 4096 * 4, GPUOPT_MEMORY_DEVICE, &bx), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_buffer_create(ctx, 4096 * 4, GPUOPT_MEMORY_DEVICE, &by), GPUOPT_SUCCESS);
  void *x = nullptr, *y = nullptr;
  ASSERT_EQ(gpuopt_buffer_device_pointer(bx, &x), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_buffer_device_pointer(by, &y), GPUOPT_SUCCESS);
  gpuopt_status_t st = GPUOPT_SUCCESS;
  const double axpy = ns_per_call(
      20000, [&] { st = gpuopt_axpy(ctx, s, GPUOPT_DTYPE_F32, 4096, 0.5, x, 1, y, 1); });
  EXPECT_EQ(st, GPUOPT_SUCCESS) << unit::last_message();
  std::size_t bytes = 0;
  const double handle = ns_per_call(20000, [&] { st = gpuopt_buffer_size(bx, &bytes); });
  EXPECT_EQ(st, GPUOPT_SUCCESS);
  std::printf(
      "[ host path ] gpuopt_axpy f32 n=4096, device-less: %.0f ns per call; "
      "gpuopt_buffer_size (one handle check): %.0f ns per call\n",
      axpy, handle);
  RecordProperty("axpy_ns", static_cast<int>(axpy));
  RecordProperty("handle_check_ns", static_cast<int>(handle));
  EXPECT_LT(axpy, 100000.0);
  EXPECT_EQ(gpuopt_buffer_destroy(bx), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_buffer_destroy(by), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_stream_destroy(s), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_context_destroy(ctx), GPUOPT_SUCCESS);
  gpuopt::deviceless_disable();
}

}  // namespace
