// The one path from a validated entry point to a kernel: choose the variant (forced or auto),
// log the decision, launch it on the caller's stream with the plan its check made (if any) and
// remember what ran.
#pragma once
#include <string>

#include "api/tuned_choice.hpp"
#include "runtime/context.hpp"
#include "runtime/deviceless.hpp"
#include "runtime/error.hpp"
#include "runtime/log.hpp"
#include "runtime/registry.hpp"
#include "runtime/stream.hpp"

namespace gpuopt {

template <class Problem, class Describe>
gpuopt_status_t run_dispatched(const char* fn, Context& ctx, Stream& s, gpuopt_op_t op,
                               const Variant<Problem>* table, int count, const Problem& p,
                               gpuopt_dtype_t dtype, Describe&& describe) {
  PlanStorage plan;  // filled by a planning variant's check, read by its launcher; no allocation
  const int forced = probe_forced(
      op, p, dtype, ctx.forced[op].load(std::memory_order_relaxed),
      [&] { return choose_variant(table, count, p, dtype, ctx.desc, -1, false, &plan).index; });
  const int tuned = forced < 0 ? tuned_choice(ctx, op, count, p, dtype) : -1;
  const bool trace = log_enabled(LogLevel::debug);
  Choice c =
      choose_variant(table, count, p, dtype, ctx.desc, tuned >= 0 ? tuned : forced, trace, &plan);
  bool cached = tuned >= 0;
  if (c.index < 0 && cached) {  // the recorded choice refuses this problem: the rules decide
    cached = false;
    if (log_enabled(LogLevel::debug))
      log(LogLevel::debug, "%s %s: the tuning cache's %s refuses it (%s); the rules decide",
          op_table(op)->op_name, describe().c_str(), choice_name(*op_table(op), tuned).c_str(),
          c.reason.c_str());
    c = choose_variant(table, count, p, dtype, ctx.desc, forced, trace, &plan);
  }
  if (c.index < 0) {
    log(LogLevel::info, "%s %s: no variant (%s)", op_table(op)->op_name, describe().c_str(),
        c.reason.c_str());
    return fail(c.status, fn, "%s", c.reason.c_str());
  }
  if (log_enabled(LogLevel::info))
    log(LogLevel::info, "%s %s -> %s (%s)%s%s", op_table(op)->op_name, describe().c_str(),
        choice_name(*op_table(op), pack_choice(c.index, c.config)).c_str(),
        forced >= 0 ? "forced"
        : cached    ? "tuning cache"
                    : "auto",
        trace ? "; candidates: " : "", trace ? c.trace.c_str() : "");
  if (!deviceless_active()) {
    GPUOPT_TRY(stream_ready(fn, s));
    ExecEnv env = exec_env(fn, s);
    if (c.planned) env.plan = &plan;
    env.config = c.config;
    env.config_forced = forced >= 0;
    GPUOPT_TRY(table[c.index].launch(p, env));
  }
  ctx.last[op].store(c.index, std::memory_order_relaxed);
  return GPUOPT_SUCCESS;
}

}  // namespace gpuopt
