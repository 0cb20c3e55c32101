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

  // The variant the last axpy ran ("<none>" before any).
  std::string last_variant() const {
    const char* name = nullptr;
    EXPECT_GPUOPT_OK(gpuopt_last_variant(ctx_, GPUOPT_OP_AXPY, &name));
    return name ? name : "<none>";
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

  // Calls body(name) with each axpy variant forced in turn (the variants this device cannot run
  // must refuse to be forced), then restores automatic dispatch.
  void for_each_variant(const std::function<void(const std::string&)>& body) {
    const std::vector<std::string> names = variant_names();
    ASSERT_FALSE(names.empty());
    for (int i = 0; i < static_cast<int>(names.size()); ++i) {
      SCOPED_TRACE("variant " + names[i]);
      gpuopt_variant_info_t info{};
      info.struct_size = sizeof info;
      ASSERT_GPUOPT_OK(gpuopt_variant_info(ctx_, GPUOPT_OP_AXPY, i, &info));
      if (!info.available) {
        EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED,
                      gpuopt_context_set_variant(ctx_, GPUOPT_OP_AXPY, names[i].c_str()));
        std::printf("[   NOTE   ] variant %s is not available on this device\n", names[i].c_str());
        continue;
      }
      ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_AXPY, names[i].c_str()));
      body(names[i]);
      ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_AXPY, nullptr));
      if (HasFatalFailure()) return;
    }
  }

  gpuopt_context_t ctx_ = nullptr;
  gpuopt_stream_t stream_ = nullptr;
  Rng rng_;
};

}  // namespace gput
