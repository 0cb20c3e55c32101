// The direct launch (common/direct_launch.cuh, runtime/kernel_functions.hpp): axpy's kernel is
// launched through the driver on its function in the current context, never through the
// runtime's fallback, and stays right when that context goes away: after cudaDeviceReset() the
// device's primary context is new (a new context ID), so a function cached for the old one must
// not be launched. On two devices, each device's context gets its own function, and a context
// used while the caller's current device is the other one still runs on its own device
// (make_current: the per-call cuCtxGetCurrent check misses and the device is set).
// The same holds for the per-context shared-memory limit of the rungs above 48 KiB
// (runtime/smem_limit.hpp): raised again in the new context after a reset.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_check.hpp"
#include "gpuopt.h"

namespace {

struct LogLines {
  std::vector<std::string> lines;
  static void sink(gpuopt_log_level_t, const char* message, void* user) {
    static_cast<LogLines*>(user)->lines.emplace_back(message);
  }
};

// One axpy f32 n on device `device` through a fresh context and stream: y = 2 x + y, checked.
void axpy_once(int device, std::int64_t n) {
  ASSERT_EQ(cudaSetDevice(device), cudaSuccess);
  gpuopt_context_t ctx = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_context_create(device, &ctx));
  gpuopt_stream_t s = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_stream_create(ctx, &s));
  std::vector<float> x(n), y(n);
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 97) - 48.0f;
    y[i] = static_cast<float>(i % 13);
  }
  float *dx = nullptr, *dy = nullptr;
  ASSERT_EQ(cudaMalloc(&dx, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dy, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  for (int rep = 0; rep < 3; ++rep)
    ASSERT_GPUOPT_OK(gpuopt_axpy(ctx, s, GPUOPT_DTYPE_F32, n, 2.0, dx, 1, dy, 1));
  ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(s));
  std::vector<float> out(n);
  ASSERT_EQ(cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], y[i] + 6.0f * x[i]) << "element " << i;
  EXPECT_EQ(cudaFree(dx), cudaSuccess);
  EXPECT_EQ(cudaFree(dy), cudaSuccess);
  EXPECT_GPUOPT_OK(gpuopt_stream_destroy(s));
  EXPECT_GPUOPT_OK(gpuopt_context_destroy(ctx));
}

constexpr int kN = 256;  // m = n = k: every rung's alignment and tile rules hold

// C = A B (column-major, kN^3, small integers: exact) through variant `variant` in a fresh
// context on device 0, C NaN-poisoned first; *ran false when the variant does not run here.
template <class T>
void gemm_once(const char* variant, gpuopt_dtype_t type, gpuopt_compute_t compute, bool* ran) {
  *ran = false;
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  gpuopt_context_t ctx = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_context_create(0, &ctx));
  if (gpuopt_context_set_variant(ctx, GPUOPT_OP_GEMM, variant) != GPUOPT_SUCCESS) {
    EXPECT_GPUOPT_OK(gpuopt_context_destroy(ctx));
    return;
  }
  gpuopt_stream_t s = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_stream_create(ctx, &s));
  const std::size_t elems = static_cast<std::size_t>(kN) * kN;
  std::vector<T> a(elems), b(elems), c(elems);
  for (std::size_t i = 0; i < elems; ++i) {
    a[i] = static_cast<T>(static_cast<int>(i * 7 % 9) - 4);
    b[i] = static_cast<T>(static_cast<int>(i * 5 % 7) - 3);
  }
  T *da = nullptr, *db = nullptr, *dc = nullptr;
  ASSERT_EQ(cudaMalloc(&da, elems * sizeof(T)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&db, elems * sizeof(T)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dc, elems * sizeof(T)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(da, a.data(), elems * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(db, b.data(), elems * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(dc, 0xFF, elems * sizeof(T)), cudaSuccess);  // NaN poison
  gpuopt_gemm_desc_t d{};
  d.struct_size = sizeof d;
  d.trans_a = d.trans_b = GPUOPT_TRANS_N;
  d.m = d.n = d.k = kN;
  d.alpha = 1.0;
  d.beta = 0.0;
  d.a_type = d.c_type = type;
  d.compute = compute;
  d.lda = d.ldb = d.ldc = kN;
  d.batch_count = 1;
  ASSERT_GPUOPT_OK(gpuopt_gemm(ctx, s, &d, da, db, dc)) << variant;
  const char* last = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_last_variant(ctx, GPUOPT_OP_GEMM, &last));
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(std::string(last), variant);
  ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(s));
  ASSERT_EQ(cudaMemcpy(c.data(), dc, elems * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int j = 0; j < kN; ++j)
    for (int i = 0; i < kN; ++i) {
      double want = 0;
      for (int k = 0; k < kN; ++k)
        want += static_cast<double>(a[i + static_cast<std::size_t>(k) * kN]) *
                static_cast<double>(b[k + static_cast<std::size_t>(j) * kN]);
      ASSERT_EQ(static_cast<double>(c[i + static_cast<std::size_t>(j) * kN]), want)
          << variant << " C(" << i << ", " << j << ")";
    }
  EXPECT_EQ(cudaFree(da), cudaSuccess);
  EXPECT_EQ(cudaFree(db), cudaSuccess);
  EXPECT_EQ(cudaFree(dc), cudaSuccess);
  EXPECT_GPUOPT_OK(gpuopt_stream_destroy(s));
  EXPECT_GPUOPT_OK(gpuopt_context_destroy(ctx));
  *ran = true;
}

class DirectLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
      cudaGetLastError();
      GTEST_SKIP() << "no CUDA device";
    }
    devices_ = count;
    ASSERT_GPUOPT_OK(gpuopt_set_log_callback(&LogLines::sink, &log_));
    ASSERT_GPUOPT_OK(gpuopt_set_log_level(GPUOPT_LOG_DEBUG));
  }
  void TearDown() override {
    gpuopt_set_log_level(GPUOPT_LOG_OFF);
    gpuopt_set_log_callback(nullptr, nullptr);
  }
  // No launch of the test fell back to the runtime's <<<>>>.
  void expect_no_fallback() {
    for (const std::string& line : log_.lines)
      EXPECT_EQ(line.find("through the runtime"), std::string::npos) << line;
  }
  int devices_ = 0;
  LogLines log_;
};

TEST_F(DirectLaunch, RightAfterTheDeviceIsReset) {
  axpy_once(0, 4096 + 3);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  axpy_once(0, 4096 + 3);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  axpy_once(0, 1000003);
  expect_no_fallback();
}

TEST_F(DirectLaunch, EachDeviceGetsItsOwnFunction) {
  if (devices_ < 2) GTEST_SKIP() << "needs two devices, found " << devices_;
  for (int round = 0; round < 2; ++round)
    for (int d = 0; d < 2; ++d) axpy_once(d, 4096 + 3);
  expect_no_fallback();
}

TEST_F(DirectLaunch, AContextRunsOnItsDeviceWhateverTheCallerMadeCurrent) {
  if (devices_ < 2) GTEST_SKIP() << "needs two devices, found " << devices_;
  const std::int64_t n = 4096 + 5;
  gpuopt_context_t ctx[2] = {};
  gpuopt_stream_t s[2] = {};
  float* d[2] = {};
  for (int dev = 0; dev < 2; ++dev) {
    ASSERT_EQ(cudaSetDevice(dev), cudaSuccess);
    ASSERT_GPUOPT_OK(gpuopt_context_create(dev, &ctx[dev]));
    ASSERT_GPUOPT_OK(gpuopt_stream_create(ctx[dev], &s[dev]));
    ASSERT_EQ(cudaMalloc(&d[dev], 2 * n * sizeof(float)), cudaSuccess);
    std::vector<float> init(2 * n, 1.0f);  // x then y, all ones
    ASSERT_EQ(cudaMemcpy(d[dev], init.data(), init.size() * sizeof(float), cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  // Each call is made with the other device current; four rounds alternate the devices.
  for (int round = 0; round < 4; ++round) {
    const int dev = round % 2;
    ASSERT_EQ(cudaSetDevice(1 - dev), cudaSuccess);
    ASSERT_GPUOPT_OK(
        gpuopt_axpy(ctx[dev], s[dev], GPUOPT_DTYPE_F32, n, 1.0, d[dev], 1, d[dev] + n, 1));
  }
  for (int dev = 0; dev < 2; ++dev) {
    ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(s[dev]));
    std::vector<float> y(n);
    ASSERT_EQ(cudaMemcpy(y.data(), d[dev] + n, n * sizeof(float), cudaMemcpyDeviceToHost),
              cudaSuccess);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 3.0f) << "device " << dev << ", " << i;
    EXPECT_EQ(cudaFree(d[dev]), cudaSuccess);
    EXPECT_GPUOPT_OK(gpuopt_stream_destroy(s[dev]));
    EXPECT_GPUOPT_OK(gpuopt_context_destroy(ctx[dev]));
  }
  expect_no_fallback();
}

// The shared-memory limit (runtime/smem_limit.hpp): rungs that launch with more than 48 KiB raise
// their kernel's limit once per context, so after cudaDeviceReset() (a new primary context whose
// functions start at the default limit) the rung in a fresh gpuopt context must raise it again
// and run right, not fail its launch.
TEST_F(DirectLaunch, SharedMemoryLimitIsRaisedAgainAfterTheDeviceIsReset) {
  struct Rung {
    const char* variant;
    bool f64;
  };
  // f64_tensorcore: sm_80+; sm90_tma_wgmma (tf32): sm_90a; warptiled_cpasync (f32): sm_80+.
  const Rung rungs[] = {
      {"f64_tensorcore", true}, {"sm90_tma_wgmma", false}, {"warptiled_cpasync", false}};
  int ran_any = 0;
  for (const Rung& r : rungs) {
    for (int round = 0; round < 3; ++round) {
      bool ran = false;
      if (r.f64)
        gemm_once<double>(r.variant, GPUOPT_DTYPE_F64, GPUOPT_COMPUTE_F64, &ran);
      else if (std::string(r.variant) == "sm90_tma_wgmma")
        gemm_once<float>(r.variant, GPUOPT_DTYPE_F32, GPUOPT_COMPUTE_TF32, &ran);
      else
        gemm_once<float>(r.variant, GPUOPT_DTYPE_F32, GPUOPT_COMPUTE_F32, &ran);
      if (HasFatalFailure()) return;
      if (!ran) break;  // the variant does not run on this device
      ++ran_any;
      ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
    }
  }
  if (ran_any == 0) GTEST_SKIP() << "none of the rungs runs on this device";
}

}  // namespace
