// The no-device path: without a GPU or driver, device queries and context creation answer
// GPUOPT_ERROR_NO_DEVICE with a message a person understands. On a machine with a device these
// tests skip (the GPU suite covers that machine).
#include <dlfcn.h>
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

// Whether this process can load the NVIDIA driver library, asked the way gpuopt asks.
bool driver_loads() {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (h) dlclose(h);
  return h != nullptr;
}

// "no driver" and "no device" are told apart (docs/error-model.md) by every no-device answer,
// and the lowest compute capability named is the build's lowest SASS target (8.0 by default).
TEST(NoDevice, MessageTellsNoDriverFromNoDevice) {
  SKIP_IF_DEVICE_PRESENT();
  const bool driver = driver_loads();
  gpuopt_context_t ctx = nullptr;
  ASSERT_EQ(gpuopt_context_create(0, &ctx), GPUOPT_ERROR_NO_DEVICE);
  const std::string msg = unit::last_message();
  const std::string min_cc = "compute capability " + std::to_string(GPUOPT_MIN_CC / 10) + "." +
                             std::to_string(GPUOPT_MIN_CC % 10) + " or newer";
  if (!driver) {
    EXPECT_NE(msg.find("no NVIDIA driver found (libcuda.so.1 could not be loaded"),
              std::string::npos)
        << msg;
    EXPECT_EQ(msg.find("insufficient"), std::string::npos)
        << "CUDA's 'driver version is insufficient' misleads when there is no driver: " << msg;
    EXPECT_NE(msg.find(min_cc), std::string::npos) << msg;
  } else {
    EXPECT_NE(msg.find("driver found"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("no NVIDIA driver found"), std::string::npos) << msg;
  }
  int count = -1;
  gpuopt_device_info_t info{};
  info.struct_size = sizeof info;
  for (gpuopt_status_t st : {gpuopt_device_count(&count), gpuopt_device_info(0, &info)}) {
    EXPECT_EQ(st, GPUOPT_ERROR_NO_DEVICE);
    const std::string m = unit::last_message();
    EXPECT_NE(m.find(driver ? "driver found" : "no NVIDIA driver found"), std::string::npos) << m;
  }
}

// With the log at info, a refused context creation logs one line with the reason.
TEST(NoDevice, RefusedContextIsLogged) {
  SKIP_IF_DEVICE_PRESENT();
  struct Seen {
    int lines = 0;
    std::string last;
  } seen;
  gpuopt_log_level_t before = GPUOPT_LOG_OFF;
  ASSERT_EQ(gpuopt_get_log_level(&before), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_set_log_level(GPUOPT_LOG_INFO), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_set_log_callback(
                [](gpuopt_log_level_t, const char* line, void* user) {
                  auto* s = static_cast<Seen*>(user);
                  ++s->lines;
                  s->last = line;
                },
                &seen),
            GPUOPT_SUCCESS);
  gpuopt_context_t ctx = nullptr;
  EXPECT_EQ(gpuopt_context_create(0, &ctx), GPUOPT_ERROR_NO_DEVICE);
  EXPECT_EQ(gpuopt_set_log_callback(nullptr, nullptr), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_set_log_level(before), GPUOPT_SUCCESS);
  EXPECT_EQ(seen.lines, 1);
  EXPECT_EQ(seen.last.rfind("no context on device 0: gpuopt_context_create: ", 0), 0u) << seen.last;
  EXPECT_NE(seen.last.find("(GPUOPT_ERROR_NO_DEVICE)"), std::string::npos) << seen.last;
}

}  // namespace
