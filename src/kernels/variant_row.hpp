// Builds the rows of the ops' variant tables (runtime/registry.hpp's Variant) with named steps, so
// that a row states only what sets its variant apart. A row starts from what every variant lists
// (name, technique, dtypes) and the defaults: any device, own code (not a vendor library), no
// can_implement check, no plan step, rank 0, no run-time configurations; its last step names the
// launcher and gives the table entry, so a row without a launcher does not compile. For example
//   VariantRow<AxpyProblem>("naive", "one thread per element", kFloat)
//       .can(naive_can)
//       .rank<10>()
//       .launch(axpy_launch_naive)
// Shared by every op's <op>_table.cpp; the steps are constexpr, so the tables stay constants.
#pragma once
#include "runtime/registry.hpp"

namespace gpuopt {

// A preference that does not depend on the problem: rank N everywhere.
template <class Problem, int N>
int fixed_rank(const Problem&, const DeviceDesc&) {
  return N;
}

template <class Problem>
class VariantRow {
 public:
  using Check = const char* (*)(const Problem&, const DeviceDesc&);
  using Rank = int (*)(const Problem&, const DeviceDesc&);
  using Launch = gpuopt_status_t (*)(const Problem&, const ExecEnv&);
  using Plan = const char* (*)(const Problem&, const DeviceDesc&, int config, PlanStorage*);

  constexpr VariantRow(const char* name, const char* technique, unsigned dtype_mask)
      : v_{{name, technique, 0, 0, false, dtype_mask}, nullptr, nullptr, nullptr} {}

  // Runs on compute capability >= cc.
  constexpr VariantRow min_sm(int cc) const {
    VariantRow r = *this;
    r.v_.meta.min_cc = cc;
    return r;
  }
  // Arch-specific code (sm_90a): runs only on compute capability cc.
  constexpr VariantRow exact_sm(int cc) const {
    VariantRow r = *this;
    r.v_.meta.exact_cc = cc;
    return r;
  }
  // sm_90a code: needs compute capability 9.0 and runs on nothing else.
  constexpr VariantRow sm90a() const { return min_sm(90).exact_sm(90); }
  // A vendor library's routine (cuBLAS, CUB), not own code.
  constexpr VariantRow vendor() const {
    VariantRow r = *this;
    r.v_.meta.is_vendor = true;
    return r;
  }
  // can_implement: nullptr when the variant can run the problem, else the reason.
  constexpr VariantRow can(Check check) const {
    VariantRow r = *this;
    r.v_.can_implement = check;
    return r;
  }
  // The plan step that checks as can_implement does and leaves the launch plan (Variant::plan).
  constexpr VariantRow plan(Plan step) const {
    VariantRow r = *this;
    r.v_.plan = step;
    return r;
  }
  // Run-time configurations the tuning search times and a cache may record (VariantConfigs):
  // names[0 .. N-1]; rule: the one the rung's own rule always picks, or -1.
  template <int N>
  constexpr VariantRow configs(const char* const (&names)[N], int rule = -1) const {
    VariantRow r = *this;
    r.v_.meta.configs = VariantConfigs{names, N, rule};
    return r;
  }
  // Preference among the variants that can run a problem (higher wins).
  constexpr VariantRow rank(Rank preference) const {
    VariantRow r = *this;
    r.v_.preference = preference;
    return r;
  }
  template <int N>
  constexpr VariantRow rank() const {
    return rank(fixed_rank<Problem, N>);
  }

  // The launcher; the finished table entry.
  constexpr Variant<Problem> launch(Launch launcher) const {
    Variant<Problem> v = v_;
    v.launch = launcher;
    return v;
  }

 private:
  Variant<Problem> v_;
};

// An op's table as its <op>_variants(count) returns it: the first entry, and the count in *count.
template <class Problem, int N>
const Variant<Problem>* table_entries(const Variant<Problem> (&table)[N], int* count) {
  *count = N;
  return table;
}

}  // namespace gpuopt
