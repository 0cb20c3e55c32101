#include "gemm_bars.hpp"

#include <cmath>

namespace bench {
namespace {

constexpr double kAutoSlack = 0.97;  // auto's pick may be 3% slower than the fastest (noise)
// With a tuning cache auto runs what gpuopt_tune measured fastest: within 2% (issue 19).
constexpr double kAutoSlackTuned = 0.98;

// The other vendor rows' rates, for the note: " (cublas 55.2)".
std::string other_vendors(const std::vector<const Row*>& rows, const Row* vendor) {
  std::string s;
  for (const Row* row : rows) {
    if (row->is_vendor && row != vendor && usable_gemm_row(*row))
      s += (s.empty() ? "" : ", ") + row->variant + " " + fmt("%.1f", row->tflops);
  }
  return s.empty() ? s : " (" + s + ")";
}

// Best own variant / cublas (vs_cublas) or / the fastest vendor.
Bar own_bar(const GemmBarSpec& spec, const std::vector<const Row*>& rows, const GemmPicks& p,
            bool vs_cublas) {
  Bar b;
  b.name = spec.label + (vs_cublas ? ": best own / cublas" : ": best own / best vendor");
  b.min = spec.own_min;
  b.target = ">= " + fmt("%.2f", spec.own_min);
  const Row* ref = vs_cublas ? p.cublas : p.vendor;
  const Row* best = p.best_own;
  if (ref && best) {
    const double paired = vs_cublas ? best->paired_ratio_cublas : best->paired_ratio;
    const double by_rows = ref->ms / best->ms;
    b.value = std::isfinite(paired) ? paired : by_rows;
    b.note = "best " + best->variant + " " + fmt("%.1f", best->tflops) + " vs " + ref->variant +
             " " + fmt("%.1f", ref->tflops) + " TFLOP/s" + other_vendors(rows, ref) +
             (std::isfinite(paired) ? "; interleaved, rows " + fmt("%.3f", by_rows) : "");
  } else if (!ref) {
    b.note = vs_cublas ? "no correct cublas row" : "no correct vendor row";
  } else {
    b.note = "no correct own variant";
  }
  judge(&b);
  return b;
}

// The fastest correct variant's ms / ms of the variant auto ran: the interleaved re-timing of
// auto against the fastest row's variant when the suite recorded one (it does where auto ran
// another variant, and with a tuning cache always: auto may run a run-time configuration of the
// fastest row's variant that its forced row, under the rung's own rule, does not; it may then
// beat every row); else 1 when auto ran the fastest row's variant; else the rows (auto's forced
// row, or the auto row).
Bar auto_bar(const GemmBarSpec& spec, const GemmPicks& p) {
  Bar b;
  b.name = spec.label + ": auto ran the fastest";
  b.min = spec.tuned ? kAutoSlackTuned : kAutoSlack;
  b.target = ">= " + fmt("%.2f", b.min) + (spec.tuned ? " (tuning cache)" : "");
  if (!p.ran || !p.fastest) {
    b.note = !p.fastest ? "no correct variant" : "the auto row failed";
    judge(&b);
    return b;
  }
  const Row& a = *p.autorow;
  const double by_rows = p.fastest->ms / p.ran->ms;
  const bool paired =
      a.paired_fastest == p.fastest->variant && std::isfinite(a.paired_ratio_fastest);
  b.value = paired ? a.paired_ratio_fastest : a.ran_variant == p.fastest->variant ? 1.0 : by_rows;
  b.note = "auto ran " + a.ran_variant + " (" + fmt("%.4f", p.ran->ms) + " ms); fastest " +
           p.fastest->variant + " (" + fmt("%.4f", p.fastest->ms) + " ms)" +
           (paired ? "; interleaved, rows " + fmt("%.3f", by_rows) : "");
  judge(&b);
  return b;
}

}  // namespace

bool usable_gemm_row(const Row& r) {
  return r.error.empty() && !r.skipped && r.correct && std::isfinite(r.ms);
}

GemmPicks pick_gemm_rows(const std::vector<const Row*>& rows) {
  GemmPicks p;
  auto faster = [](const Row* r, const Row* than) { return !than || r->ms < than->ms; };
  for (const Row* r : rows) {
    if (r->is_peer) continue;
    if (r->variant == "auto") {
      p.autorow = r;
      continue;
    }
    if (!usable_gemm_row(*r)) continue;
    if (faster(r, p.fastest)) p.fastest = r;
    if (r->is_vendor) {
      if (faster(r, p.vendor)) p.vendor = r;
      if (r->variant == kGemmCublas) p.cublas = r;
    } else if (faster(r, p.best_own)) {
      p.best_own = r;
    }
  }
  if (p.autorow && usable_gemm_row(*p.autorow)) {
    p.ran = p.autorow;
    for (const Row* r : rows) {
      if (!r->is_peer && r->variant == p.autorow->ran_variant && usable_gemm_row(*r)) p.ran = r;
    }
  }
  return p;
}

void append_gemm_bars(const GemmBarSpec& spec, const std::vector<const Row*>& rows,
                      std::vector<Bar>* bars) {
  const GemmPicks p = pick_gemm_rows(rows);
  if (std::isfinite(spec.own_min)) {
    bars->push_back(own_bar(spec, rows, p, true));
    bars->push_back(own_bar(spec, rows, p, false));
  }
  if (spec.auto_bar) bars->push_back(auto_bar(spec, p));
}

}  // namespace bench
