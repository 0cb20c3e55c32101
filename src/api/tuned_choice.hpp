// The tuning cache's two hooks into run_dispatched (dispatch.hpp): the variant gpuopt_tune is
// timing on this thread, and the variant the context's tuning cache records for the problem's
// class, each with its run-time configuration (a packed choice, registry.hpp). Both cost one
// load when unused (no cache attached, no gpuopt_tune running).
#pragma once
#include "api/tune_keys.hpp"
#include "runtime/context.hpp"
#include "runtime/registry.hpp"
#include "runtime/tune_probe.hpp"

namespace gpuopt {

// Inside gpuopt_tune's callback on this thread (same op): notes the problem's class, at the
// first dispatch also the variant the preference rules choose for it (`rule()`, called only then:
// the search holds the rules' choice to a margin, runtime/tune_search.hpp), and returns the
// candidate being timed. Otherwise `forced`, at the cost of one thread-local load.
template <class Problem, class Rule>
int probe_forced(gpuopt_op_t op, const Problem& p, gpuopt_dtype_t dtype, int forced, Rule&& rule) {
  TuneProbe* probe = t_tune_probe;
  if (!probe || probe->op != op) return forced;
  probe->note(tune_key(p, dtype));
  if (probe->calls == 1) probe->rule = rule();
  return probe->variant;
}

// The variant (and configuration) the context's tuning cache records for p's class; -1 without
// a cache or an entry. run_dispatched runs it as if forced, and when it refuses this particular
// problem (a class spans sizes and alignments) lets the preference rules decide instead.
template <class Problem>
int tuned_choice(const Context& ctx, gpuopt_op_t op, int count, const Problem& p,
                 gpuopt_dtype_t dtype) {
  const TuneTable* t = ctx.tune.table();
  if (!t) return -1;
  const int i = t->find(op, tune_key(p, dtype));
  return choice_variant(i) < count ? i : -1;
}

}  // namespace gpuopt
