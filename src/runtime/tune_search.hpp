// gpuopt_tune's measurement plan, apart from CUDA so that host tests can drive it with a fake
// clock: each variant once untimed then once timed (highest rung first); variants over
// kTuneDropFactor x the fastest single call are dropped; the rest are timed in interleaved rounds
// (so all see the same clocks and heat) until the budget is spent; the lowest median wins.
#pragma once
#include <functional>

#include "gpuopt.h"

namespace gpuopt {

constexpr double kTuneDropFactor = 4.0;   // slower single call than this x the fastest: dropped
constexpr double kTuneMinSampleMs = 1.0;  // a sample runs enough calls to last this long
constexpr int kTuneMaxInner = 64;
constexpr int kTuneMaxRounds = 15;

// Runs `inner` calls of variant v back to back; *ms is the time per call. *refused = true (and
// SUCCESS) when v cannot run the problem; any other failure aborts the search.
using TuneTimeFn = std::function<gpuopt_status_t(int v, int inner, double* ms, bool* refused)>;

struct TuneOutcome {
  int best = -1;          // variant index; -1 when every variant refused
  double ms = 0.0;        // its median per call
  int timed = 0;          // variants that ran
  int refused = 0;        // variants that refused
  double spent_ms = 0.0;  // device time the search measured in all
};

// Searches variants 0 .. count-1 within budget_ms of measured time (at least one round).
gpuopt_status_t tune_search(int count, double budget_ms, const TuneTimeFn& time, TuneOutcome* out);

}  // namespace gpuopt
