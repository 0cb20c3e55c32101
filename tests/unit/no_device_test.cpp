// The no-device path: without a GPU or driver, device queries and context creation answer
// GPUOPT_ERROR_NO_DEVICE with a message a person understands. On a machine with a device these
// tests skip (the GPU suite covers that machine).
#include <gtest/gtest.h>

#include <string>

#include "gpuopt.h"
#include "test_support.hpp"

namespace {

#define SKIP_IF_DEVICE_PRESENT()                                                            \
  do {                                                                                      \
    const int n_ = unit::device_count();                                                    \
    if (n_ > 0)                                                                             \
      GTEST_SKIP() << "a CUDA device is present (gpuopt_device_count = " << n_              \
                   << "); the no-device path can only be checked on a machine without one"; \
  } while (0)

// A message a person understands: it says there is no CUDA device or names the driver.
bool explains_no_device(const std::string& msg) {
  const std::string m = unit::lower(msg);
  return m.find("no cuda device") != std::string::npos || m.find("driver") != std::string::npos;
}

TEST(NoDevice, DeviceCountIsZero) {
  SKIP_IF_DEVICE_PRESENT();
  int count = -1;
  EXPECT_EQ(gpuopt_device_count(&count), GPUOPT_ERROR_NO_DEVICE);
  EXPECT_EQ(count, 0);
  const std::string msg = unit::last_message();
  EXPECT_NE(msg.find("gpuopt_device_count"), std::string::npos) << msg;
  EXPECT_TRUE(explains_no_device(msg)) << msg;
}

TEST(NoDevice, ContextCreateExplains) {
  SKIP_IF_DEVICE_PRESENT();
  gpuopt_context_t ctx = nullptr;
  ASSERT_EQ(gpuopt_context_create(0, &ctx), GPUOPT_ERROR_NO_DEVICE);
  EXPECT_EQ(ctx, nullptr) << "no handle is handed out on failure";
  const std::string msg = unit::last_message();
  EXPECT_NE(msg.find("gpuopt_context_create"), std::string::npos) << msg;
  EXPECT_TRUE(explains_no_device(msg)) << "message: " << msg;
  gpuopt_context_destroy(ctx);
}

TEST(NoDevice, ContextCreateRepeatable) {
  SKIP_IF_DEVICE_PRESENT();
  for (int i = 0; i < 3; ++i) {
    gpuopt_context_t ctx = nullptr;
    EXPECT_EQ(gpuopt_context_create(0, &ctx), GPUOPT_ERROR_NO_DEVICE) << "attempt " << i;
    EXPECT_EQ(ctx, nullptr);
  }
}

TEST(NoDevice, DeviceInfoAnswersNoDevice) {
  SKIP_IF_DEVICE_PRESENT();
  gpuopt_device_info_t info{};
  info.struct_size = sizeof info;
  EXPECT_EQ(gpuopt_device_info(0, &info), GPUOPT_ERROR_NO_DEVICE);
  const std::string msg = unit::last_message();
  EXPECT_NE(msg.find("gpuopt_device_info"), std::string::npos) << msg;
}

}  // namespace
