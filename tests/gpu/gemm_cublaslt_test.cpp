// The cublaslt gemm rung beyond the sweep of gemm_variants_test.cpp (which forces it on every
// case and type, and gemm_graph_test.cpp under capture): its plan cache. A problem class is
// planned once (heuristic, descriptors) and reused on fresh buffers and data; pointers of another
// alignment are another class; concurrent streams share plans; k = 0 is refused cleanly; the
// rung's own rule in its measured-tile classes (bf16 on cc 9.0: m, n >= 8192 with k = 1024, and
// batches of 256^3 products) is correct and is what auto runs there.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "gemm_harness.hpp"
#include "gpu_fixture.hpp"

namespace {

using gput::GemmCase;
using gput::GemmData;

GemmCase lt_case(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t off) {
  GemmCase c;
  c.label = "cublaslt";
  c.ta = GPUOPT_TRANS_N;
  c.tb = GPUOPT_TRANS_T;
  c.m = m;
  c.n = n;
  c.k = k;
  c.lda = gput::round8(m) + (off ? 1 : 0);
  c.ldb = gput::round8(n) + (off ? 3 : 0);
  c.ldc = gput::round8(m) + (off ? 5 : 0);
  c.a_off = c.b_off = c.c_off = off;
  c.alpha = 0.75;
  c.beta = -0.5;
  return c;
}

class GemmCublasLt : public gput::GpuTest {
 protected:
  void SetUp() override {
    gput::GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, "cublaslt"));
  }

  // Runs c once with fresh data of cfg and checks it; when expect_lt, cublaslt must have run it.
  void run_one(const gput::GemmTypeConfig& cfg, const GemmCase& c, bool expect_lt) {
    SCOPED_TRACE(std::string(cfg.name) + " " + gput::describe(c));
    GemmData d(cfg, c, rng_);
    ASSERT_TRUE(d.ok());
    ASSERT_GPUOPT_OK(d.run(ctx_, stream_));
    sync();
    EXPECT_TRUE(d.check());
    if (expect_lt) {
      EXPECT_EQ(gput::last_gemm_variant(ctx_), "cublaslt");
    }
  }

  // Runs c forced on cublaslt with fresh data of every type configuration; all must be correct.
  void run_all_types(const GemmCase& c) {
    for (const gput::GemmTypeConfig& cfg : gput::gemm_type_configs()) {
      run_one(cfg, c, true);
      if (HasFatalFailure()) return;
    }
  }
};

// The same class three times (planned once, then cached) on new buffers and data, interleaved
// with the same shape on misaligned pointers and odd leading dimensions (another class).
TEST_F(GemmCublasLt, CachedPlansStayCorrectAcrossBuffersAndAlignments) {
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    run_all_types(lt_case(200, 136, 72, 0));
    if (HasFatalFailure()) return;
    run_all_types(lt_case(200, 136, 72, 1));
    if (HasFatalFailure()) return;
  }
}

// Strided batches of one class, then of a class differing only in the batch stride's alignment.
TEST_F(GemmCublasLt, BatchStrideAlignmentIsPartOfTheClass) {
  GemmCase c = lt_case(48, 40, 24, 0);
  c.batch = 4;
  c.stride_a = c.lda * c.k + 8;
  c.stride_b = c.ldb * c.k + 8;
  c.stride_c = c.ldc * c.n + 8;
  run_all_types(c);
  if (HasFatalFailure()) return;
  c.stride_a += 1;  // every other matrix of A is now only element-aligned
  run_all_types(c);
}

// Four threads, each with its own stream, run the same classes at once.
TEST_F(GemmCublasLt, ConcurrentStreamsShareThePlans) {
  const gput::GemmTypeConfig& cfg = gput::gemm_type_configs()[1];  // f32
  std::vector<std::thread> threads;
  std::vector<int> bad(4, 0);
  std::vector<std::uint64_t> seeds;
  for (int t = 0; t < 4; ++t) seeds.push_back(rng_.seed() + 1 + static_cast<std::uint64_t>(t));
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      gput::Rng rng(seeds[static_cast<std::size_t>(t)]);
      gpuopt_stream_t s = nullptr;
      if (gpuopt_stream_create(ctx_, &s) != GPUOPT_SUCCESS) {
        bad[static_cast<std::size_t>(t)] = 1;
        return;
      }
      for (int i = 0; i < 6; ++i) {
        GemmData d(cfg, lt_case(96 + 32 * (i % 2), 64, 48, 0), rng);
        if (!d.ok() || d.run(ctx_, s) != GPUOPT_SUCCESS ||
            gpuopt_stream_synchronize(s) != GPUOPT_SUCCESS || !d.check()) {
          bad[static_cast<std::size_t>(t)] = 1;
        }
      }
      if (gpuopt_stream_destroy(s) != GPUOPT_SUCCESS) bad[static_cast<std::size_t>(t)] = 1;
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(bad[static_cast<std::size_t>(t)], 0) << "thread " << t;
}

// The classes where the rule takes another algorithm than the heuristic's first
// (gemm_cublaslt_rule_tile): bf16 with an f32 and a bf16 C, NN, 8192 x 8200 x 1024 (the 128 x 160
// tile) and a strided batch of 300 products of 256 x 264 x 256 (the 128 x 64 tile); beta != 0, so
// C is read too; results checked on sampled elements against the f64 reference. On cc 9.0 auto
// runs cublaslt there, elsewhere whatever its rules say (checked either way).
TEST_F(GemmCublasLt, RuleTileClassesAreCorrectAndAutoRunsThemOnHopper) {
  gpuopt_device_info_t info{};
  info.struct_size = sizeof info;
  ASSERT_GPUOPT_OK(gpuopt_context_device_info(ctx_, &info));
  const bool hopper = info.cc_major == 9 && info.cc_minor == 0;
  GemmCase large = lt_case(8192, 8200, 1024, 0);
  large.tb = GPUOPT_TRANS_N;
  large.ldb = 1024;
  GemmCase batched = lt_case(256, 264, 256, 0);
  batched.tb = GPUOPT_TRANS_N;
  batched.ldb = 256;
  batched.batch = 300;
  batched.stride_a = batched.lda * batched.k;
  batched.stride_b = batched.ldb * batched.n;
  batched.stride_c = batched.ldc * batched.n;
  for (const gput::GemmTypeConfig& cfg : gput::gemm_type_configs()) {
    if (cfg.ab != GPUOPT_DTYPE_BF16) continue;
    for (GemmCase c : {large, batched}) {
      for (int forced = 1; forced >= 0; --forced) {
        ASSERT_GPUOPT_OK(
            gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, forced ? "cublaslt" : nullptr));
        c.label = forced ? "cublaslt rule" : "auto";
        c.sampled = true;
        run_one(cfg, c, forced || hopper);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// k = 0 (C = beta * C): refused with UNSUPPORTED naming k, C untouched, the context usable; auto
// runs it (on another variant).
TEST_F(GemmCublasLt, RefusesKZeroCleanly) {
  GemmCase c = lt_case(33, 17, 0, 0);
  c.lda = 40;
  c.ldb = 24;
  GemmData d(gput::gemm_type_configs()[0], c, rng_);
  ASSERT_TRUE(d.ok());
  EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED, d.run(ctx_, stream_));
  const std::string msg = gput::last_message();
  EXPECT_NE(msg.find("k = 0"), std::string::npos) << msg;
  sync();
  EXPECT_TRUE(d.check_unchanged());
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, nullptr));
  ASSERT_GPUOPT_OK(d.run(ctx_, stream_));
  sync();
  EXPECT_TRUE(d.check());
  gput::expect_gemm_still_works(ctx_, stream_, rng_);
}

}  // namespace
