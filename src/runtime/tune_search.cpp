#include "runtime/tune_search.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpuopt {
namespace {

struct Candidate {
  int v;
  double first_ms;
  int inner = 1;
  std::vector<double> samples;
};

double median(std::vector<double> s) {
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

}  // namespace

gpuopt_status_t tune_search(int count, double budget_ms, const TuneTimeFn& time, TuneOutcome* out) {
  *out = TuneOutcome{};
  std::vector<Candidate> cands;
  double best_first = INFINITY;
  for (int v = count - 1; v >= 0; --v) {
    double warm = 0.0, first = 0.0;
    bool refused = false;
    gpuopt_status_t st = time(v, 1, &warm, &refused);  // first call: one-time costs land here
    if (st == GPUOPT_SUCCESS && !refused) st = time(v, 1, &first, &refused);
    if (st != GPUOPT_SUCCESS) return st;
    if (refused) {
      ++out->refused;
      continue;
    }
    ++out->timed;
    out->spent_ms += warm + first;
    cands.push_back(Candidate{v, first, 1, {}});
    best_first = std::min(best_first, first);
  }
  if (cands.empty()) return GPUOPT_SUCCESS;
  cands.erase(
      std::remove_if(cands.begin(), cands.end(),
                     [&](const Candidate& c) { return c.first_ms > kTuneDropFactor * best_first; }),
      cands.end());
  for (Candidate& c : cands) {
    const double per = std::max(c.first_ms, 1e-4);
    c.inner = std::clamp(static_cast<int>(std::ceil(kTuneMinSampleMs / per)), 1, kTuneMaxInner);
  }
  for (int round = 0; round < kTuneMaxRounds; ++round) {
    for (Candidate& c : cands) {
      double ms = 0.0;
      bool refused = false;
      const gpuopt_status_t st = time(c.v, c.inner, &ms, &refused);
      if (st != GPUOPT_SUCCESS) return st;
      if (refused) continue;  // cannot happen for a variant that ran; ignore the sample
      c.samples.push_back(ms);
      out->spent_ms += ms * c.inner;
    }
    if (out->spent_ms >= budget_ms) break;
  }
  for (const Candidate& c : cands) {
    const double m = c.samples.empty() ? c.first_ms : median(c.samples);
    if (out->best < 0 || m < out->ms) {
      out->best = c.v;
      out->ms = m;
    }
  }
  return GPUOPT_SUCCESS;
}

}  // namespace gpuopt
