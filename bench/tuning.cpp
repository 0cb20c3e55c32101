#include "tuning.hpp"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "check.hpp"

namespace bench {
namespace {

// gpuopt_tune's callback: runs the std::function, turning its BenchError into the status.
gpuopt_status_t call_once(void* user) {
  try {
    (*static_cast<const std::function<void()>*>(user))();
    return GPUOPT_SUCCESS;
  } catch (const BenchError& e) {
    return e.status();
  } catch (...) {
    return GPUOPT_ERROR_INTERNAL;  // never unwind through the library
  }
}

// gpuopt_tune of op on the problem `call` runs: what it recorded. Throws BenchError.
TunedProblem tune_problem(BenchEnv& env, gpuopt_op_t op, const std::function<void()>& call,
                          double budget_seconds) {
  gpuopt_tune_result_t r{};
  r.struct_size = sizeof r;
  const gpuopt_status_t st =
      gpuopt_tune(env.ctx, env.stream, op, call_once, const_cast<std::function<void()>*>(&call),
                  budget_seconds, &r);
  if (st != GPUOPT_SUCCESS) throw BenchError(st, gpuopt_describe(st));
  TunedProblem t;
  t.variant = r.variant ? r.variant : "";
  t.config = r.config ? r.config : "";
  t.ms = r.ms;
  t.timed = r.timed;
  t.refused = r.refused;
  return t;
}

}  // namespace

std::string device_slug(const std::string& name) {
  std::string s;
  for (char c : name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      s += static_cast<char>(std::tolower(u));
    } else if (!s.empty() && s.back() != '-') {
      s += '-';
    }
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s.empty() ? "device" : s;
}

int tuning_entries(gpuopt_context_t ctx) {
  int n = 0;
  GPUOPT_CHECK(gpuopt_context_tune_cache_entries(ctx, &n));
  return n;
}

void tuning_setup(gpuopt_context_t ctx, const Options& opt, const gpuopt_device_info_t& info,
                  TuningInfo* t) {
  if (opt.tune) {
    t->mode = "written";
    t->file = opt.tune_path.empty() ? "tune-" + device_slug(info.name) + ".cache" : opt.tune_path;
    if (std::remove(t->file.c_str()) != 0 && errno != ENOENT)
      throw BenchError(GPUOPT_ERROR_INVALID_ARGUMENT,
                       "--tune: cannot replace " + t->file + ": " + std::strerror(errno));
    GPUOPT_CHECK(gpuopt_context_set_tune_cache(ctx, t->file.c_str()));
    std::fprintf(stderr, "[bench] tuning: each group's problem, into %s\n", t->file.c_str());
  } else if (!opt.tune_cache.empty()) {
    t->mode = "used";
    t->file = opt.tune_cache;
    GPUOPT_CHECK(gpuopt_context_set_tune_cache(ctx, t->file.c_str()));
  } else if (tuning_entries(ctx) > 0) {
    t->mode = "used";  // GPUOPT_TUNE_CACHE
    const char* env = std::getenv("GPUOPT_TUNE_CACHE");
    t->file = env ? env : "";
  }
  t->entries = tuning_entries(ctx);
  if (t->mode == "used") {
    std::fprintf(stderr, "[bench] tuning cache %s: %d classes%s\n", t->file.c_str(), t->entries,
                 t->entries ? ""
                            : " (WARNING: stale, malformed or missing: auto follows the built-in "
                              "rules; GPUOPT_LOG=info says why)");
  }
}

void tune_step(BenchEnv& env, const std::string& setup_error, const std::string& label,
               gpuopt_op_t op, const std::function<void()>& call, double budget_seconds) {
  if (!env.opt.tune || env.broken() || !setup_error.empty()) return;
  env.progress.start(label + " gpuopt_tune");
  try {
    TunedProblem t = tune_problem(env, op, call, budget_seconds);
    t.problem = label;
    env.progress.finish(tuned_summary(t));
    env.tuned.push_back(std::move(t));
  } catch (const BenchError& e) {
    env.tuning_errors.push_back(label + ": gpuopt_tune: " + e.what());
    env.note_error();
    env.progress.finish(std::string("ERROR ") + e.what());
  }
}

}  // namespace bench
