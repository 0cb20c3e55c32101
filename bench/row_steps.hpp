// Steps every measured row goes through, for suites that force a variant per row: force it (or
// record the row as skipped), confirm what ran, time the call into the row, and run the row's
// measurement with failures recorded instead of thrown.
#pragma once
#include <functional>
#include <string>

#include "env.hpp"
#include "suite_axpy.hpp"  // VariantSpec, progress_summary

namespace bench {

// Forces v for op (auto: automatic dispatch). False when v is not available here and refused:
// the row is then marked skipped. Throws BenchError on any other failure.
inline bool force_for_row(BenchEnv& env, gpuopt_op_t op, const VariantSpec& v, Row* r) {
  const gpuopt_status_t st =
      gpuopt_context_set_variant(env.ctx, op, v.is_auto ? nullptr : v.name.c_str());
  if (st == GPUOPT_SUCCESS) return true;
  const std::string why = gpuopt_describe(st);
  if (!v.available && st == GPUOPT_ERROR_UNSUPPORTED) {
    r->skipped = true;
    r->error = "skipped: " + why;
    return false;
  }
  throw BenchError(st, why + " [gpuopt_context_set_variant(" + v.name + ")]");
}

// Records what auto ran, or throws when a forced variant is not what ran.
inline void confirm_ran(BenchEnv& env, gpuopt_op_t op, const VariantSpec& v, Row* r) {
  const char* name = nullptr;
  GPUOPT_CHECK(gpuopt_last_variant(env.ctx, op, &name));
  const std::string ran = name ? name : "";
  if (v.is_auto) {
    r->ran_variant = ran;
  } else if (ran != v.name) {
    throw BenchError(GPUOPT_ERROR_INTERNAL,
                     "forced variant " + v.name + " but gpuopt_last_variant reports '" + ran + "'");
  }
}

// Times call (one operation) on the suite's stream into the row's timing fields.
inline void time_into_row(BenchEnv& env, const std::function<void()>& call, Row* r) {
  const Timing t = time_on_stream(
      env.cu, [&](long) { call(); }, env.timer);
  r->ms = t.median_ms;
  r->ms_min = t.min_ms;
  r->ms_max = t.max_ms;
  r->repeats = t.repeats;
  r->inner = t.inner;
}

// Runs measure(r) for a prepared row unless the device is broken or the group's setup failed,
// records a failure in the row, reports progress (summary of the finished row) and appends the row.
inline void run_row(BenchEnv& env, const std::string& label, const VariantSpec& v,
                    const std::string& setup_error, Row r, const std::function<void(Row*)>& measure,
                    std::vector<Row>* rows,
                    const std::function<std::string(const Row&)>& summary = progress_summary) {
  env.progress.start(label);
  if (env.broken()) {
    r.error = "not run: the device is in a sticky error state (" + env.broken_reason() + ")";
  } else if (!setup_error.empty()) {
    r.error = "setup failed: " + setup_error;
  } else {
    try {
      measure(&r);
    } catch (const BenchError& e) {
      env.record_failure(e, v.available, &r);
    }
  }
  env.progress.finish(summary(r));
  rows->push_back(r);
}

// The row a group's bars are read from: its "auto" row when it ran correctly (*which = "auto ran
// X"), else its fastest correct row that is neither the vendor nor excluded (*which = "best own:
// X"); nullptr when none.
inline const Row* headline_row(const Results& res, const std::string& op, const std::string& shape,
                               const std::string& dtype, std::string* which,
                               const std::function<bool(const Row&)>& excluded = nullptr) {
  const Row* best = nullptr;
  for (const Row& row : res.rows) {
    if (row.op != op || row.shape != shape || row.dtype != dtype) continue;
    if (!row.error.empty() || !row.correct) continue;
    if (row.variant == "auto") {
      *which = "auto ran " + row.ran_variant;
      return &row;
    }
    if (!row.is_vendor && !(excluded && excluded(row)) && (!best || row.ms < best->ms)) best = &row;
  }
  if (best) *which = "best own: " + best->variant;
  return best;
}

}  // namespace bench
