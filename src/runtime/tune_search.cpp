#include "runtime/tune_search.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/registry.hpp"

namespace gpuopt {
namespace {

struct Candidate {
  int v;
  double first_ms;
  int inner = 1;
  std::vector<double> samples;  // stage 2
};

// The search's state: the caller's clock and what it has spent.
class Search {
 public:
  Search(const TuneTimeFn& time, TuneOutcome* out, double warm_ms)
      : time_(time), out_(out), warm_ms_(warm_ms) {}

  // Untimed calls of c lasting at least warm_ms (at c's first call's pace), so that the sample
  // after them runs at the clock c's own power sets. Counted as spent.
  gpuopt_status_t warm(const Candidate& c) {
    if (!(warm_ms_ > 0.0)) return GPUOPT_SUCCESS;
    const double calls = std::ceil(warm_ms_ / std::max(c.first_ms, 1e-4));
    const int n =
        calls >= kTuneMaxWarmCalls ? kTuneMaxWarmCalls : std::max(1, static_cast<int>(calls));
    double ms = 0.0;
    bool ok = false;
    return sample(c.v, n, &ms, &ok);
  }

  // One sample of `inner` calls of v into *ms; *ok false when v refused (it cannot, once it ran:
  // the sample is ignored then). Any other failure is returned.
  gpuopt_status_t sample(int v, int inner, double* ms, bool* ok) {
    bool refused = false;
    const gpuopt_status_t st = time_(v, inner, ms, &refused);
    *ok = st == GPUOPT_SUCCESS && !refused;
    if (*ok) out_->spent_ms += *ms * inner;
    return st;
  }

  // Stage 1: each variant warm, then once timed. Fills *cands with those that ran.
  gpuopt_status_t first_calls(int count, std::vector<Candidate>* cands) {
    for (int v = count - 1; v >= 0; --v) {
      double warm = 0.0, first = 0.0;
      bool refused = false;
      gpuopt_status_t st = time_(v, 1, &warm, &refused);  // first call: one-time costs land here
      if (st == GPUOPT_SUCCESS && !refused) st = time_(v, 1, &first, &refused);
      if (st != GPUOPT_SUCCESS) return st;
      if (refused) {
        ++out_->refused;
        continue;
      }
      ++out_->timed;
      out_->spent_ms += warm + first;
      cands->push_back(Candidate{v, first, 1, {}});
    }
    return GPUOPT_SUCCESS;
  }

  // Stage 2: interleaved rounds, each starting one candidate later, until `until_ms` is spent.
  gpuopt_status_t rounds(std::vector<Candidate>* cands, double until_ms) {
    const std::size_t n = cands->size();
    for (int round = 0; round < kTuneMaxRounds; ++round) {
      for (std::size_t j = 0; j < n; ++j) {
        Candidate& c = (*cands)[(j + static_cast<std::size_t>(round)) % n];
        double ms = 0.0;
        bool ok = false;
        gpuopt_status_t st = warm(c);
        if (st == GPUOPT_SUCCESS) st = sample(c.v, c.inner, &ms, &ok);
        if (st != GPUOPT_SUCCESS) return st;
        if (ok) c.samples.push_back(ms);
      }
      if (out_->spent_ms >= until_ms) break;
    }
    return GPUOPT_SUCCESS;
  }

  // Stage 3: a and b head to head (a, b, then b, a, ...) until budget_ms is spent; the samples of
  // the rounds where both ran.
  gpuopt_status_t duel(const Candidate& a, const Candidate& b, double budget_ms,
                       std::vector<double>* a_ms, std::vector<double>* b_ms) {
    const int inner = std::max(a.inner, b.inner);  // samples of the same length
    for (int round = 0; round < kTuneDuelMaxRounds; ++round) {
      if (round >= kTuneDuelMinRounds && out_->spent_ms >= budget_ms) break;
      double ms[2] = {0.0, 0.0};
      bool ok[2] = {false, false};
      for (int k = 0; k < 2; ++k) {
        const int side = round % 2 == 0 ? k : 1 - k;
        const Candidate& c = side == 0 ? a : b;
        gpuopt_status_t st = warm(c);
        if (st == GPUOPT_SUCCESS) st = sample(c.v, inner, &ms[side], &ok[side]);
        if (st != GPUOPT_SUCCESS) return st;
      }
      if (ok[0] && ok[1]) {
        a_ms->push_back(ms[0]);
        b_ms->push_back(ms[1]);
      }
    }
    return GPUOPT_SUCCESS;
  }

 private:
  const TuneTimeFn& time_;
  TuneOutcome* out_;
  double warm_ms_;
};

}  // namespace

std::vector<int> tune_candidates(const OpTable& table) {
  std::vector<int> out;
  for (int v = 0; v < table.count; ++v) out.push_back(v);
  for (int v = 0; v < table.count; ++v) {
    const VariantConfigs& c = table.meta(v).configs;
    for (int i = 0; i < c.count; ++i)
      if (i != c.rule) out.push_back(pack_choice(v, i));
  }
  return out;
}

double tune_median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

void tune_top_two(const std::vector<double>& medians, int* first, int* second) {
  *first = *second = -1;
  for (int i = 0; i < static_cast<int>(medians.size()); ++i) {
    const double m = medians[static_cast<std::size_t>(i)];
    if (*first < 0 || m < medians[static_cast<std::size_t>(*first)]) {
      *second = *first;
      *first = i;
    } else if (*second < 0 || m < medians[static_cast<std::size_t>(*second)]) {
      *second = i;
    }
  }
}

double tune_duel_ratio(const std::vector<double>& a_ms, const std::vector<double>& b_ms) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < std::min(a_ms.size(), b_ms.size()); ++i) {
    if (a_ms[i] > 0.0 && std::isfinite(a_ms[i]) && std::isfinite(b_ms[i]))
      ratios.push_back(b_ms[i] / a_ms[i]);
  }
  return ratios.empty() ? 1.0 : tune_median(ratios);
}

gpuopt_status_t tune_search(int count, double budget_ms, const TuneTimeFn& time, TuneOutcome* out,
                            const int* rule, double warm_ms) {
  *out = TuneOutcome{};
  Search search(time, out, warm_ms);
  std::vector<Candidate> cands;
  gpuopt_status_t st = search.first_calls(count, &cands);
  if (st != GPUOPT_SUCCESS || cands.empty()) return st;
  double best_first = INFINITY;
  for (const Candidate& c : cands) best_first = std::min(best_first, c.first_ms);
  cands.erase(
      std::remove_if(cands.begin(), cands.end(),
                     [&](const Candidate& c) { return c.first_ms > kTuneDropFactor * best_first; }),
      cands.end());
  for (Candidate& c : cands) {
    const double per = std::max(c.first_ms, 1e-4);
    c.inner = std::clamp(static_cast<int>(std::ceil(kTuneMinSampleMs / per)), 1, kTuneMaxInner);
  }

  st = search.rounds(&cands, kTuneRoundsShare * budget_ms);
  if (st != GPUOPT_SUCCESS) return st;
  std::vector<double> medians;
  for (const Candidate& c : cands)
    medians.push_back(c.samples.empty() ? c.first_ms : tune_median(c.samples));
  int first = -1, second = -1;
  tune_top_two(medians, &first, &second);
  const int rule_v = rule ? *rule : -1;
  for (int i = 0; i < static_cast<int>(cands.size()); ++i)  // the rules' choice is the opponent
    if (cands[static_cast<std::size_t>(i)].v == rule_v && i != first) second = i;
  const Candidate& a = cands[static_cast<std::size_t>(first)];
  out->best = a.v;
  out->ms = medians[static_cast<std::size_t>(first)];
  if (second < 0) return GPUOPT_SUCCESS;

  const Candidate& b = cands[static_cast<std::size_t>(second)];
  std::vector<double> a_ms, b_ms;
  st = search.duel(a, b, budget_ms, &a_ms, &b_ms);
  if (st != GPUOPT_SUCCESS) return st;
  out->duel_rounds = static_cast<int>(a_ms.size());
  out->runner_up = b.v;
  if (a_ms.empty()) {  // no round where both ran: stage 2's ranking stands
    out->margin = medians[static_cast<std::size_t>(second)] / std::max(out->ms, 1e-12);
    return GPUOPT_SUCCESS;
  }
  const double ratio = tune_duel_ratio(a_ms, b_ms);  // above 1: a faster
  // a wins on any lead, except against the rules' choice, which keeps its place unless beaten by
  // more than kTuneRuleMargin.
  const bool a_wins = a.v == rule_v   ? ratio * kTuneRuleMargin >= 1.0
                      : b.v == rule_v ? ratio > kTuneRuleMargin
                                      : ratio >= 1.0;
  out->rule_kept = a_wins ? a.v == rule_v && ratio < 1.0 : b.v == rule_v && ratio > 1.0;
  if (a_wins) {
    out->ms = tune_median(a_ms);
    out->margin = ratio;
  } else {
    out->best = b.v;
    out->runner_up = a.v;
    out->ms = tune_median(b_ms);
    out->margin = 1.0 / ratio;
  }
  return GPUOPT_SUCCESS;
}

}  // namespace gpuopt
