// The fixture of the unit tests that drive entry points in device-less mode
// (src/runtime/deviceless.hpp): fake devices 0 (H200) and 1 (A100), a context on device 0 and
// one stream; device-less mode is turned off again after each test.
#pragma once
#include <gtest/gtest.h>

#include "gpuopt.h"
#include "runtime/deviceless.hpp"
#include "test_support.hpp"

namespace unit {

class DevicelessContext : public ::testing::Test {
 protected:
  void SetUp() override {
    const gpuopt_device_info_t devices[] = {gpuopt::deviceless_h200(), gpuopt::deviceless_a100()};
    gpuopt::deviceless_enable(devices, 2);
    ASSERT_EQ(gpuopt_context_create(0, &ctx_), GPUOPT_SUCCESS) << last_message();
    ASSERT_EQ(gpuopt_stream_create(ctx_, &stream_), GPUOPT_SUCCESS) << last_message();
  }
  void TearDown() override {
    EXPECT_EQ(gpuopt_stream_destroy(stream_), GPUOPT_SUCCESS) << last_message();
    EXPECT_EQ(gpuopt_context_destroy(ctx_), GPUOPT_SUCCESS) << last_message();
    gpuopt::deviceless_disable();
  }

  gpuopt_context_t ctx_ = nullptr;
  gpuopt_stream_t stream_ = nullptr;
};

}  // namespace unit
