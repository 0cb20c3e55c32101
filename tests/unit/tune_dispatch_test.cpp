// Dispatch from the tuning cache, host-only through device-less mode (fake H200 and A100, fake
// buffers, no CUDA call): a class the cache lists runs its recorded variant instead of the rules'
// choice; other classes, a forced variant, a recorded variant that cannot run the problem and a
// detached or stale cache fall back as docs/tuning.md says; GPUOPT_TUNE_CACHE attaches a file at
// context creation; gpuopt_tune validates its arguments. Run-time configurations: a cache entry's
// ("variant:config") reaches the dispatcher and falls back to the rules where the configuration
// refuses the problem; gpuopt_context_set_variant and GPUOPT_VARIANT_<OP> accept
// "variant:config" and refuse unknown configurations naming the argument and the known ones.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "api/tune_keys.hpp"
#include "deviceless_fixture.hpp"
#include "gpuopt.h"
#include "kernels/gemm/gemm.hpp"
#include "kernels/gemm/sm90_tma_wgmma.hpp"
#include "runtime/deviceless.hpp"
#include "runtime/registry.hpp"
#include "runtime/tune_cache.hpp"
#include "runtime/tune_probe.hpp"
#include "test_support.hpp"

namespace {

constexpr std::int64_t kN = 512;  // above smem_tiled's small-product rule (gemm_table.cpp)

class TuneDispatch : public unit::DevicelessContext {
 protected:
  void SetUp() override {
    DevicelessContext::SetUp();
    if (HasFatalFailure()) return;
    for (void** p : {&a_, &b_, &c_}) {
      gpuopt_buffer_t b = nullptr;
      ASSERT_EQ(gpuopt_buffer_create(ctx_, kN * kN * sizeof(double), GPUOPT_MEMORY_DEVICE, &b),
                GPUOPT_SUCCESS);
      buffers_.push_back(b);
      ASSERT_EQ(gpuopt_buffer_device_pointer(b, p), GPUOPT_SUCCESS);
    }
    char tmpl[] = "/tmp/gpuopt-tune-dispatch-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/cache";
  }
  void TearDown() override {
    for (gpuopt_buffer_t b : buffers_) EXPECT_EQ(gpuopt_buffer_destroy(b), GPUOPT_SUCCESS);
    DevicelessContext::TearDown();
    std::remove(path_.c_str());
    rmdir(dir_.c_str());
  }

  gpuopt_gemm_desc_t desc(gpuopt_dtype_t t, std::int64_t n) const {
    return unit::square_gemm_desc(t, n);
  }
  // The class gpuopt_gemm computes for desc(t, n) on this test's operands.
  gpuopt::TuneKey key(gpuopt_dtype_t t, std::int64_t n) const {
    gpuopt::GemmProblem p;
    p.m = p.n = p.k = n;
    p.a_type = p.c_type = t;
    p.compute = t == GPUOPT_DTYPE_F64 ? GPUOPT_COMPUTE_F64 : GPUOPT_COMPUTE_F32;
    p.A = a_;
    p.B = b_;
    p.C = c_;
    p.lda = p.ldb = p.ldc = n;
    return gpuopt::tune_key(p, t);
  }
  // Writes a cache for `info` whose gemm entries map each (dtype, n) to a variant (or
  // "variant:config").
  void write_cache(const gpuopt_device_info_t& info,
                   const std::vector<std::pair<gpuopt::TuneKey, const char*>>& entries) {
    std::vector<gpuopt::TuneEntry> es;
    for (const auto& [k, name] : entries) {
      gpuopt::TuneEntry e;
      e.op = GPUOPT_OP_GEMM;
      e.key = k;
      std::string why;
      const int choice = gpuopt::find_choice(*gpuopt::op_table(GPUOPT_OP_GEMM), name, &why);
      ASSERT_GE(choice, 0) << why;
      e.variant = gpuopt::choice_variant(choice);
      e.config = gpuopt::choice_config(choice);
      e.ms = 1.0;
      es.push_back(e);
    }
    std::string why;
    ASSERT_TRUE(gpuopt::write_file_atomically(
        path_, gpuopt::format_tune_cache(gpuopt::tune_stamp_of(info), es), &why))
        << why;
  }
  std::string run(gpuopt_dtype_t t, std::int64_t n) {
    const gpuopt_gemm_desc_t d = desc(t, n);
    const gpuopt_status_t st = gpuopt_gemm(ctx_, stream_, &d, a_, b_, c_);
    if (st != GPUOPT_SUCCESS) return "error: " + unit::last_message();
    const char* name = nullptr;
    EXPECT_EQ(gpuopt_last_variant(ctx_, GPUOPT_OP_GEMM, &name), GPUOPT_SUCCESS);
    return name ? name : "<none>";
  }
  int entries() {
    int n = -1;
    EXPECT_EQ(gpuopt_context_tune_cache_entries(ctx_, &n), GPUOPT_SUCCESS);
    return n;
  }

  std::vector<gpuopt_buffer_t> buffers_;
  void *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
  std::string dir_, path_;
};

TEST_F(TuneDispatch, CachedClassRunsItsVariantOthersFollowTheRules) {
  const std::string rules_f32 = run(GPUOPT_DTYPE_F32, kN);
  const std::string rules_small = run(GPUOPT_DTYPE_F32, 100);
  const std::string rules_bf16 = run(GPUOPT_DTYPE_BF16, kN);
  ASSERT_EQ(rules_f32, "cublas");
  EXPECT_EQ(entries(), 0);  // off by default

  write_cache(gpuopt::deviceless_h200(), {{key(GPUOPT_DTYPE_F32, kN), "register_blocked"},
                                          {key(GPUOPT_DTYPE_F64, kN), "smem_tiled"}});
  ASSERT_EQ(gpuopt_context_set_tune_cache(ctx_, path_.c_str()), GPUOPT_SUCCESS);
  EXPECT_EQ(entries(), 2);
  EXPECT_EQ(run(GPUOPT_DTYPE_F32, kN), "register_blocked");
  EXPECT_EQ(run(GPUOPT_DTYPE_F64, kN), "smem_tiled");
  EXPECT_EQ(run(GPUOPT_DTYPE_F32, 100), rules_small);  // another class: the rules
  EXPECT_EQ(run(GPUOPT_DTYPE_BF16, kN), rules_bf16);   // another dtype: the rules

  // A forced variant wins over the cache.
  ASSERT_EQ(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, "naive"), GPUOPT_SUCCESS);
  EXPECT_EQ(run(GPUOPT_DTYPE_F32, kN), "naive");
  ASSERT_EQ(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, nullptr), GPUOPT_SUCCESS);
  EXPECT_EQ(run(GPUOPT_DTYPE_F32, kN), "register_blocked");

  // Detached: the rules again.
  ASSERT_EQ(gpuopt_context_set_tune_cache(ctx_, nullptr), GPUOPT_SUCCESS);
  EXPECT_EQ(entries(), 0);
  EXPECT_EQ(run(GPUOPT_DTYPE_F32, kN), rules_f32);
}

TEST_F(TuneDispatch, RecordedVariantThatCannotRunTheProblemFallsBackToTheRules) {
  // sm90_tma_wgmma has no f64 and the A100 context cannot run sm_90a code: neither refusal
  // reaches the caller.
  write_cache(gpuopt::deviceless_h200(), {{key(GPUOPT_DTYPE_F64, kN), "sm90_tma_wgmma"}});
  ASSERT_EQ(gpuopt_context_set_tune_cache(ctx_, path_.c_str()), GPUOPT_SUCCESS);
  EXPECT_EQ(entries(), 1);
  EXPECT_EQ(run(GPUOPT_DTYPE_F64, kN), "cublas");
}

TEST_F(TuneDispatch, StaleCacheIsIgnored) {
  write_cache(gpuopt::deviceless_a100(), {{key(GPUOPT_DTYPE_F32, kN), "naive"}});
  ASSERT_EQ(gpuopt_context_set_tune_cache(ctx_, path_.c_str()), GPUOPT_SUCCESS);
  EXPECT_EQ(entries(), 0);
  EXPECT_EQ(run(GPUOPT_DTYPE_F32, kN), "cublas");
  // A missing file is an empty cache, not an error.
  std::remove(path_.c_str());
  EXPECT_EQ(gpuopt_context_set_tune_cache(ctx_, path_.c_str()), GPUOPT_SUCCESS);
  EXPECT_EQ(entries(), 0);
}

TEST_F(TuneDispatch, EnvironmentAttachesTheFileAtContextCreation) {
  write_cache(gpuopt::deviceless_h200(), {{key(GPUOPT_DTYPE_F32, kN), "naive"}});
  ASSERT_EQ(setenv("GPUOPT_TUNE_CACHE", path_.c_str(), 1), 0);
  gpuopt_context_t other = nullptr;
  const gpuopt_status_t st = gpuopt_context_create(0, &other);
  unsetenv("GPUOPT_TUNE_CACHE");
  ASSERT_EQ(st, GPUOPT_SUCCESS) << unit::last_message();
  int n = -1;
  EXPECT_EQ(gpuopt_context_tune_cache_entries(other, &n), GPUOPT_SUCCESS);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(gpuopt_context_destroy(other), GPUOPT_SUCCESS);
}

TEST_F(TuneDispatch, ProbeOfGpuoptTuneForcesTheTimedVariantAndNotesTheClassAndTheRule) {
  // What gpuopt_tune's callback sees on its thread (the timing needs a device; this is the seam).
  const int naive = gpuopt::find_variant(*gpuopt::op_table(GPUOPT_OP_GEMM), "naive");
  const int wgmma = gpuopt::find_variant(*gpuopt::op_table(GPUOPT_OP_GEMM), "sm90_tma_wgmma");
  gpuopt::TuneProbe probe;
  probe.op = GPUOPT_OP_GEMM;
  probe.variant = naive;
  gpuopt::t_tune_probe = &probe;
  const std::string ran = run(GPUOPT_DTYPE_F32, kN);
  probe.variant = wgmma;  // no exact f32: refused, and the call reached the dispatcher
  const gpuopt_gemm_desc_t d = desc(GPUOPT_DTYPE_F32, kN);
  const gpuopt_status_t refused = gpuopt_gemm(ctx_, stream_, &d, a_, b_, c_);
  const int calls_before_other_class = probe.calls;
  const std::string other = run(GPUOPT_DTYPE_F64, kN);
  gpuopt::t_tune_probe = nullptr;
  EXPECT_EQ(ran, "naive");
  EXPECT_EQ(refused, GPUOPT_ERROR_UNSUPPORTED);
  EXPECT_EQ(calls_before_other_class, 2);
  EXPECT_EQ(probe.key, key(GPUOPT_DTYPE_F32, kN));
  // The rules' choice for the first call's problem, what auto runs without the probe (below).
  EXPECT_EQ(probe.rule, gpuopt::find_variant(*gpuopt::op_table(GPUOPT_OP_GEMM), "cublas"));
  EXPECT_TRUE(probe.mixed);  // the f64 call was of another class
  (void)other;
  // Another op's probe leaves gemm alone; without a probe the rules decide again.
  gpuopt::TuneProbe axpy;
  axpy.op = GPUOPT_OP_AXPY;
  axpy.variant = 0;
  gpuopt::t_tune_probe = &axpy;
  EXPECT_EQ(run(GPUOPT_DTYPE_F32, kN), "cublas");
  gpuopt::t_tune_probe = nullptr;
  EXPECT_EQ(axpy.calls, 0);
  EXPECT_EQ(run(GPUOPT_DTYPE_F32, kN), "cublas");
}

// Log lines at info and above while it lives (the decision lines name variant:config).
class InfoLog {
 public:
  InfoLog() {
    gpuopt_get_log_level(&level_);
    gpuopt_set_log_level(GPUOPT_LOG_INFO);
    gpuopt_set_log_callback(collect, this);
  }
  ~InfoLog() {
    gpuopt_set_log_callback(nullptr, nullptr);
    gpuopt_set_log_level(level_);
  }
  InfoLog(const InfoLog&) = delete;
  InfoLog& operator=(const InfoLog&) = delete;
  // Whether a line holds both a and b.
  bool has(const std::string& a, const std::string& b) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& l : lines_)
      if (l.find(a) != std::string::npos && l.find(b) != std::string::npos) return true;
    return false;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.clear();
  }

 private:
  static void collect(gpuopt_log_level_t, const char* message, void* user) {
    InfoLog* self = static_cast<InfoLog*>(user);
    std::lock_guard<std::mutex> lock(self->mu_);
    self->lines_.push_back(message);
  }
  gpuopt_log_level_t level_ = GPUOPT_LOG_OFF;
  std::mutex mu_;
  std::vector<std::string> lines_;
};

TEST_F(TuneDispatch, CachedConfigurationRunsWithItsVariant) {
  // The recorded configuration travels with its variant (the decision line names both);
  // gpuopt_last_variant names the variant.
  write_cache(gpuopt::deviceless_h200(), {{key(GPUOPT_DTYPE_F32, kN), "cublaslt:algo3"},
                                          {key(GPUOPT_DTYPE_F64, kN), "cublaslt:algo0"}});
  ASSERT_EQ(gpuopt_context_set_tune_cache(ctx_, path_.c_str()), GPUOPT_SUCCESS);
  EXPECT_EQ(entries(), 2);
  InfoLog log;
  EXPECT_EQ(run(GPUOPT_DTYPE_F32, kN), "cublaslt");  // gpuopt_last_variant: the variant
  EXPECT_TRUE(log.has("-> cublaslt:algo3", "(tuning cache)"));
  EXPECT_EQ(run(GPUOPT_DTYPE_F64, kN), "cublaslt");
  EXPECT_TRUE(log.has("-> cublaslt:algo0", "(tuning cache)"));
  // Without a cache the decision line names the variant alone (its own rule).
  ASSERT_EQ(gpuopt_context_set_tune_cache(ctx_, nullptr), GPUOPT_SUCCESS);
  log.clear();
  EXPECT_EQ(run(GPUOPT_DTYPE_F32, kN), "cublas");
  EXPECT_TRUE(log.has("-> cublas ", "(auto)"));
  EXPECT_FALSE(log.has("cublas:", ""));
}

TEST_F(TuneDispatch, CachedConfigurationThatRefusesTheProblemFallsBackToTheRules) {
  gpuopt::TuneKey tf32 = key(GPUOPT_DTYPE_F32, kN);
  tf32.f[2] = GPUOPT_COMPUTE_TF32;
  write_cache(gpuopt::deviceless_h200(), {{tf32, "sm90_tma_wgmma:pingpong_c1"}});
  ASSERT_EQ(gpuopt_context_set_tune_cache(ctx_, path_.c_str()), GPUOPT_SUCCESS);
  gpuopt_gemm_desc_t d = desc(GPUOPT_DTYPE_F32, kN);
  d.compute = GPUOPT_COMPUTE_TF32;
  InfoLog log;
  ASSERT_EQ(gpuopt_gemm(ctx_, stream_, &d, a_, b_, c_), GPUOPT_SUCCESS) << unit::last_message();
  const char* name = nullptr;
  ASSERT_EQ(gpuopt_last_variant(ctx_, GPUOPT_OP_GEMM, &name), GPUOPT_SUCCESS);
  EXPECT_STREQ(name, "cublas");
  EXPECT_TRUE(log.has("-> cublas ", "(auto)")) << "the rules decided, not the cache";
}

TEST_F(TuneDispatch, ForcedConfigurationRunsOrRefusesWithTheReasonNeverFallsBack) {
  InfoLog log;
  ASSERT_EQ(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, "cublaslt:algo5"), GPUOPT_SUCCESS)
      << unit::last_message();
  const char* forced = nullptr;
  ASSERT_EQ(gpuopt_context_get_variant(ctx_, GPUOPT_OP_GEMM, &forced), GPUOPT_SUCCESS);
  EXPECT_STREQ(forced, "cublaslt");  // the variant's name (static storage)
  EXPECT_EQ(run(GPUOPT_DTYPE_F32, kN), "cublaslt");
  EXPECT_TRUE(log.has("-> cublaslt:algo5", "(forced)"));

  // sm90_tma_wgmma's configurations reach its plan: the ping-pong schedule refuses tf32, a
  // cluster of 2 refuses a single column tile (n <= 128), each naming the configuration; a
  // configuration the problem takes goes on to the plan's next check (device-less: no driver).
  gpuopt_gemm_desc_t d = desc(GPUOPT_DTYPE_F32, kN);
  d.compute = GPUOPT_COMPUTE_TF32;
  ASSERT_EQ(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, "sm90_tma_wgmma:pingpong_c1"),
            GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_gemm(ctx_, stream_, &d, a_, b_, c_), GPUOPT_ERROR_UNSUPPORTED);
  EXPECT_NE(unit::last_message().find("configuration pingpong_*"), std::string::npos)
      << unit::last_message();
  ASSERT_EQ(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, "sm90_tma_wgmma:coop_c2"),
            GPUOPT_SUCCESS);
  gpuopt_gemm_desc_t narrow = d;
  narrow.m = narrow.n = 100;  // tf32 NN: P (the column tiles) runs over m
  EXPECT_EQ(gpuopt_gemm(ctx_, stream_, &narrow, a_, b_, c_), GPUOPT_ERROR_UNSUPPORTED);
  EXPECT_NE(unit::last_message().find("single column tile"), std::string::npos)
      << unit::last_message();
  EXPECT_EQ(gpuopt_gemm(ctx_, stream_, &d, a_, b_, c_), GPUOPT_ERROR_UNSUPPORTED);
  EXPECT_NE(unit::last_message().find("cuTensorMapEncodeTiled"), std::string::npos)
      << unit::last_message();
  ASSERT_EQ(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, "sm90_tma_wgmma:coop_c1"),
            GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_gemm(ctx_, stream_, &narrow, a_, b_, c_), GPUOPT_ERROR_UNSUPPORTED);
  EXPECT_NE(unit::last_message().find("cuTensorMapEncodeTiled"), std::string::npos)
      << unit::last_message();

  ASSERT_EQ(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, "auto"), GPUOPT_SUCCESS);
  EXPECT_EQ(run(GPUOPT_DTYPE_F32, kN), "cublas");
}

TEST_F(TuneDispatch, UnknownConfigurationNamesAreRefusedNamingTheArgument) {
  struct Case {
    const char* name;
    const char* says;
  };
  const Case cases[] = {
      {"sm90_tma_wgmma:pingpong_c4", "known: coop_c1, coop_c2, pingpong_c1, pingpong_c2"},
      {"cublaslt:algo8", "algo7"},
      {"cublaslt:", "not a configuration of gemm cublaslt"},
      {"naive:fast", "it has none"},
      {"warp_drive:coop_c1", "not a variant of gemm"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, c.name), GPUOPT_ERROR_NOT_FOUND)
        << c.name;
    const std::string msg = unit::last_message();
    EXPECT_TRUE(unit::has_word(msg, "name")) << msg;
    EXPECT_NE(msg.find(c.says), std::string::npos) << c.name << ": " << msg;
    const char* forced = nullptr;  // nothing changed, the context is usable
    ASSERT_EQ(gpuopt_context_get_variant(ctx_, GPUOPT_OP_GEMM, &forced), GPUOPT_SUCCESS);
    EXPECT_STREQ(forced, "auto");
  }
  EXPECT_EQ(run(GPUOPT_DTYPE_F32, kN), "cublas");

  // GPUOPT_VARIANT_GEMM takes the same syntax at context creation.
  gpuopt_context_t other = nullptr;
  ASSERT_EQ(setenv("GPUOPT_VARIANT_GEMM", "cublaslt:algo9", 1), 0);
  EXPECT_EQ(gpuopt_context_create(0, &other), GPUOPT_ERROR_NOT_FOUND);
  EXPECT_NE(unit::last_message().find("GPUOPT_VARIANT_GEMM=cublaslt:algo9"), std::string::npos)
      << unit::last_message();
  ASSERT_EQ(setenv("GPUOPT_VARIANT_GEMM", "cublaslt:algo2", 1), 0);
  const gpuopt_status_t st = gpuopt_context_create(0, &other);
  unsetenv("GPUOPT_VARIANT_GEMM");
  ASSERT_EQ(st, GPUOPT_SUCCESS) << unit::last_message();
  const char* forced = nullptr;
  EXPECT_EQ(gpuopt_context_get_variant(other, GPUOPT_OP_GEMM, &forced), GPUOPT_SUCCESS);
  EXPECT_STREQ(forced, "cublaslt");
  EXPECT_EQ(gpuopt_context_destroy(other), GPUOPT_SUCCESS);
}

TEST_F(TuneDispatch, ProbeOfGpuoptTuneForcesTheTimedConfiguration) {
  gpuopt::TuneProbe probe;
  probe.op = GPUOPT_OP_GEMM;
  const int lt = gpuopt::find_variant(*gpuopt::op_table(GPUOPT_OP_GEMM), "cublaslt");
  const int wgmma = gpuopt::find_variant(*gpuopt::op_table(GPUOPT_OP_GEMM), "sm90_tma_wgmma");
  InfoLog log;
  gpuopt::t_tune_probe = &probe;
  probe.variant = gpuopt::pack_choice(lt, 6);
  const std::string ran = run(GPUOPT_DTYPE_F32, kN);
  probe.variant = gpuopt::pack_choice(wgmma, gpuopt::sm90::kPingPongC2);  // tf32: refused
  gpuopt_gemm_desc_t d = desc(GPUOPT_DTYPE_F32, kN);
  d.compute = GPUOPT_COMPUTE_TF32;
  const gpuopt_status_t refused = gpuopt_gemm(ctx_, stream_, &d, a_, b_, c_);
  gpuopt::t_tune_probe = nullptr;
  EXPECT_EQ(ran, "cublaslt");
  EXPECT_TRUE(log.has("-> cublaslt:algo6", "(forced)"));
  EXPECT_EQ(refused, GPUOPT_ERROR_UNSUPPORTED);
  EXPECT_NE(unit::last_message().find("pingpong"), std::string::npos) << unit::last_message();
}

gpuopt_status_t no_call(void*) { return GPUOPT_SUCCESS; }

TEST_F(TuneDispatch, ArgumentsAreValidatedNamingTheArgument) {
  EXPECT_EQ(gpuopt_context_set_tune_cache(ctx_, ""), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "path")) << unit::last_message();
  EXPECT_EQ(gpuopt_context_set_tune_cache(nullptr, path_.c_str()), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_context_tune_cache_entries(ctx_, nullptr), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "entries")) << unit::last_message();

  gpuopt_tune_result_t r{};
  r.struct_size = sizeof r;
  EXPECT_EQ(gpuopt_tune(ctx_, stream_, GPUOPT_OP_GEMM, nullptr, nullptr, 1.0, &r),
            GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "call")) << unit::last_message();
  for (double bad : {0.0, -1.0, 1.0 / 0.0, 0.0 / 0.0}) {
    EXPECT_EQ(gpuopt_tune(ctx_, stream_, GPUOPT_OP_GEMM, no_call, nullptr, bad, &r),
              GPUOPT_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(unit::has_word(unit::last_message(), "budget_seconds")) << unit::last_message();
  }
  EXPECT_EQ(gpuopt_tune(ctx_, stream_, static_cast<gpuopt_op_t>(99), no_call, nullptr, 1.0, &r),
            GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "op")) << unit::last_message();
  gpuopt_tune_result_t small{};
  small.struct_size = 8;
  EXPECT_EQ(gpuopt_tune(ctx_, stream_, GPUOPT_OP_GEMM, no_call, nullptr, 1.0, &small),
            GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("struct_size"), std::string::npos);
  EXPECT_EQ(gpuopt_tune(nullptr, stream_, GPUOPT_OP_GEMM, no_call, nullptr, 1.0, &r),
            GPUOPT_ERROR_INVALID_HANDLE);
  // Valid arguments: device-less mode stops at the first CUDA call (timing needs a device).
  EXPECT_EQ(gpuopt_tune(ctx_, stream_, GPUOPT_OP_GEMM, no_call, nullptr, 1.0, nullptr),
            GPUOPT_ERROR_NO_DEVICE);
  EXPECT_EQ(unit::last_message().rfind("gpuopt_tune: ", 0), 0u) << unit::last_message();
}

}  // namespace
