// gpuopt-bench: the ladder tables of gpuopt's kernel variants against the vendor library and the
// copy roof, measured in one run on one GPU. See bench/README.md and docs/architecture.md.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <string>

#include "check.hpp"
#include "cli.hpp"
#include "env.hpp"
#include "export_json.hpp"
#include "report.hpp"
#include "roofs.hpp"
#include "suite_axpy.hpp"
#include "suite_gdn.hpp"
#include "suite_gemm.hpp"
#include "suite_graph.hpp"
#include "suite_latency.hpp"
#include "suite_multi_gpu.hpp"
#include "suite_reduce.hpp"
#include "suite_segmented_sort.hpp"
#include "suite_stencil.hpp"
#include "suite_torch.hpp"
#include "suite_transpose.hpp"
#include "suites.hpp"
#include "torch_peer.hpp"
#include "tuning.hpp"

#ifndef GPUOPT_BENCH_GIT
#define GPUOPT_BENCH_GIT ""
#endif

namespace bench {
namespace {

constexpr int kExitNoDevice = 77;  // ctest SKIP_RETURN_CODE

std::string utc_timestamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string git_version() {
  const char* env = std::getenv("GPUOPT_GIT");
  if (env && *env) return env;
  const std::string built = GPUOPT_BENCH_GIT;
  return built.empty() ? "unknown" : built;
}

DeviceSummary summarize(const gpuopt_device_info_t& info) {
  DeviceSummary d;
  d.index = info.device;
  d.name = info.name;
  d.cc = std::to_string(info.cc_major) + "." + std::to_string(info.cc_minor);
  d.sm_count = info.sm_count;
  d.memory = info.total_memory;
  d.l2 = info.l2_cache_bytes;
  d.theoretical_bandwidth_gbs = info.theoretical_bandwidth_gbs;
  d.driver_version = info.driver_version;
  d.runtime_version = info.runtime_version;
  d.supports_compression = info.supports_compression != 0;
  return d;
}

void warn_status(gpuopt_status_t s, const char* what) {
  if (s != GPUOPT_SUCCESS) {
    std::fprintf(stderr, "[bench] warning: %s failed: %s\n", what, gpuopt_describe(s).c_str());
  }
}

// Every --variants name must be a variant of one of the tables the selected ops use.
void check_variant_names(const Options& opt,
                         const std::vector<const std::vector<VariantSpec>*>& tables) {
  std::vector<std::string> known = {"auto"};
  for (const std::vector<VariantSpec>* table : tables) {
    for (const VariantSpec& v : *table) {
      if (std::find(known.begin(), known.end(), v.name) == known.end()) known.push_back(v.name);
    }
  }
  for (const std::string& name : opt.variants) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    throw UsageError("--variants: no variant '" + name + "' (known: " + list + ")");
  }
}

// opt for the suites of one table: op "none" when --variants names nothing of the table (so
// `--variants sm90_tma_wgmma` runs no axpy rows and `--variants vec4_gridstride` no gemm rows).
Options narrowed(const Options& opt, const std::vector<VariantSpec>& table) {
  Options o = opt;
  if (opt.variants.empty()) return o;
  for (const std::string& name : opt.variants) {
    if (name == "auto") return o;
    for (const VariantSpec& v : table) {
      if (v.name == name) return o;
    }
  }
  o.op = "none";
  return o;
}

int run(Options opt) {
  gpuopt_context_t ctx = nullptr;
  gpuopt_status_t st = gpuopt_context_create(opt.device, &ctx);
  if (st == GPUOPT_ERROR_NO_DEVICE) {
    std::fprintf(stderr, "no CUDA device: %s\n", gpuopt_message().c_str());
    return kExitNoDevice;
  }
  if (st != GPUOPT_SUCCESS) {
    std::fprintf(stderr, "gpuopt-bench: cannot use device %d: %s\n", opt.device,
                 gpuopt_describe(st).c_str());
    return st == GPUOPT_ERROR_INVALID_ARGUMENT ? 2 : 1;
  }

  BenchEnv env;
  env.ctx = ctx;
  env.opt = opt;
  env.timer.warmup = opt.warmup;
  env.timer.repeats = opt.repeats;
  Results res;
  int code = 1;
  try {
    env.info.struct_size = sizeof(env.info);
    GPUOPT_CHECK(gpuopt_context_device_info(ctx, &env.info));
    res.device = summarize(env.info);
    res.gpuopt_version = gpuopt_version_string();
    res.git = git_version();
    res.timestamp = utc_timestamp();
    // The bench's own CUDA calls (fills, events, the roof) go to the same device.
    CUDA_CHECK(cudaSetDevice(opt.device));
    GPUOPT_CHECK(gpuopt_stream_create(ctx, &env.stream));
    void* native = nullptr;
    GPUOPT_CHECK(gpuopt_stream_native(env.stream, &native));
    env.cu = static_cast<cudaStream_t>(native);
    tuning_setup(ctx, opt, env.info, &res.tuning);
    env.auto_follows_cache = res.tuning.auto_follows_cache();

    const std::vector<VariantSpec> table = list_variants(ctx, GPUOPT_OP_AXPY);
    const std::vector<VariantSpec> gemm_table = list_variants(ctx, GPUOPT_OP_GEMM);
    const std::vector<VariantSpec> reduce_table = list_variants(ctx, GPUOPT_OP_REDUCE);
    const std::vector<VariantSpec> stencil_table = list_variants(ctx, GPUOPT_OP_STENCIL);
    const std::vector<VariantSpec> gdn_table = list_variants(ctx, GPUOPT_OP_GDN);
    const std::vector<VariantSpec> transpose_table = list_variants(ctx, GPUOPT_OP_TRANSPOSE);
    const std::vector<VariantSpec> sort_table = list_variants(ctx, GPUOPT_OP_SEGMENTED_SORT);
    std::vector<const std::vector<VariantSpec>*> tables;
    if (opt.wants_op("axpy") || opt.wants_op("axpy_x1000")) tables.push_back(&table);
    if (opt.wants_op("gemm")) tables.push_back(&gemm_table);
    if (opt.wants_op("reduce")) tables.push_back(&reduce_table);
    if (opt.wants_op("stencil")) tables.push_back(&stencil_table);
    if (opt.wants_op("gdn")) tables.push_back(&gdn_table);
    if (opt.wants_op("transpose")) tables.push_back(&transpose_table);
    if (opt.wants_op("segmented_sort")) tables.push_back(&sort_table);
    check_variant_names(opt, tables);
    const Options axpy_opt = narrowed(opt, table);
    const Options gemm_opt = narrowed(opt, gemm_table);
    const std::vector<AxpyGroup> groups = plan_axpy(axpy_opt, table);
    const std::vector<GemmGroup> gemm_groups = plan_gemm(gemm_opt, gemm_table);
    const Options reduce_opt = narrowed(opt, reduce_table);
    const std::vector<ReduceGroup> reduce_groups = plan_reduce(reduce_opt, reduce_table);
    const Options stencil_opt = narrowed(opt, stencil_table);
    const std::vector<StencilGroup> stencil_groups = plan_stencil(stencil_opt, stencil_table);
    const Options gdn_opt = narrowed(opt, gdn_table);
    const std::vector<GdnGroup> gdn_groups = plan_gdn(gdn_opt, gdn_table);
    int total = 1 + graph_row_count(axpy_opt) + latency_row_count(opt) +
                gemm_row_count(gemm_groups) + torch_step_count(gemm_opt, gemm_groups) +
                reduce_row_count(reduce_groups) + stencil_row_count(stencil_groups) +
                gdn_row_count(gdn_groups);
    const Options transpose_opt = narrowed(opt, transpose_table);
    const std::vector<TransposeGroup> transpose_groups =
        plan_transpose(transpose_opt, transpose_table);
    total += transpose_row_count(transpose_groups);
    const Options sort_opt = narrowed(opt, sort_table);
    const std::vector<SortGroup> sort_groups = plan_segmented_sort(sort_opt, sort_table);
    total += segmented_sort_row_count(sort_groups);
    for (const AxpyGroup& g : groups) total += static_cast<int>(g.variants.size());
    if (opt.tune) {  // a gpuopt_tune step per group of the tuned ops
      total += static_cast<int>(gemm_groups.size() + reduce_groups.size() + stencil_groups.size() +
                                transpose_groups.size() + sort_groups.size());
    }
    env.progress.set_total(total);
    env.staging_hint = axpy_copy_back_bytes(groups);

    std::fprintf(stderr, "[bench] %s, cc %s, %d SMs; %d steps\n", res.device.name.c_str(),
                 res.device.cc.c_str(), res.device.sm_count, total);
    env.progress.start("copy roof (device-to-device, 2 x 2 GiB)");
    TimerConfig roof_timer = env.timer;
    roof_timer.warmup = std::max(2, opt.warmup);
    measure_copy_roof(env.cu, roof_timer, &res.roofs);
    env.progress.finish(res.roofs.copy_error.empty()
                            ? std::to_string(static_cast<long>(res.roofs.copy_gbs)) + " GB/s"
                            : "ERROR " + res.roofs.copy_error);

    env.opt = axpy_opt;
    for (const AxpyGroup& g : groups) run_axpy_group(env, g, &res.rows);
    run_graph_suite(env, &res.rows);
    env.opt = opt;
    run_latency_suite(env, &res.rows);
    env.opt = gemm_opt;
    for (const GemmGroup& g : gemm_groups) run_gemm_group(env, g, &res.rows);
    run_torch_peer(env, gemm_groups, res.tuning, &res.rows);
    env.opt = reduce_opt;
    for (const ReduceGroup& g : reduce_groups) run_reduce_group(env, g, &res.rows);
    env.opt = stencil_opt;
    for (const StencilGroup& g : stencil_groups) run_stencil_group(env, g, &res.rows);
    env.opt = gdn_opt;
    run_gdn_groups(env, gdn_groups, &res.rows);
    env.opt = transpose_opt;
    for (const TransposeGroup& g : transpose_groups) run_transpose_group(env, g, &res.rows);
    env.opt = sort_opt;
    for (const SortGroup& g : sort_groups) run_segmented_sort_group(env, g, &res.rows);
    env.opt = opt;
    run_multi_gpu_suites(env, &res);

    finish_rows(res);
    compute_bars(res, axpy_opt);
    compute_latency_bars(res, opt);
    compute_gemm_bars(res, gemm_groups);
    compute_torch_bars(res);
    compute_reduce_bars(res, reduce_groups);
    compute_stencil_bars(res, stencil_groups);
    compute_gdn_bars(res, gdn_groups);
    compute_transpose_bars(res, transpose_groups);
    compute_segmented_sort_bars(res, sort_groups);
    compute_multi_gpu_bars(res);
    res.tuning.entries = tuning_entries(ctx);
    res.tuning.errors = env.tuning_errors;
    res.tuning.tuned = env.tuned;
    code = exit_code(res, opt);
    if (code != 1 && !res.tuning.errors.empty()) code = 1;
  } catch (const UsageError&) {
    env.release();
    warn_status(gpuopt_stream_destroy(env.stream), "gpuopt_stream_destroy");
    warn_status(gpuopt_context_destroy(ctx), "gpuopt_context_destroy");
    throw;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\ngpuopt-bench: fatal: %s\n", e.what());
    code = 1;
  }
  env.release();
  warn_status(gpuopt_stream_destroy(env.stream), "gpuopt_stream_destroy");
  warn_status(gpuopt_context_destroy(ctx), "gpuopt_context_destroy");

  print_report(stdout, res);
  if (!opt.json_path.empty()) {
    try {
      write_file(opt.json_path, results_json(res, opt));
      std::fprintf(stderr, "[bench] wrote %s\n", opt.json_path.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gpuopt-bench: %s\n", e.what());
      code = 1;
    }
  }
  if (code == 1) std::fprintf(stderr, "[bench] FAILED: see the rows marked ERROR or NO above\n");
  if (code == 3) std::fprintf(stderr, "[bench] a bar was missed (--require-bars)\n");
  return code;
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--dist-worker")
    return bench::dist_worker_main(argc, argv);
  bench::Options opt;
  try {
    opt = bench::parse_args(argc, argv);
    if (opt.help) {
      std::fputs(bench::usage().c_str(), stdout);
      return 0;
    }
    if (opt.list_suites) {
      std::fputs(bench::suites_markdown().c_str(), stdout);
      return 0;
    }
    return bench::run(opt);
  } catch (const bench::UsageError& e) {
    std::fprintf(stderr, "gpuopt-bench: %s (try --help)\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuopt-bench: fatal: %s\n", e.what());
    return 1;
  }
}
