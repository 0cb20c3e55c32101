// The tuning cache's entry points: attach a cache file, count its classes, and gpuopt_tune, which
// times every variant of an op (and the run-time configurations of the rungs that have some) on
// the caller's problem and records the fastest (docs/tuning.md).
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "runtime/context.hpp"
#include "runtime/error.hpp"
#include "runtime/log.hpp"
#include "runtime/registry.hpp"
#include "runtime/stream.hpp"
#include "runtime/tune_cache.hpp"
#include "runtime/tune_probe.hpp"
#include "runtime/tune_search.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace gpuopt {
thread_local TuneProbe* t_tune_probe = nullptr;
}  // namespace gpuopt

namespace {

constexpr std::size_t kMinResultSize = offsetof(gpuopt_tune_result_t, refused) + sizeof(int);
constexpr std::size_t kConfigResultSize =
    offsetof(gpuopt_tune_result_t, config) + sizeof(const char*);

// Installs a probe on this thread for the probe's lifetime.
class ProbeScope {
 public:
  explicit ProbeScope(gpuopt::TuneProbe* p) { gpuopt::t_tune_probe = p; }
  ~ProbeScope() { gpuopt::t_tune_probe = nullptr; }
  ProbeScope(const ProbeScope&) = delete;
  ProbeScope& operator=(const ProbeScope&) = delete;
};

// Two CUDA events, destroyed with the object.
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  ~EventPair() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
};

// Times `inner` calls of the callback with the probe forcing candidate `choice` (a packed variant
// and configuration).
gpuopt_status_t time_calls(const char* fn, gpuopt::TuneProbe& probe, const EventPair& ev,
                           cudaStream_t stream, gpuopt_tune_call_fn call, void* user, int choice,
                           int inner, double* ms, bool* refused) {
  probe.variant = choice;
  *refused = false;
  GPUOPT_TRY_CUDA(cudaEventRecord(ev.start, stream), fn, "cudaEventRecord");
  for (int i = 0; i < inner; ++i) {
    const int before = probe.calls;
    const gpuopt_status_t st = call(user);
    if (st == GPUOPT_ERROR_UNSUPPORTED && probe.calls > before) {
      *refused = true;  // it reached the dispatcher, which could not run the candidate
      GPUOPT_TRY_CUDA(cudaEventRecord(ev.stop, stream), fn, "cudaEventRecord");
      GPUOPT_TRY_CUDA(cudaEventSynchronize(ev.stop), fn, "cudaEventSynchronize");
      return GPUOPT_SUCCESS;
    }
    if (st != GPUOPT_SUCCESS) return st;
    if (probe.calls == before)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "call made no %s call on this thread (it must call the tuned op once)",
                  gpuopt::op_table(probe.op)->op_name);
  }
  GPUOPT_TRY_CUDA(cudaEventRecord(ev.stop, stream), fn, "cudaEventRecord");
  GPUOPT_TRY_CUDA(cudaEventSynchronize(ev.stop), fn, "cudaEventSynchronize");
  float elapsed = 0.0f;
  GPUOPT_TRY_CUDA(cudaEventElapsedTime(&elapsed, ev.start, ev.stop), fn, "cudaEventElapsedTime");
  *ms = static_cast<double>(elapsed) / inner;
  return GPUOPT_SUCCESS;
}

}  // namespace

extern "C" {

GPUOPT_API gpuopt_status_t gpuopt_context_set_tune_cache(gpuopt_context_t ctx, const char* path) {
  static const char* fn = "gpuopt_context_set_tune_cache";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    if (path && !*path)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "path is empty; pass a file name, or NULL to detach the cache");
    ctx->tune.attach(path, gpuopt::tune_stamp_of(ctx->info));
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_context_tune_cache_entries(gpuopt_context_t ctx, int* entries) {
  static const char* fn = "gpuopt_context_tune_cache_entries";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    if (!entries) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "entries is NULL");
    *entries = ctx->tune.entries();
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_tune(gpuopt_context_t ctx, gpuopt_stream_t stream, gpuopt_op_t op,
                                       gpuopt_tune_call_fn call, void* user, double budget_seconds,
                                       gpuopt_tune_result_t* result) {
  static const char* fn = "gpuopt_tune";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    GPUOPT_TRY(gpuopt::check_stream(fn, stream, ctx));
    const gpuopt::OpTable* table = gpuopt::op_table(op);
    if (!table)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "op is %d, not a gpuopt_op_t value",
                  static_cast<int>(op));
    if (!call) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "call is NULL");
    if (!(budget_seconds > 0.0) || !std::isfinite(budget_seconds))
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "budget_seconds is %g; expected a positive, finite number of seconds",
                  budget_seconds);
    if (result && result->struct_size < kMinResultSize)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "result->struct_size is %zu; set it to sizeof(gpuopt_tune_result_t) (%zu)",
                  result->struct_size, sizeof(gpuopt_tune_result_t));
    if (gpuopt::t_tune_probe)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "called from inside another gpuopt_tune's call (tuning does not nest)");
    GPUOPT_TRY(gpuopt::check_not_capturing(fn));
    GPUOPT_TRY(gpuopt::make_current(fn, *ctx));
    EventPair ev;
    GPUOPT_TRY_CUDA(cudaEventCreate(&ev.start), fn, "cudaEventCreate");
    GPUOPT_TRY_CUDA(cudaEventCreate(&ev.stop), fn, "cudaEventCreate");

    gpuopt::TuneProbe probe;
    probe.op = op;
    gpuopt::TuneOutcome out;
    // Candidate i < table->count is variant i under its own rule, so the rules' choice the
    // dispatcher notes (a variant index) is its candidate index.
    const std::vector<int> cands = gpuopt::tune_candidates(*table);
    {
      ProbeScope scope(&probe);
      GPUOPT_TRY(gpuopt::tune_search(
          static_cast<int>(cands.size()), budget_seconds * 1e3,
          [&](int i, int inner, double* ms, bool* refused) {
            return time_calls(fn, probe, ev, stream->stream, call, user,
                              cands[static_cast<std::size_t>(i)], inner, ms, refused);
          },
          &out, &probe.rule));
    }
    if (probe.mixed)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "call's %s calls were of more than one problem class (docs/tuning.md): tune one "
                  "problem per gpuopt_tune",
                  table->op_name);
    if (out.best < 0)
      return fail(GPUOPT_ERROR_UNSUPPORTED, fn, "no %s variant can run the problem (%d refused)",
                  table->op_name, out.refused);
    const int best = cands[static_cast<std::size_t>(out.best)];
    gpuopt::TuneEntry e;
    e.op = op;
    e.key = probe.key;
    e.variant = gpuopt::choice_variant(best);
    e.config = gpuopt::choice_config(best);
    e.ms = out.ms;
    std::string why;
    const bool written = ctx->tune.record(e, &why);
    if (result) {
      const gpuopt::VariantMeta& meta = table->meta(e.variant);
      result->variant = meta.name;
      result->ms = out.ms;
      result->timed = out.timed;
      result->refused = out.refused;
      if (result->struct_size >= kConfigResultSize)
        result->config = e.config < 0 ? nullptr : meta.configs.names[e.config];
    }
    const std::string runner_up =
        out.runner_up < 0
            ? std::string()
            : gpuopt::choice_name(*table, cands[static_cast<std::size_t>(out.runner_up)]);
    if (out.rule_kept)
      gpuopt::log(gpuopt::LogLevel::info,
                  "tuned %s (%d candidates timed, %d refused, %.0f ms; the rules' choice, kept: "
                  "%s was %.1f%% faster over %d head-to-head rounds, within the %.0f%% margin)",
                  gpuopt::format_tune_entry(e).c_str(), out.timed, out.refused, out.spent_ms,
                  runner_up.c_str(), (1.0 / out.margin - 1.0) * 100.0, out.duel_rounds,
                  (gpuopt::kTuneRuleMargin - 1.0) * 100.0);
    else if (out.runner_up >= 0)
      gpuopt::log(gpuopt::LogLevel::info,
                  "tuned %s (%d candidates timed, %d refused, %.0f ms; runner-up %s %.1f%% "
                  "slower over %d head-to-head rounds)",
                  gpuopt::format_tune_entry(e).c_str(), out.timed, out.refused, out.spent_ms,
                  runner_up.c_str(), (out.margin - 1.0) * 100.0, out.duel_rounds);
    else
      gpuopt::log(gpuopt::LogLevel::info, "tuned %s (%d candidates timed, %d refused, %.0f ms)",
                  gpuopt::format_tune_entry(e).c_str(), out.timed, out.refused, out.spent_ms);
    if (!written)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "the tuning cache file could not be written (%s); the result is cached in "
                  "this context only",
                  why.c_str());
    return GPUOPT_SUCCESS;
  });
}

}  // extern "C"
