// gpuopt_tune's measurement plan (src/runtime/tune_search.*) with a fake clock: the lowest
// median wins, refusals are counted, slow variants are dropped after one timed call, the budget
// ends the rounds, the two fastest are re-timed head to head (which decides between them even
// when the clock drifts), the preference rules' choice keeps its place against a lead under
// kTuneRuleMargin, and a failure aborts the search with its status. The candidates are every
// variant under its own rule, then the run-time configurations of the rungs that declare some,
// and a configuration competes as a variant does.
#include "runtime/tune_search.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "runtime/registry.hpp"

namespace {

struct FakeVariants {
  std::map<int, std::vector<double>> ms;  // per variant: the times of successive samples
  std::map<int, int> samples;             // samples taken per variant
  std::map<int, int> calls;               // calls made per variant (inner counts)
  std::vector<int> refuse;
  int fail_on = -1;
  // When set, replaces ms: the time of variant v's call number `sample` (0: the warm call) at
  // `clock`, the calls made so far over all variants.
  std::function<double(int v, int sample, int clock)> at;
  std::vector<std::pair<int, int>> order;  // (variant, inner) of every call, in order

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
      const int i = samples[v]++;
      if (at) {
        *out = at(v, i, static_cast<int>(order.size()));
      } else {
        const std::vector<double>& seq = ms.at(v);
        *out = seq[static_cast<std::size_t>(i) % seq.size()];
      }
      calls[v] += inner;
      order.emplace_back(v, inner);
      return GPUOPT_SUCCESS;
    };
  }
};

// The search without warm-up turns (warm_ms 0), whose samples and calls these tests count; the
// warm-up has tests of its own (WarmUp*).
gpuopt_status_t search(int count, double budget_ms, const gpuopt::TuneTimeFn& time,
                       gpuopt::TuneOutcome* out, const int* rule = nullptr) {
  return gpuopt::tune_search(count, budget_ms, time, out, rule, 0.0);
}

// n variants, each call taking ms.
FakeVariants steady(int n, double ms) {
  FakeVariants f;
  for (int v = 0; v < n; ++v) f.ms[v] = {ms};
  return f;
}

TEST(TuneSearch, LowestMedianWinsNotTheLuckiestSample) {
  FakeVariants f;
  // Variant 1 has one lucky sample (0.5) but a median of 1.2; variant 2 is steady at 1.0.
  f.ms[0] = {3.0};
  f.ms[1] = {1.2, 1.2, 0.5, 1.2, 1.2};
  f.ms[2] = {1.0, 1.0, 1.0};
  gpuopt::TuneOutcome out;
  ASSERT_EQ(search(3, 1000.0, f.fn(), &out), GPUOPT_SUCCESS);
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
  ASSERT_EQ(search(4, 100.0, f.fn(), &out), GPUOPT_SUCCESS);
  EXPECT_EQ(out.best, 2);
  EXPECT_EQ(out.timed, 2);
  EXPECT_EQ(out.refused, 2);
}

TEST(TuneSearch, EveryVariantRefusingGivesNoWinner) {
  FakeVariants f;
  f.refuse = {0, 1};
  gpuopt::TuneOutcome out;
  ASSERT_EQ(search(2, 100.0, f.fn(), &out), GPUOPT_SUCCESS);
  EXPECT_EQ(out.best, -1);
  EXPECT_EQ(out.refused, 2);
}

TEST(TuneSearch, SlowVariantsAreDroppedAfterTheirFirstTimedCall) {
  FakeVariants f;
  f.ms[0] = {100.0};  // textbook rung: 100x the fastest
  f.ms[1] = {1.0};
  gpuopt::TuneOutcome out;
  ASSERT_EQ(search(2, 1000.0, f.fn(), &out), GPUOPT_SUCCESS);
  EXPECT_EQ(out.best, 1);
  EXPECT_EQ(f.samples[0], 2);  // the warm call and one timed call, no rounds
  EXPECT_GT(f.samples[1], 2);
}

TEST(TuneSearch, BudgetEndsTheRoundsButOneRoundAlwaysRuns) {
  FakeVariants f = steady(2, 10.0);
  gpuopt::TuneOutcome out;
  ASSERT_EQ(search(2, 1e-3, f.fn(), &out), GPUOPT_SUCCESS);
  // warm, first, one round, the head-to-head's least rounds
  EXPECT_EQ(f.samples[0], 3 + gpuopt::kTuneDuelMinRounds);
  EXPECT_EQ(out.duel_rounds, gpuopt::kTuneDuelMinRounds);
  f = steady(2, 10.0);
  ASSERT_EQ(search(2, 1e9, f.fn(), &out), GPUOPT_SUCCESS);
  EXPECT_EQ(f.samples[0], 2 + gpuopt::kTuneMaxRounds + gpuopt::kTuneDuelMaxRounds);
  EXPECT_EQ(out.duel_rounds, gpuopt::kTuneDuelMaxRounds);
}

TEST(TuneSearch, RoundsTakeThreeQuartersOfTheBudgetTheHeadToHeadTheRest) {
  FakeVariants f = steady(3, 1.0);
  gpuopt::TuneOutcome out;
  // 1 ms a call, 1 call a sample: the first calls spend 6 ms; rounds of 3 ms until 30 ms (the
  // 8th round ends at 30), then pairs of 2 ms until 40 ms (5 rounds).
  ASSERT_EQ(search(3, 40.0, f.fn(), &out), GPUOPT_SUCCESS);
  EXPECT_EQ(f.samples[2], 2 + 8 + 5);  // variant 2 is timed first, so it leads on a tie
  EXPECT_EQ(f.samples[0] + f.samples[1], 2 * (2 + 8) + 5);
  EXPECT_EQ(out.duel_rounds, 5);
  EXPECT_DOUBLE_EQ(out.spent_ms, 40.0);
}

TEST(TuneSearch, RoundsRotateWhoRunsFirst) {
  FakeVariants f = steady(3, 1.0);
  gpuopt::TuneOutcome out;
  ASSERT_EQ(search(3, 1e9, f.fn(), &out), GPUOPT_SUCCESS);
  // After the 6 first calls (2, 2, 1, 1, 0, 0), round r starts at candidate r mod 3.
  const int starts[3] = {f.order[6].first, f.order[9].first, f.order[12].first};
  EXPECT_EQ(starts[0], 2);
  EXPECT_EQ(starts[1], 1);
  EXPECT_EQ(starts[2], 0);
  // The head-to-head alternates its order: A, B, then B, A.
  const std::size_t duel = 6 + 3 * gpuopt::kTuneMaxRounds;
  EXPECT_EQ(f.order[duel].first, f.order[duel + 3].first);
  EXPECT_EQ(f.order[duel + 1].first, f.order[duel + 2].first);
  EXPECT_NE(f.order[duel].first, f.order[duel + 1].first);
}

TEST(TuneSearch, HeadToHeadDecidesBetweenTheTwoFastestUnderDrift) {
  // Variant 1 is 2% faster than variant 0, but every call runs 1% slower than the one before (a
  // GPU heating up), as much as the two differ: whichever runs later in a pair looks slower.
  // Alternating the order of the pairs and taking the median of their ratios still finds 2%.
  FakeVariants f;
  f.at = [](int v, int, int clock) {
    const double drift = 1.0 + 0.01 * clock;
    return (v == 1 ? 0.98 : v == 0 ? 1.0 : 1.5) * drift;
  };
  gpuopt::TuneOutcome out;
  ASSERT_EQ(search(3, 1e9, f.fn(), &out), GPUOPT_SUCCESS);
  EXPECT_EQ(out.best, 1);
  EXPECT_EQ(out.runner_up, 0);
  EXPECT_GT(out.margin, 1.0);
  EXPECT_LT(out.margin, 1.03);  // 2%, give or take one step of drift
  EXPECT_EQ(out.duel_rounds, gpuopt::kTuneDuelMaxRounds);
}

TEST(TuneSearch, HeadToHeadOverturnsALuckyRoundMedian) {
  // In the rounds variant 0's median (0.95) beats variant 1's (1.0); head to head, variant 1 is
  // faster in every round: it wins, with its head-to-head median as the recorded time.
  FakeVariants f;
  const int rounds_end = 2 + gpuopt::kTuneMaxRounds;  // samples before the head-to-head
  f.at = [&](int v, int sample, int) {
    if (sample < rounds_end) return v == 0 ? 0.95 : 1.0;
    return v == 0 ? 0.99 : 0.97;
  };
  gpuopt::TuneOutcome out;
  ASSERT_EQ(search(2, 1e9, f.fn(), &out), GPUOPT_SUCCESS);
  EXPECT_EQ(out.best, 1);
  EXPECT_EQ(out.runner_up, 0);
  EXPECT_DOUBLE_EQ(out.ms, 0.97);
  EXPECT_NEAR(out.margin, 0.99 / 0.97, 1e-12);
}

TEST(TuneSearch, TheRulesChoiceKeepsItsPlaceAgainstANoiseLevelLead) {
  // Variant 2 leads variant 0, the rules' choice, by 0.5% in every sample: under
  // kTuneRuleMargin, so the rules' choice is recorded (rule_kept) and the margin says by how much
  // it trails. Variant 1 (stage 2's second) is not the opponent: the rules' choice is.
  FakeVariants f;
  f.ms[0] = {1.0};
  f.ms[1] = {0.996};
  f.ms[2] = {0.995};
  const int rule = 0;
  gpuopt::TuneOutcome out;
  ASSERT_EQ(search(3, 1e9, f.fn(), &out, &rule), GPUOPT_SUCCESS);
  EXPECT_EQ(out.best, 0);
  EXPECT_EQ(out.runner_up, 2);
  EXPECT_TRUE(out.rule_kept);
  EXPECT_NEAR(out.margin, 0.995, 1e-12);
  EXPECT_EQ(f.samples[1], 2 + gpuopt::kTuneMaxRounds);  // no head-to-head for variant 1
  EXPECT_DOUBLE_EQ(out.ms, 1.0);
}

TEST(TuneSearch, AMeasuredLeadDisplacesTheRulesChoice) {
  FakeVariants f;
  f.ms[0] = {1.0};
  f.ms[1] = {0.97};  // 3% faster: past the margin
  const int rule = 0;
  gpuopt::TuneOutcome out;
  ASSERT_EQ(search(2, 1e9, f.fn(), &out, &rule), GPUOPT_SUCCESS);
  EXPECT_EQ(out.best, 1);
  EXPECT_FALSE(out.rule_kept);
  EXPECT_NEAR(out.margin, 1.0 / 0.97, 1e-12);
  // The rules' choice leading on its own merit is a plain win, not a kept place.
  const int rule1 = 1;
  f = FakeVariants{};
  f.ms[0] = {1.0};
  f.ms[1] = {0.97};
  ASSERT_EQ(search(2, 1e9, f.fn(), &out, &rule1), GPUOPT_SUCCESS);
  EXPECT_EQ(out.best, 1);
  EXPECT_FALSE(out.rule_kept);
}

TEST(TuneSearch, TheRulesChoiceLeadingInTheRoundsNeedsAClearDefeat) {
  // Variant 1, the rules' choice, leads the rounds; head to head variant 0 is 0.5% faster, under
  // the margin: variant 1 stays. Without a rule the same samples make variant 0 the winner.
  FakeVariants f;
  const int rounds_end = 2 + gpuopt::kTuneMaxRounds;
  f.at = [&](int v, int sample, int) {
    if (sample < rounds_end) return v == 0 ? 1.0 : 0.99;
    return v == 0 ? 0.995 : 1.0;
  };
  const int rule = 1;
  gpuopt::TuneOutcome out;
  ASSERT_EQ(search(2, 1e9, f.fn(), &out, &rule), GPUOPT_SUCCESS);
  EXPECT_EQ(out.best, 1);
  EXPECT_TRUE(out.rule_kept);
  FakeVariants g;
  g.at = f.at;
  ASSERT_EQ(search(2, 1e9, g.fn(), &out), GPUOPT_SUCCESS);
  EXPECT_EQ(out.best, 0);
  EXPECT_FALSE(out.rule_kept);
}

TEST(TuneSearch, OneSurvivorNeedsNoHeadToHead) {
  FakeVariants f;
  f.ms[0] = {10.0};
  f.ms[1] = {1.0};
  gpuopt::TuneOutcome out;
  ASSERT_EQ(search(2, 1e9, f.fn(), &out), GPUOPT_SUCCESS);
  EXPECT_EQ(out.best, 1);
  EXPECT_EQ(out.runner_up, -1);
  EXPECT_EQ(out.duel_rounds, 0);
}

TEST(TuneSearchSelection, TopTwoAndTies) {
  int first = 0, second = 0;
  gpuopt::tune_top_two({}, &first, &second);
  EXPECT_EQ(first, -1);
  EXPECT_EQ(second, -1);
  gpuopt::tune_top_two({2.0}, &first, &second);
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, -1);
  gpuopt::tune_top_two({3.0, 1.0, 2.0, 1.0}, &first, &second);
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 3);
  gpuopt::tune_top_two({1.0, 3.0, 2.0}, &first, &second);
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 2);
}

TEST(TuneSearchSelection, DuelRatioIsTheMedianOfPerRoundRatios) {
  // Round 2 ran at half the clock for both: the ratio of medians would be skewed, the per-round
  // ratios are not.
  EXPECT_DOUBLE_EQ(gpuopt::tune_duel_ratio({1.0, 2.0, 1.0}, {1.1, 2.2, 1.1}), 1.1);
  EXPECT_DOUBLE_EQ(gpuopt::tune_duel_ratio({1.0, 1.0}, {0.9, 1.1}), 1.0);  // a tie goes to a
  EXPECT_DOUBLE_EQ(gpuopt::tune_duel_ratio({}, {}), 1.0);
  EXPECT_DOUBLE_EQ(gpuopt::tune_duel_ratio({0.0, 1.0}, {5.0, 0.5}), 0.5);  // a zero is skipped
  EXPECT_DOUBLE_EQ(gpuopt::tune_median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(gpuopt::tune_median({4.0, 1.0}), 2.5);
  EXPECT_DOUBLE_EQ(gpuopt::tune_median({}), 0.0);
}

TEST(TuneSearch, ShortCallsAreBatchedIntoSamplesOfAMillisecond) {
  FakeVariants f;
  f.ms[0] = {0.01};
  gpuopt::TuneOutcome out;
  ASSERT_EQ(search(1, 0.5, f.fn(), &out), GPUOPT_SUCCESS);
  // One round of kTuneMaxInner calls (0.01 ms each would need 100 for a millisecond).
  EXPECT_EQ(f.calls[0], 2 + gpuopt::kTuneMaxInner);
}

TEST(TuneSearch, AFailureAbortsWithItsStatus) {
  FakeVariants f;
  f.ms[0] = {1.0};
  f.fail_on = 1;
  gpuopt::TuneOutcome out;
  EXPECT_EQ(search(2, 100.0, f.fn(), &out), GPUOPT_ERROR_CUDA);
}

}  // namespace

namespace {

// A table of three variants: none with configurations, one whose rule depends on the problem
// (every configuration a candidate), one whose rule always picks its configuration 0 (not timed
// twice).
constexpr const char* kThree[] = {"a", "b", "c"};
constexpr const char* kTwo[] = {"rule0", "other"};
const gpuopt::VariantMeta kMetas[] = {
    {"plain", "", 0, 0, false, 1u, {}},
    {"scheduled", "", 0, 0, false, 1u, {kThree, 3, -1}},
    {"vendor", "", 0, 0, true, 1u, {kTwo, 2, 0}},
};
const gpuopt::VariantMeta& fake_meta(int i) { return kMetas[i]; }

}  // namespace

TEST(TuneCandidates, VariantsFirstThenEachConfigurationButTheOneTheRuleAlwaysPicks) {
  const gpuopt::OpTable t{"fake", "GPUOPT_VARIANT_FAKE", 3, fake_meta};
  const std::vector<int> c = gpuopt::tune_candidates(t);
  using gpuopt::pack_choice;
  const std::vector<int> want = {
      0, 1, 2, pack_choice(1, 0), pack_choice(1, 1), pack_choice(1, 2), pack_choice(2, 1)};
  EXPECT_EQ(c, want);
  for (int i = 0; i < t.count; ++i)  // candidate i is variant i under its own rule
    EXPECT_EQ(c[static_cast<std::size_t>(i)], pack_choice(i, -1));
  EXPECT_EQ(gpuopt::choice_name(t, c[4]), "scheduled:b");
  EXPECT_EQ(gpuopt::choice_name(t, c[2]), "vendor");
}

TEST(TuneCandidates, TheGemmTableTimesSm90SchedulesAndClustersAndCublasLtAlgorithms) {
  const gpuopt::OpTable& t = *gpuopt::op_table(GPUOPT_OP_GEMM);
  const std::vector<int> c = gpuopt::tune_candidates(t);
  std::vector<std::string> names;
  for (std::size_t i = static_cast<std::size_t>(t.count); i < c.size(); ++i)
    names.push_back(gpuopt::choice_name(t, c[i]));
  const std::vector<std::string> want = {"sm90_tma_wgmma:coop_c1",
                                         "sm90_tma_wgmma:coop_c2",
                                         "sm90_tma_wgmma:pingpong_c1",
                                         "sm90_tma_wgmma:pingpong_c2",
                                         "cublaslt:algo0",
                                         "cublaslt:algo1",
                                         "cublaslt:algo2",
                                         "cublaslt:algo3",
                                         "cublaslt:algo4",
                                         "cublaslt:algo5",
                                         "cublaslt:algo6",
                                         "cublaslt:algo7"};
  // cublaslt's own rule depends on the problem (a measured tile in one class, else algo0), so
  // algo0 is a candidate of its own.
  EXPECT_EQ(names, want);
}

TEST(TuneSearch, AConfigurationCompetesAsAVariantDoesUnderTheRulesMargin) {
  // Candidates: variants 0..2 under their rules (2 is the rules' choice), then configurations 3
  // (refuses this problem, as the ping-pong schedule refuses tf32), 4 and 5 of variant 2.
  const int rule = 2;
  auto run = [&](double config_ms, gpuopt::TuneOutcome* out) {
    FakeVariants f;
    f.ms[0] = {1.5};
    f.ms[1] = {1.2};
    f.ms[2] = {1.0};
    f.refuse = {3};
    f.ms[4] = {config_ms};
    f.ms[5] = {1.1};
    return search(6, 1e9, f.fn(), out, &rule);
  };
  gpuopt::TuneOutcome out;
  ASSERT_EQ(run(0.97, &out), GPUOPT_SUCCESS);  // 3% faster than the rule: recorded
  EXPECT_EQ(out.best, 4);
  EXPECT_EQ(out.runner_up, 2);
  EXPECT_FALSE(out.rule_kept);
  EXPECT_EQ(out.timed, 5);
  EXPECT_EQ(out.refused, 1);
  ASSERT_EQ(run(0.995, &out), GPUOPT_SUCCESS);  // 0.5%: the rule keeps its place
  EXPECT_EQ(out.best, 2);
  EXPECT_EQ(out.runner_up, 4);
  EXPECT_TRUE(out.rule_kept);
}

// Each sample of the rounds and the head-to-head follows untimed calls of the same candidate
// lasting at least warm_ms at its first call's pace; they count as spent.
TEST(TuneSearch, WarmUpCallsPrecedeEverySampleOfRoundsAndHeadToHead) {
  FakeVariants f = steady(2, 10.0);
  gpuopt::TuneOutcome out;
  ASSERT_EQ(gpuopt::tune_search(2, 1e-3, f.fn(), &out, nullptr, 100.0), GPUOPT_SUCCESS);
  // After the 4 first calls: (warm 10 calls, sample 1 call) per turn, same candidate.
  ASSERT_EQ(f.order.size(), 4u + 2u * (2u + 2u * gpuopt::kTuneDuelMinRounds));
  for (std::size_t i = 4; i < f.order.size(); i += 2) {
    EXPECT_EQ(f.order[i].second, 10) << "warm-up of 100 ms at 10 ms a call, turn " << i;
    EXPECT_EQ(f.order[i + 1].second, 1) << "the timed sample";
    EXPECT_EQ(f.order[i].first, f.order[i + 1].first) << "warmed and timed: one candidate";
  }
  // 2 x 2 first calls, then (1 round + 3 duel rounds) x 2 turns x 11 calls, 10 ms each.
  EXPECT_DOUBLE_EQ(out.spent_ms, 10.0 * (4 + 4 * 2 * 11));
}

TEST(TuneSearch, WarmUpOfShortCallsIsCapped) {
  FakeVariants f;
  f.ms[0] = {1e-6};
  gpuopt::TuneOutcome out;
  ASSERT_EQ(gpuopt::tune_search(1, 0.5, f.fn(), &out, nullptr, 100.0), GPUOPT_SUCCESS);
  EXPECT_EQ(f.order[2].second, gpuopt::kTuneMaxWarmCalls);
}
