// The free gate (src/runtime/free_gate.hpp) without a device: frees run at once when no capture
// is open, are queued while one is, and run in order when the last capture ends.
#include "runtime/free_gate.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

gpuopt_status_t ok() { return GPUOPT_SUCCESS; }

TEST(FreeGate, FreesRunAtOnceWithoutAnOpenCapture) {
  int ran = 0;
  EXPECT_EQ(gpuopt::gate_free(0,
                              [&] {
                                ++ran;
                                return GPUOPT_SUCCESS;
                              }),
            GPUOPT_SUCCESS);
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(gpuopt::gate_free(0, [] { return GPUOPT_ERROR_CUDA; }), GPUOPT_ERROR_CUDA);
  EXPECT_EQ(gpuopt::gate_queued_frees(), 0);
}

TEST(FreeGate, FreesWaitForTheLastOpenCapture) {
  std::vector<int> order;
  ASSERT_EQ(gpuopt::gate_begin_capture(ok), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt::gate_begin_capture(ok), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt::gate_free(0,
                              [&] {
                                order.push_back(1);
                                return GPUOPT_SUCCESS;
                              }),
            GPUOPT_SUCCESS);
  // A queued release's failure is logged, not answered.
  EXPECT_EQ(gpuopt::gate_free(0,
                              [&] {
                                order.push_back(2);
                                return GPUOPT_ERROR_CUDA;
                              }),
            GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt::gate_queued_frees(), 2);
  gpuopt::gate_capture_ended();
  EXPECT_TRUE(order.empty()) << "one capture is still open";
  gpuopt::gate_capture_ended();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(gpuopt::gate_queued_frees(), 0);
  gpuopt::gate_capture_ended();  // unbalanced: harmless
  int ran = 0;
  gpuopt::gate_free(0, [&] {
    ++ran;
    return GPUOPT_SUCCESS;
  });
  EXPECT_EQ(ran, 1);
}

TEST(FreeGate, AFailedBeginOpensNoCapture) {
  EXPECT_EQ(gpuopt::gate_begin_capture([] { return GPUOPT_ERROR_CAPTURE_ILLEGAL; }),
            GPUOPT_ERROR_CAPTURE_ILLEGAL);
  int ran = 0;
  gpuopt::gate_free(0, [&] {
    ++ran;
    return GPUOPT_SUCCESS;
  });
  EXPECT_EQ(ran, 1);
}

}  // namespace
