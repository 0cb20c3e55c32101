// gpuopt_tune on a device: tuning a small GEMM records the fastest variant, writes the cache file
// (which a fresh context then reads), auto dispatch runs the recorded variant for the class and
// the results stay correct; a callback that fails or makes no gemm call is reported.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "gemm_harness.hpp"
#include "gpu_fixture.hpp"

namespace gput {
namespace {

struct TuneGemm {
  gpuopt_context_t ctx;
  gpuopt_stream_t stream;
  const GemmData* data;
};

gpuopt_status_t tune_gemm_call(void* user) {
  const auto* t = static_cast<const TuneGemm*>(user);
  return t->data->run(t->ctx, t->stream);
}

gpuopt_status_t no_gemm_call(void*) { return GPUOPT_SUCCESS; }

class Tune : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    char tmpl[] = "/tmp/gpuopt-tune-gpu-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/gemm.cache";
  }
  void TearDown() override {
    if (!path_.empty()) {
      std::remove(path_.c_str());
      rmdir(dir_.c_str());
    }
    GpuTest::TearDown();
  }
  static GemmCase square(std::int64_t n) {
    GemmCase c;
    c.label = "tune";
    c.m = c.n = c.k = n;
    return c;
  }
  std::string dir_, path_;
};

TEST_F(Tune, SmallGemmIsTunedCachedAndDispatchedFromTheCache) {
  ASSERT_GPUOPT_OK(gpuopt_context_set_tune_cache(ctx_, path_.c_str()));
  const GemmTypeConfig& f32 = gemm_type_configs()[1];
  GemmData data(f32, square(512), rng_);
  ASSERT_TRUE(data.ok());
  TuneGemm t{ctx_, stream_, &data};
  gpuopt_tune_result_t r{};
  r.struct_size = sizeof r;
  ASSERT_GPUOPT_OK(gpuopt_tune(ctx_, stream_, GPUOPT_OP_GEMM, tune_gemm_call, &t, 0.5, &r));
  ASSERT_NE(r.variant, nullptr);
  EXPECT_GE(r.timed, 2) << "naive and cublas run every f32 problem";
  EXPECT_GT(r.ms, 0.0);
  int entries = 0;
  ASSERT_GPUOPT_OK(gpuopt_context_tune_cache_entries(ctx_, &entries));
  EXPECT_EQ(entries, 1);

  // The file holds the class and the variant.
  std::ifstream in(path_);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("-> " + std::string(r.variant) + " "), std::string::npos) << text.str();

  // Auto dispatch now runs the recorded variant, and C is right (the tuning overwrote it with
  // beta = 0 many times; reset it and compute once more).
  ASSERT_EQ(data.reset_c(), cudaSuccess);
  ASSERT_GPUOPT_OK(data.run(ctx_, stream_));
  sync();
  EXPECT_EQ(last_variant(GPUOPT_OP_GEMM), r.variant);
  EXPECT_TRUE(data.check());

  // A fresh context reads the file and dispatches the same way.
  gpuopt_context_t fresh = nullptr;
  gpuopt_stream_t fresh_stream = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_context_create(0, &fresh));
  ASSERT_GPUOPT_OK(gpuopt_stream_create(fresh, &fresh_stream));
  ASSERT_GPUOPT_OK(gpuopt_context_set_tune_cache(fresh, path_.c_str()));
  ASSERT_EQ(data.reset_c(), cudaSuccess);
  ASSERT_GPUOPT_OK(data.run(fresh, fresh_stream));
  ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(fresh_stream));
  EXPECT_EQ(last_variant_name(fresh, GPUOPT_OP_GEMM), r.variant);
  EXPECT_TRUE(data.check());
  EXPECT_GPUOPT_OK(gpuopt_stream_destroy(fresh_stream));
  EXPECT_GPUOPT_OK(gpuopt_context_destroy(fresh));

  // Another class (f64) still dispatches by the rules and is correct.
  GemmData f64(gemm_type_configs()[0], square(96), rng_);
  ASSERT_TRUE(f64.ok());
  ASSERT_GPUOPT_OK(f64.run(ctx_, stream_));
  sync();
  EXPECT_TRUE(f64.check());
}

TEST_F(Tune, CallbackErrorsAreReportedAndTheContextStaysUsable) {
  GemmCase bad = square(64);
  GemmData data(gemm_type_configs()[1], bad, rng_);
  ASSERT_TRUE(data.ok());
  gpuopt_tune_result_t r{};
  r.struct_size = sizeof r;
  // No gemm call at all: INVALID_ARGUMENT naming the call.
  EXPECT_EQ(gpuopt_tune(ctx_, stream_, GPUOPT_OP_GEMM, no_gemm_call, nullptr, 0.1, &r),
            GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last_message().find("gemm"), std::string::npos) << last_message();
  // Tuning axpy while the call makes gemm calls: same.
  TuneGemm t{ctx_, stream_, &data};
  EXPECT_EQ(gpuopt_tune(ctx_, stream_, GPUOPT_OP_AXPY, tune_gemm_call, &t, 0.1, &r),
            GPUOPT_ERROR_INVALID_ARGUMENT);
  int entries = -1;
  ASSERT_GPUOPT_OK(gpuopt_context_tune_cache_entries(ctx_, &entries));
  EXPECT_EQ(entries, 0);
  expect_gemm_still_works(ctx_, stream_, rng_);
}

}  // namespace
}  // namespace gput
