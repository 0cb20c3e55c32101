// What a bench run produces: options, rows, roofs and bars, plus the functions that fill in the
// vendor columns and the bars once every row is measured.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gpuopt.h"

namespace bench {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Options {
  int device = 0;
  int gpus = 0;            // multi-GPU suites: GPUs to use (0: all)
  std::string op = "all";  // "all", a suite of suites.hpp, or "none" (no suite, set internally)
  std::vector<gpuopt_dtype_t> dtypes = {GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F64};          // axpy
  std::vector<std::string> gemm_types = {"f64", "f32", "tf32", "bf16", "bf16_bf16"};  // gemm
  std::vector<std::int64_t> sizes = {std::int64_t{1} << 28};  // axpy elements
  std::vector<std::int64_t> gemm_sizes = {4096, 8192};        // n of the square gemm rows
  std::vector<std::string> variants;                          // empty: all variants plus auto
  int repeats = 20;
  int warmup = 3;
  std::string json_path;  // empty: no JSON file
  bool quick = false;
  bool require_bars = false;  // exit 3 when a bar is missed
  // gemm torch.matmul peer rows (bench/torch_matmul.py): auto runs them when torch imports (else
  // none), on requires them (a row error when torch cannot run), off skips them.
  enum class Torch { automatic, on, off } torch = Torch::automatic;
  bool help = false;
  bool list_suites = false;  // --list-suites: print the default-suite table and exit
  bool tune = false;         // --tune[=FILE]: tune each group's problem, write the cache
  std::string tune_path;     // --tune's FILE ("": tune-<device>.cache in the current directory)
  std::string tune_cache;    // --tune-cache FILE: run with this tuning cache attached
  std::string command_line;

  bool wants_op(const std::string& name) const { return op == "all" || op == name; }
  bool wants_dtype(gpuopt_dtype_t t) const;
  bool wants_gemm_type(const std::string& t) const;  // "f64", "f32", "tf32", "bf16", ...
  // True when variant `name` was asked for (auto: "auto"); the vendor is measured regardless.
  bool wants_variant(const std::string& name) const;
};

// One measured configuration: a row of the ladder table and of the JSON "results".
struct Row {
  std::string op;     // "axpy", "axpy_x1000", "latency", "gemm", ...
  std::string dtype;  // "f32", "f64"; gemm: the config "f64", "f32", "tf32", "bf16", "bf16_bf16"
  std::string shape;  // "n=268435456"; gemm: "4096x4096x4096", "512x(256x256x256)"
  std::int64_t n = 0;
  std::int64_t m = 0, k = 0, batch = 0;  // gemm rows (0 elsewhere)
  std::string a_type, c_type, compute;   // gemm rows: "bf16", "f32", "f32"
  std::string variant;      // variant name, "auto", or for axpy_x1000 "stream" / "graph"
  std::string ran_variant;  // what the dispatcher ran (auto and axpy_x1000 rows)
  std::string memory;       // "device", "compressible"
  std::string data;         // "random", "patterned", "exact"
  int compressed = -1;      // gpuopt_buffer_is_compressed of x and y (1 only when both); -1: n/a
  bool is_vendor = false;
  bool is_peer = false;  // another library's row (gemm: torch.matmul): neither own nor vendor
  bool skipped = false;  // variant cannot run on this device: not a failure
  int calls = 1;         // operations per timed unit (1000 for axpy_x1000)

  double ms = kNaN;  // median per timed unit
  double ms_min = kNaN, ms_max = kNaN;
  int repeats = 0, inner = 0;
  double bytes = 0.0;  // bytes moved per timed unit (gbs = bytes / time)
  double flops = 0.0;  // 0: no TFLOP/s figure (tflops = null)
  double gbs = kNaN, tflops = kNaN, share_of_roof = kNaN;
  bool roof_applies = true;  // false for launch-bound rows (share_of_roof = null)

  std::string vendor;  // name of the vendor variant of this group ("" when none)
  double vendor_ms = kNaN, ratio_to_vendor = kNaN;
  // gemm: re-timed in alternation with the rows it is compared with (suite_gemm.cpp); NaN / ""
  // when that did not run. The best own row: the fastest vendor's ms / its ms, and cublas ms /
  // its ms; the auto row: the fastest row's variant and its ms / auto ms.
  double paired_ratio = kNaN;
  double paired_ratio_cublas = kNaN;
  std::string paired_fastest;
  double paired_ratio_fastest = kNaN;
  // gemm torch.matmul peer rows (torch_peer.cpp): how the helper timed torch ("interleaved" in
  // its process with gpuopt's auto GEMM on the same tensors, or "standalone"); that in-process
  // auto's median ms, the variant it ran and its result's max relative difference from torch's;
  // or why it was not timed there (peer_auto_wrong: its result differed from torch's).
  std::string peer_method;
  double peer_auto_ms = kNaN, peer_auto_rel_err = kNaN;
  std::string peer_auto_variant, peer_auto_error;
  bool peer_auto_wrong = false;

  bool correct = false;
  double rel_err = kNaN;
  std::int64_t bad_elements = -1;  // elements outside the per-element bound; -1: not checked
  std::string error;               // "" when none: a call failed (or the row was skipped)
  std::string mismatch;            // "" when none: how the result differed from the reference
  std::string note;                // "" when none: how it was measured, when unusual

  double speedup = kNaN;  // graph row: stream ms / graph ms

  // Rows with the same group key share a vendor row and a ladder table.
  std::string group_key() const;
  bool failed() const { return !skipped && (!correct || !error.empty()); }
};

struct Roofs {
  double copy_gbs = kNaN;
  double copy_ms = kNaN;
  double copy_bytes = 0.0;  // bytes of each of the two buffers
  std::string copy_error;
};

struct Bar {
  std::string name;
  double value = kNaN;
  std::string target;  // human form: ">= 0.90", "0.95 .. 1.05", "== 1"
  double min = kNaN;   // pass: min <= value (when min is set) and value <= max (when max is set)
  double max = kNaN;
  bool pass = false;
  std::string note;
};

struct DeviceSummary {
  int index = 0;
  std::string name;
  std::string cc;  // "9.0"
  int sm_count = 0;
  std::uint64_t memory = 0, l2 = 0;
  double theoretical_bandwidth_gbs = kNaN;
  int driver_version = 0, runtime_version = 0;
  bool supports_compression = false;
};

// What --tune's gpuopt_tune recorded for one group's problem.
struct TunedProblem {
  std::string problem;  // the group's label ("gemm bf16_f32 8192x8192x1024")
  std::string variant;
  std::string config;  // the variant's run-time configuration; empty: the rung's own rule
  double ms = 0.0;
  int timed = 0, refused = 0;
};

// "fastest sm90_tma_wgmma:coop_c2, 0.2113 ms (20 timed, 0 refused)": the progress line and the
// report's line of a tuned problem (the configuration after a colon; none: the rung's own rule).
std::string tuned_summary(const TunedProblem& t);

// The tuning cache of a run (docs/tuning.md): none, written by --tune, or used (--tune-cache or
// GPUOPT_TUNE_CACHE) so that auto dispatch followed it.
struct TuningInfo {
  std::string mode;  // "", "written", "used"
  std::string file;
  int entries = 0;                  // classes in the context's cache at the end of the run
  std::vector<std::string> errors;  // --tune: problems gpuopt_tune failed on (the run fails)
  std::vector<TunedProblem> tuned;  // --tune: what each tuned problem recorded

  // Auto dispatch follows a cache read at the start (--tune-cache, GPUOPT_TUNE_CACHE): it may run
  // a run-time configuration no forced row runs, and its bars ask for 0.98.
  bool auto_follows_cache() const { return mode == "used" && entries > 0; }
};

struct Results {
  DeviceSummary device;
  std::string gpuopt_version, git, timestamp;
  TuningInfo tuning;
  Roofs roofs;
  std::vector<Row> rows;
  std::vector<Bar> bars;
};

// Fills gbs, tflops, share_of_roof, vendor, vendor_ms and ratio_to_vendor of every row. The vendor
// of a group is its fastest correct vendor row (gemm has two: cublas and cublaslt).
void finish_rows(Results& r);

// Computes the bars from the rows (only those whose rows were planned).
void compute_bars(Results& r, const Options& opt);

// 0: every row correct; 1: a row failed or the roof could not be measured; 3: rows fine but a
// bar was missed and opt.require_bars.
int exit_code(const Results& r, const Options& opt);

// printf-style formatting of one number ("%.3f").
std::string fmt(const char* f, double v);

// Sets b->pass from b->value against b->min / b->max (NaN bounds do not apply; NaN value fails).
void judge(Bar* b);

}  // namespace bench
