// --tune and --tune-cache (docs/tuning.md): attaching the context's tuning cache before the
// suites run, and tuning one problem with gpuopt_tune.
#pragma once
#include <functional>
#include <string>

#include "env.hpp"
#include "results.hpp"

namespace bench {

// Seconds of measurement gpuopt_tune gets per problem (gpuopt_tune's budget_seconds).
constexpr double kTuneBudgetSeconds = 2.0;
// A GEMM class has about 15 candidates (variants, the sm90 rung's schedules and clusters,
// cuBLASLt's ranked algorithms), and each stage-2 sample follows 100 ms of warm-up at the power
// cap (docs/tuning.md): 2 s gave stage 2 one round and the head-to-head 3, too few for
// contenders within 2 % (two classes of the f01215c run cached a choice 2.8 and 4.4 % slower
// than the fastest). 8 s gives about 4 rounds and 9.
constexpr double kTuneBudgetSecondsGemm = 8.0;

// "nvidia-h100-80gb-hbm3" for "NVIDIA H100 80GB HBM3": lower case, runs of other characters '-'.
std::string device_slug(const std::string& name);

// --tune: removes the cache file and attaches it empty (each tuned problem then rewrites it);
// --tune-cache: attaches the file and warns when it holds nothing for this device; neither: notes
// a cache GPUOPT_TUNE_CACHE attached at context creation. Fills *t; throws BenchError.
void tuning_setup(gpuopt_context_t ctx, const Options& opt, const gpuopt_device_info_t& info,
                  TuningInfo* t);

// Classes in the context's cache now (the JSON's tuning.entries).
int tuning_entries(gpuopt_context_t ctx);

// --tune: when the group's setup succeeded, gpuopt_tune of op on the problem `call` runs (one
// gpuopt call of op on env.stream, throwing BenchError when it fails) as a progress step named
// label, with budget_seconds of measurement; a failure is noted in env.tuning_errors (the run then
// fails). Nothing without --tune.
void tune_step(BenchEnv& env, const std::string& setup_error, const std::string& label,
               gpuopt_op_t op, const std::function<void()>& call,
               double budget_seconds = kTuneBudgetSeconds);

}  // namespace bench
