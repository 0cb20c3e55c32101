// gpuopt_tune on a device: tuning a small GEMM records the fastest variant, writes the cache file
// (which a fresh context then reads), auto dispatch runs the recorded variant for the class and
// the results stay correct; a callback that fails or makes no gemm call is reported. Run-time
// configurations: every configuration of sm90_tma_wgmma (schedule x cluster) and cublaslt (the
// heuristic's algorithms) forced in turn computes the right C (fresh random operands, odd sizes,
// poisoned C, against the f64 CPU reference) or refuses with its reason; tuning counts every
// candidate as timed or refused and records "variant[:config]" in the file and the result; a
// cache entry with a configuration is dispatched (gpuopt_last_variant names the variant).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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
  // Odd m and n, k a multiple of 8, lda padded to 16 bytes (TMA), C packed at its odd m: the
  // sm90 rung's tiles end mid-tile on both sides.
  static GemmCase odd(gpuopt_transpose_t ta, gpuopt_transpose_t tb) {
    GemmCase c;
    c.label = "configs";
    c.ta = ta;
    c.tb = tb;
    c.m = 517;
    c.n = 389;
    c.k = 264;
    c.lda = round8(ta == GPUOPT_TRANS_N ? c.m : c.k);
    c.ldb = round8(tb == GPUOPT_TRANS_N ? c.k : c.n);
    return c;
  }
  // The configuration names of gemm variant `variant` (through its cache-file syntax: each name
  // is tried as "variant:config" by the caller).
  static std::vector<std::string> configs_of(const std::string& variant) {
    if (variant == "sm90_tma_wgmma") return {"coop_c1", "coop_c2", "pingpong_c1", "pingpong_c2"};
    if (variant == "cublaslt")
      return {"algo0", "algo1", "algo2", "algo3", "algo4", "algo5", "algo6", "algo7"};
    return {};
  }
  // What the cache file names for r: "variant" or "variant:config".
  static std::string recorded_name(const gpuopt_tune_result_t& r) {
    return std::string(r.variant) + (r.config ? std::string(":") + r.config : std::string());
  }
  std::string cache_text() const {
    std::ifstream in(path_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // Auto dispatch runs `variant` on data, and C is right (the tuning overwrote it with beta = 0
  // many times: it is reset and computed once more).
  void expect_auto_runs(const GemmData& data, const std::string& variant) {
    ASSERT_EQ(data.reset_c(), cudaSuccess);
    ASSERT_GPUOPT_OK(data.run(ctx_, stream_));
    sync();
    EXPECT_EQ(last_variant(GPUOPT_OP_GEMM), variant);
    EXPECT_TRUE(data.check());
  }
  // The cache file's stamp lines for this context's device (docs/tuning.md).
  std::string stamp_lines() const {
    gpuopt_device_info_t info{};
    info.struct_size = sizeof info;
    EXPECT_GPUOPT_OK(gpuopt_context_device_info(ctx_, &info));
    std::ostringstream s;
    s << "gpuopt-tune-cache 2\n"
      << "gpuopt " << gpuopt_version_string() << "\n"
      << "device " << info.name << "\n"
      << "cc " << info.cc_major * 10 + info.cc_minor << "\n"
      << "sms " << info.sm_count << "\n"
      << "driver " << info.driver_version << "\n";
    return s.str();
  }
  std::string dir_, path_;
};

TEST_F(Tune, EveryConfigurationOfBothRungsIsCorrectOrRefusesWithItsReason) {
  struct TypeCase {
    int config;  // index in gemm_type_configs()
    gpuopt_transpose_t ta, tb;
  };
  // bf16 / f16 with an f32 or 16-bit C (both schedules), tf32 NN (register-P, swapped) and TN.
  const TypeCase types[] = {
      {3, GPUOPT_TRANS_N, GPUOPT_TRANS_N}, {4, GPUOPT_TRANS_T, GPUOPT_TRANS_N},
      {5, GPUOPT_TRANS_N, GPUOPT_TRANS_T}, {6, GPUOPT_TRANS_T, GPUOPT_TRANS_T},
      {2, GPUOPT_TRANS_N, GPUOPT_TRANS_N}, {2, GPUOPT_TRANS_T, GPUOPT_TRANS_N}};
  int ran = 0;
  for (const char* rung : {"sm90_tma_wgmma", "cublaslt"}) {
    const std::string variant = rung;
    if (!variant_available(GPUOPT_OP_GEMM, variant)) {
      std::printf("[   NOTE   ] %s is not available on this device\n", variant.c_str());
      continue;
    }
    for (const TypeCase& t : types) {
      const GemmTypeConfig& cfg = gemm_type_configs()[static_cast<std::size_t>(t.config)];
      GemmData data(cfg, odd(t.ta, t.tb), rng_);  // fresh operands per case, poisoned C
      ASSERT_TRUE(data.ok());
      for (const std::string& config : configs_of(variant)) {
        const std::string name = variant + ":" + config;
        SCOPED_TRACE(name + " " + cfg.name);
        ASSERT_EQ(data.reset_c(), cudaSuccess);  // poisoned again: each run writes all of C
        ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, name.c_str()));
        const gpuopt_status_t st = data.run(ctx_, stream_);
        if (st == GPUOPT_ERROR_UNSUPPORTED) {
          // The refusals a configuration may meet: the ping-pong schedule on tf32, an algorithm
          // rank cuBLASLt's heuristic does not reach for this problem.
          const std::string why = last_message();
          const bool expected = (config.rfind("pingpong", 0) == 0 && cfg.ab == GPUOPT_DTYPE_F32 &&
                                 why.find("16-bit inputs only") != std::string::npos) ||
                                (variant == "cublaslt" && config != "algo0" &&
                                 why.find("heuristic ranks") != std::string::npos);
          EXPECT_TRUE(expected) << why;
          continue;
        }
        ASSERT_GPUOPT_OK(st);
        sync();
        EXPECT_EQ(last_variant(GPUOPT_OP_GEMM), variant);
        EXPECT_TRUE(data.check());
        ++ran;
      }
    }
  }
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, nullptr));
  std::printf("[   NOTE   ] %d configuration runs checked\n", ran);
  EXPECT_GE(ran, 6) << "cublaslt:algo0 runs every type case";
}

TEST_F(Tune, TuningTimesConfigurationsAndRecordsTheWinnersName) {
  ASSERT_GPUOPT_OK(gpuopt_context_set_tune_cache(ctx_, path_.c_str()));
  const GemmTypeConfig& bf16 = gemm_type_configs()[3];
  GemmCase c = square(1024);
  GemmData data(bf16, c, rng_);
  ASSERT_TRUE(data.ok());
  TuneGemm t{ctx_, stream_, &data};
  gpuopt_tune_result_t r{};
  r.struct_size = sizeof r;
  const char* const untouched = "untouched";
  r.config = untouched;
  ASSERT_GPUOPT_OK(gpuopt_tune(ctx_, stream_, GPUOPT_OP_GEMM, tune_gemm_call, &t, 1.0, &r));
  ASSERT_NE(r.variant, nullptr);
  // Every candidate is timed or refused: 9 variants under their own rules, sm90_tma_wgmma's 4
  // configurations and cublaslt's algo0 .. algo7 (its own rule depends on the problem, so algo0
  // is a candidate of its own).
  int variants = 0;
  ASSERT_GPUOPT_OK(gpuopt_variant_count(ctx_, GPUOPT_OP_GEMM, &variants));
  EXPECT_EQ(r.timed + r.refused, variants + 4 + 8);
  EXPECT_NE(r.config, untouched) << "config is written when struct_size covers it";
  const std::string recorded = recorded_name(r);
  std::printf("[   NOTE   ] bf16 1024^3: %s, %.4f ms (%d timed, %d refused)\n", recorded.c_str(),
              r.ms, r.timed, r.refused);
  const std::string text = cache_text();
  const bool with_config = recorded.find(':') != std::string::npos;
  EXPECT_EQ(text.rfind(with_config ? "gpuopt-tune-cache 2\n" : "gpuopt-tune-cache 1\n", 0), 0u)
      << text;
  EXPECT_NE(text.find("-> " + recorded + " "), std::string::npos) << text;

  // Auto runs it (gpuopt_last_variant names the variant; the configuration is in the decision
  // line).
  expect_auto_runs(data, r.variant);

  // An old caller's struct (ending at refused) is served without the config field.
  struct OldResult {
    size_t struct_size;
    const char* variant;
    double ms;
    int timed, refused;
  };
  struct {
    OldResult r;
    const char* guard;
  } old{};
  old.r.struct_size = sizeof old.r;
  old.guard = "guard";
  ASSERT_GPUOPT_OK(gpuopt_tune(ctx_, stream_, GPUOPT_OP_GEMM, tune_gemm_call, &t, 0.2,
                               reinterpret_cast<gpuopt_tune_result_t*>(&old.r)));
  EXPECT_STREQ(old.guard, "guard");
  EXPECT_NE(old.r.variant, nullptr);
}

TEST_F(Tune, CacheEntryWithAConfigurationIsDispatchedAndCorrect) {
  // A hand-written format-2 file: the f32-in, tf32 class of 517 x 389 x 264 runs cublaslt:algo1,
  // bf16's sm90_tma_wgmma:coop_c1 (where the device runs it), a nonsense configuration of
  // cublas falls back to its own rule.
  const GemmTypeConfig& bf16 = gemm_type_configs()[3];
  const GemmTypeConfig& tf32 = gemm_type_configs()[2];
  const GemmCase c = odd(GPUOPT_TRANS_N, GPUOPT_TRANS_N);
  const bool sm90 = variant_available(GPUOPT_OP_GEMM, "sm90_tma_wgmma");
  {
    std::ofstream out(path_);
    out << stamp_lines()
        << "gemm a=f32 c=f32 compute=2 ta=0 tb=0 m=2^9 n=2^8 k=2^8 batch=2^0 align16=0 -> "
           "cublaslt:algo1 1\n"
        << "gemm a=bf16 c=f32 compute=1 ta=0 tb=0 m=2^9 n=2^8 k=2^8 batch=2^0 align16=0 -> "
        << (sm90 ? "sm90_tma_wgmma:coop_c1" : "cublas:no_such_config") << " 1\n";
  }
  ASSERT_GPUOPT_OK(gpuopt_context_set_tune_cache(ctx_, path_.c_str()));
  int entries = 0;
  ASSERT_GPUOPT_OK(gpuopt_context_tune_cache_entries(ctx_, &entries));
  ASSERT_EQ(entries, 2) << "the stamp or a line did not parse (GPUOPT_LOG=info says why)";
  GemmData t(tf32, c, rng_);
  ASSERT_TRUE(t.ok());
  // algo1 when the heuristic ranks two or more algorithms, else the rung's own rule: cublaslt.
  expect_auto_runs(t, "cublaslt");
  GemmData b(bf16, c, rng_);
  ASSERT_TRUE(b.ok());
  expect_auto_runs(b, sm90 ? "sm90_tma_wgmma" : "cublas");
}

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

  // The file holds the class and the variant (with its configuration, when one won).
  const std::string text = cache_text();
  EXPECT_NE(text.find("-> " + recorded_name(r) + " "), std::string::npos) << text;

  // Auto dispatch now runs the recorded variant.
  expect_auto_runs(data, r.variant);

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
