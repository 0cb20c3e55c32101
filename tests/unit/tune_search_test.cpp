// gpuopt_tune's measurement plan (src/runtime/tune_search.*) with a fake clock: the lowest
// median wins, refusals are counted, slow variants are dropped after one timed call, the budget
// ends the rounds, and a failure aborts the search with its status.
#include "runtime/tune_search.hpp"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace {

struct FakeVariants {
  std::map<int, std::vector<double>> ms;  // per variant: the times of successive samples
  std::map<int, int> samples;             // samples taken per variant
  std::map<int, int> calls;               // calls made per variant (inner counts)
  std::vector<int> refuse;
  int fail_on = -1;

  gpuopt::TuneTimeFn fn() {
    return [this](int v, int inner, double* out, bool* refused) {
      *refused = false;
      for (int r : refuse) {
        if (r == v) {
          *refused = true;
          return GPUOPT_SUCCESS;
        }
      }
      if (v == fail_on) return GPUOPT_ERROR_CUDA;
      const std::vector<double>& seq = ms.at(v);
      const int i = samples[v]++;
      *out = seq[static_cast<std::size_t>(i) % seq.size()];
      calls[v] += inner;
      return GPUOPT_SUCCESS;
    };
  }
};

TEST(TuneSearch, LowestMedianWinsNotTheLuckiestSample) {
  FakeVariants f;
  // Variant 1 has one lucky sample (0.5) but a median of 1.2; variant 2 is steady at 1.0.
  f.ms[0] = {3.0};
  f.ms[1] = {1.2, 1.2, 0.5, 1.2, 1.2};
  f.ms[2] = {1.0, 1.0, 1.0};
  gpuopt::TuneOutcome out;
  ASSERT_EQ(gpuopt::tune_search(3, 1000.0, f.fn(), &out), GPUOPT_SUCCESS);
  EXPECT_EQ(out.best, 2);
  EXPECT_DOUBLE_EQ(out.ms, 1.0);
  EXPECT_EQ(out.timed, 3);
  EXPECT_EQ(out.refused, 0);
}

TEST(TuneSearch, RefusedVariantsAreCountedAndSkipped) {
  FakeVariants f;
  f.ms[0] = {2.0};
  f.ms[2] = {1.0};
  f.refuse = {1, 3};
  gpuopt::TuneOutcome out;
  ASSERT_EQ(gpuopt::tune_search(4, 100.0, f.fn(), &out), GPUOPT_SUCCESS);
  EXPECT_EQ(out.best, 2);
  EXPECT_EQ(out.timed, 2);
  EXPECT_EQ(out.refused, 2);
}

TEST(TuneSearch, EveryVariantRefusingGivesNoWinner) {
  FakeVariants f;
  f.refuse = {0, 1};
  gpuopt::TuneOutcome out;
  ASSERT_EQ(gpuopt::tune_search(2, 100.0, f.fn(), &out), GPUOPT_SUCCESS);
  EXPECT_EQ(out.best, -1);
  EXPECT_EQ(out.refused, 2);
}

TEST(TuneSearch, SlowVariantsAreDroppedAfterTheirFirstTimedCall) {
  FakeVariants f;
  f.ms[0] = {100.0};  // textbook rung: 100x the fastest
  f.ms[1] = {1.0};
  gpuopt::TuneOutcome out;
  ASSERT_EQ(gpuopt::tune_search(2, 1000.0, f.fn(), &out), GPUOPT_SUCCESS);
  EXPECT_EQ(out.best, 1);
  EXPECT_EQ(f.samples[0], 2);  // the warm call and one timed call, no rounds
  EXPECT_GT(f.samples[1], 2);
}

TEST(TuneSearch, BudgetEndsTheRoundsButOneRoundAlwaysRuns) {
  FakeVariants f;
  f.ms[0] = {10.0};
  f.ms[1] = {10.0};
  gpuopt::TuneOutcome out;
  ASSERT_EQ(gpuopt::tune_search(2, 1e-3, f.fn(), &out), GPUOPT_SUCCESS);
  EXPECT_EQ(f.samples[0], 3);  // warm, first, one round
  f = FakeVariants{};
  f.ms[0] = {10.0};
  f.ms[1] = {10.0};
  ASSERT_EQ(gpuopt::tune_search(2, 1e9, f.fn(), &out), GPUOPT_SUCCESS);
  EXPECT_EQ(f.samples[0], 2 + gpuopt::kTuneMaxRounds);
}

TEST(TuneSearch, ShortCallsAreBatchedIntoSamplesOfAMillisecond) {
  FakeVariants f;
  f.ms[0] = {0.01};
  gpuopt::TuneOutcome out;
  ASSERT_EQ(gpuopt::tune_search(1, 0.5, f.fn(), &out), GPUOPT_SUCCESS);
  // One round of kTuneMaxInner calls (0.01 ms each would need 100 for a millisecond).
  EXPECT_EQ(f.calls[0], 2 + gpuopt::kTuneMaxInner);
}

TEST(TuneSearch, AFailureAbortsWithItsStatus) {
  FakeVariants f;
  f.ms[0] = {1.0};
  f.fail_on = 1;
  gpuopt::TuneOutcome out;
  EXPECT_EQ(gpuopt::tune_search(2, 100.0, f.fn(), &out), GPUOPT_ERROR_CUDA);
}

}  // namespace
