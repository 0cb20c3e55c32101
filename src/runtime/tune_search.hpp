// gpuopt_tune's measurement plan, apart from CUDA so that host tests can drive it with a fake
// clock. It searches candidates: each variant under its own rule, and each run-time
// configuration of the rungs that declare some (tune_candidates). budget_ms counts measured
// device time and is split in three stages:
// 1. every candidate once untimed then once timed (last first; these two calls are spent
//    whatever the budget); variants over kTuneDropFactor x the fastest single call are dropped;
// 2. the rest in interleaved rounds (A, B, C, then B, C, A, ...: each round starts one variant
//    later, so all see the same clocks and heat and none always runs first) until
//    kTuneRoundsShare of the budget is spent (at least one round, at most kTuneMaxRounds); they
//    are ranked by median;
// 3. the two lowest medians again, head to head (A, B, then B, A, ...) for the rest of the budget
//    (at least kTuneDuelMinRounds rounds, at most kTuneDuelMaxRounds): the faster by the median of
//    the per-round ratios wins. Clocks drift by several percent over seconds (power, heat), more
//    than two near-equal variants differ; a ratio of two samples taken back to back cancels it.
//    When the preference rules' choice for the problem ran and is not the leader, it is the
//    leader's opponent, and it keeps its place unless the leader is faster by more than
//    kTuneRuleMargin: the cache overrides the rules on a measured lead, not on a noise-level one
//    that another run would reverse (a row of the bench moves by 1-3% between runs).
// Every timed sample of stages 2 and 3 follows untimed calls of its candidate lasting at least
// warm_ms (kTuneWarmMs; counted in the budget): large problems run at the board's power cap, where
// the clock follows the power the work draws and takes 25-50 ms to settle after a switch, so a
// sample taken right after another candidate ran at that candidate's clock (H100, f64 4096^3:
// own / cuBLAS 0.99 that way, 1.037 each at its own clock; docs/notes/history/f64-power.md).
// Past the budget, the search overruns by at most one stage-2 round and kTuneDuelMinRounds rounds
// of the two finalists.
#pragma once
#include <functional>
#include <vector>

#include "gpuopt.h"

namespace gpuopt {

struct OpTable;

constexpr double kTuneDropFactor = 4.0;   // slower single call than this x the fastest: dropped
constexpr double kTuneMinSampleMs = 1.0;  // a sample runs enough calls to last this long
constexpr int kTuneMaxInner = 64;
constexpr int kTuneMaxRounds = 15;         // stage 2
constexpr double kTuneRoundsShare = 0.75;  // stage 2 ends once this share of the budget is spent
constexpr int kTuneDuelMinRounds = 3;      // stage 3
constexpr int kTuneDuelMaxRounds = 9;
constexpr double kTuneRuleMargin =
    1.01;  // a variant displaces the rules' choice when this much faster
constexpr double kTuneWarmMs = 100.0;  // untimed calls before each sample of stages 2 and 3
constexpr int kTuneMaxWarmCalls = 4096;

// Runs `inner` calls of variant v back to back; *ms is the time per call. *refused = true (and
// SUCCESS) when v cannot run the problem; any other failure aborts the search.
using TuneTimeFn = std::function<gpuopt_status_t(int v, int inner, double* ms, bool* refused)>;

struct TuneOutcome {
  int best = -1;           // variant index; -1 when every variant refused
  double ms = 0.0;         // its median per call (of the head-to-head when one ran)
  int runner_up = -1;      // the other finalist of the head-to-head; -1 when only one was timed
  double margin = 0.0;     // median of runner-up ms / best ms over the head-to-head rounds (>= 1,
                           // or down to 1 / kTuneRuleMargin when rule_kept)
  int duel_rounds = 0;     // rounds of the head-to-head
  bool rule_kept = false;  // the rules' choice won by the margin rule (it was not the faster)
  int timed = 0;           // variants that ran
  int refused = 0;         // variants that refused
  double spent_ms = 0.0;   // device time the search measured in all
};

// The candidates of an op's search as packed choices (registry.hpp): first every variant under its
// own rule, in table order (candidate i is variant i), then each variant's configurations but
// the one its rule always picks (VariantConfigs::rule; it would be timed twice).
std::vector<int> tune_candidates(const OpTable& table);

// Searches candidates 0 .. count-1 within budget_ms of measured time (see above). rule (may be
// nullptr) points at the candidate the preference rules choose (-1: none), read once stage 1 has
// run: the dispatcher learns it at the search's first call. warm_ms: the untimed calls before
// each sample of stages 2 and 3 (0: none).
gpuopt_status_t tune_search(int count, double budget_ms, const TuneTimeFn& time, TuneOutcome* out,
                            const int* rule = nullptr, double warm_ms = kTuneWarmMs);

// Median of values (0 when empty).
double tune_median(std::vector<double> values);

// Indices of the lowest and the second lowest of medians (-1 where there is none); ties go to the
// lower index.
void tune_top_two(const std::vector<double>& medians, int* first, int* second);

// The head-to-head verdict: a_ms[i] and b_ms[i] were timed in the same round i. The median of the
// per-round ratios b / a: above 1 when a is faster (1 when there are no rounds). Ties (exactly 1)
// go to a, the leader of stage 2.
double tune_duel_ratio(const std::vector<double>& a_ms, const std::vector<double>& b_ms);

}  // namespace gpuopt
