// The fixture of every GPU test: a context on device 0 and one stream. Without a device the
// test is skipped with the reason gpuopt gives. A failing test prints its random seed.
#pragma once
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "gpu_check.hpp"
#include "gpu_handles.hpp"
#include "gpuopt.h"
#include "random_data.hpp"

namespace gput {

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gpuopt_context_t ctx = nullptr;
    const gpuopt_status_t st = gpuopt_context_create(0, &ctx);
    if (st == GPUOPT_ERROR_NO_DEVICE) GTEST_SKIP() << "no CUDA device: " << last_message();
    ASSERT_STATUS(GPUOPT_SUCCESS, st);
    ctx_ = ctx;
    ASSERT_GPUOPT_OK(gpuopt_stream_create(ctx_, &stream_));
    RecordProperty("seed", std::to_string(rng_.seed()));
  }

  void TearDown() override {
    if (stream_) {
      EXPECT_GPUOPT_OK(gpuopt_stream_destroy(stream_));
    }
    if (ctx_) {
      EXPECT_GPUOPT_OK(gpuopt_context_destroy(ctx_));
    }
    if (HasFailure()) {
      std::printf("[   SEED   ] rerun with %s to reproduce the data\n", rng_.describe().c_str());
    }
  }

  void sync() const { ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(stream_)); }

  // Names of the axpy variants, in table order.
  std::vector<std::string> variant_names() const {
    return gput::variant_names(ctx_, GPUOPT_OP_AXPY);
  }

  // The variant the last call of op ran on the context ("<none>" before any); axpy by default.
  std::string last_variant(gpuopt_op_t op = GPUOPT_OP_AXPY) const {
    return last_variant_name(ctx_, op);
  }

  // The forced axpy variant or "auto".
  std::string forced_variant() const {
    const char* name = nullptr;
    EXPECT_GPUOPT_OK(gpuopt_context_get_variant(ctx_, GPUOPT_OP_AXPY, &name));
    return name ? name : "<null>";
  }

  // Vector variants need contiguous, 16-byte-aligned x and y.
  static bool needs_contiguous_aligned(const std::string& name) {
    return name.rfind("vec4", 0) == 0;
  }

  // Forces variant `name` of op ("auto": automatic dispatch again).
  void force_variant(gpuopt_op_t op, const std::string& name) {
    ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, op, name == "auto" ? nullptr : name.c_str()));
  }

  // Whether the context's device can run variant `name` of op.
  bool variant_available(gpuopt_op_t op, const std::string& name) const {
    for (const VariantEntry& v : list_variants(ctx_, op))
      if (v.name == name) return v.available;
    return false;
  }

  // Calls body(name) with each variant of op forced in turn (axpy by default; the variants this
  // device cannot run must refuse to be forced), then restores automatic dispatch.
  void for_each_variant(const std::function<void(const std::string&)>& body,
                        gpuopt_op_t op = GPUOPT_OP_AXPY) {
    const std::vector<VariantEntry> variants = list_variants(ctx_, op);
    ASSERT_FALSE(variants.empty());
    for (const VariantEntry& v : variants) {
      SCOPED_TRACE("variant " + v.name);
      if (!v.available) {
        EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED,
                      gpuopt_context_set_variant(ctx_, op, v.name.c_str()));
        std::printf("[   NOTE   ] variant %s is not available on this device\n", v.name.c_str());
        continue;
      }
      ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, op, v.name.c_str()));
      body(v.name);
      ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, op, nullptr));
      if (HasFatalFailure()) return;
    }
  }

  gpuopt_context_t ctx_ = nullptr;
  gpuopt_stream_t stream_ = nullptr;
  Rng rng_;
};

// The fixture of one op's tests: force(name), last_variant() and for_each_variant(body) of kOp.
template <gpuopt_op_t kOp>
class OpTest : public GpuTest {
 protected:
  void force(const std::string& name) { force_variant(kOp, name); }
  std::string last_variant() const { return GpuTest::last_variant(kOp); }
  bool available(const std::string& name) const { return variant_available(kOp, name); }
  void for_each_variant(const std::function<void(const std::string&)>& body) {
    GpuTest::for_each_variant(body, kOp);
  }
};

}  // namespace gput
