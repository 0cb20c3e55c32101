// gpuopt-bench's call counts (bench/call_count.hpp): how many calls fill a warm-up or a sample.
// The interleaved gemm re-timing warms each variant up for at least 100 ms after a switch (the
// clocks under a power cap take 25-50 ms to settle), so a 2.3 ms f64 4096^3 call gets 44 warm-up
// calls and a 20 ms 8192^3 call 5. No GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "call_count.hpp"

namespace {

using bench::calls_lasting;

TEST(BenchCallCount, CoversTheSpan) {
  EXPECT_EQ(calls_lasting(100.0, 2.3, 4096), 44);  // 43 calls last 98.9 ms
  EXPECT_EQ(calls_lasting(100.0, 20.0, 4096), 5);
  EXPECT_EQ(calls_lasting(4.0, 2.281, 64), 2);
  EXPECT_EQ(calls_lasting(4.0, 4.0, 64), 1);  // exactly the span
  EXPECT_EQ(calls_lasting(0.5, 0.1, 4096), 5);
}

TEST(BenchCallCount, AtLeastOneCall) {
  EXPECT_EQ(calls_lasting(100.0, 250.0, 4096), 1);  // one call outlasts the span
  EXPECT_EQ(calls_lasting(0.0, 2.0, 64), 1);
  EXPECT_EQ(calls_lasting(-1.0, 2.0, 64), 1);
  EXPECT_EQ(calls_lasting(std::numeric_limits<double>::quiet_NaN(), 2.0, 64), 1);
  EXPECT_EQ(calls_lasting(4.0, std::numeric_limits<double>::infinity(), 64), 1);
}

TEST(BenchCallCount, CappedAtMaxCalls) {
  EXPECT_EQ(calls_lasting(100.0, 0.001, 4096), 4096);
  EXPECT_EQ(calls_lasting(4.0, 0.01, 64), 64);
  EXPECT_EQ(calls_lasting(4.0, 0.0, 64), 64);   // a call timed as zero: the cap, no division by 0
  EXPECT_EQ(calls_lasting(4.0, -1.0, 64), 64);  // (taken as 1e-4 ms)
  EXPECT_EQ(calls_lasting(1e300, 1e-300, 4096), 4096);
  EXPECT_EQ(calls_lasting(4.0, 0.01, 0), 1);  // a cap below 1 still makes one call
}

}  // namespace
