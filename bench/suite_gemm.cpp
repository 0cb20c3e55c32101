// The gemm rows. For each row: force the variant (or restore auto), draw fresh inputs, poison C
// with NaN, run one call, compute the reference with the vendor in f64 on the same inputs and
// compare on the device, then time the variant (median of CUDA-event samples, repeats cut so that a
// row takes about a second; a call over 2 s is timed once). Inputs are not rotated: A and B of
// every default shape are larger than the L2, and a gemm reads them many times per call anyway.
#include "suite_gemm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>

#include "call_count.hpp"
#include "check.hpp"
#include "data_gen.hpp"
#include "gemm_bars.hpp"
#include "gemm_device.hpp"
#include "gemm_ref.hpp"
#include "row_steps.hpp"
#include "tuning.hpp"

namespace bench {
namespace {

constexpr double kOnceMs = 2000.0;       // a call slower than this is timed once
constexpr double kRowBudgetMs = 1000.0;  // timed samples of one row
constexpr double kWarmBudgetMs = 100.0;  // extra warm-up calls after the probe
constexpr double kMinSampleMs = 0.5;     // a sample times enough calls to last this long
constexpr int kMaxInner = 64;
constexpr std::int64_t kTextbookMaxN = 4096;
// The interleaved re-timing the bars read (time_interleaved_gemm): 9 rounds of samples lasting at
// least 4 ms each. With 5 rounds of 0.5 ms samples (2-3 calls at 4096^3) a ratio of two kernels
// within 1% of each other moved by 3% from run to run (tf32 4096^3: 1.011, then 0.976), while a
// probe with 20-call samples repeated within 1% (docs/notes/gemm-sm90.md).
constexpr int kPairRounds = 9;
constexpr double kPairSampleMs = 4.0;
// Each variant's turn starts with warm-up calls lasting at least kPairWarmMs. Large gemms run at
// the board's power cap (H100 SXM: 700 W in f64, tf32, bf16), where the clock is set by the power
// the work draws, and after a switch the clock takes 25-50 ms to settle: with 1 warm-up call the
// samples ran at the clock the previous variant left, and f64 4096^3 read own / cuBLAS 0.99 where
// each alone at the cap reads 1.037 (own sustains a higher clock: less energy per flop); with
// 50-100 ms of warm-up the interleave reads 1.03-1.05 (docs/notes/history/f64-power.md).
constexpr double kPairWarmMs = 100.0;
constexpr int kMaxPairWarmup = 4096;

const char* compute_name(gpuopt_compute_t c) {
  switch (c) {
    case GPUOPT_COMPUTE_F64:
      return "f64";
    case GPUOPT_COMPUTE_F32:
      return "f32";
    case GPUOPT_COMPUTE_TF32:
      return "tf32";
    default:
      return "default";
  }
}

std::vector<GemmConfig> all_configs() {
  return {{"f64", GPUOPT_DTYPE_F64, GPUOPT_DTYPE_F64, GPUOPT_COMPUTE_F64},
          {"f32", GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F32, GPUOPT_COMPUTE_F32},
          {"tf32", GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F32, GPUOPT_COMPUTE_TF32},
          {"bf16", GPUOPT_DTYPE_BF16, GPUOPT_DTYPE_F32, GPUOPT_COMPUTE_F32},
          {"bf16_bf16", GPUOPT_DTYPE_BF16, GPUOPT_DTYPE_BF16, GPUOPT_COMPUTE_F32}};
}

// The floor of best own / cublas and best own / best vendor: issue 19 asks for 1.0 in f64, f32,
// tf32 and bf16 (f32 output) at 4096^3 and 8192^3; elsewhere issue 3's floors stand.
double bar_for(const GemmConfig& c, GemmShapeKind kind, std::int64_t n) {
  if (kind != GemmShapeKind::kSquare) return 0.80;
  const bool issue19_type =
      c.name == "f64" || c.name == "f32" || c.name == "tf32" || c.name == "bf16";
  if (issue19_type && (n == 4096 || n == 8192)) return 1.00;
  return c.name == "tf32" ? 0.80 : 0.85;
}

// The group has an own variant (neither vendor nor auto): the best own bars.
bool has_own(const GemmGroup& g) {
  for (const VariantSpec& v : g.variants) {
    if (!v.is_vendor && !v.is_auto) return true;
  }
  return false;
}

gpuopt_gemm_desc_t make_desc(const GemmGroup& g, gpuopt_dtype_t ab, gpuopt_dtype_t c,
                             gpuopt_compute_t compute) {
  gpuopt_gemm_desc_t d{};
  d.struct_size = sizeof(d);
  d.trans_a = GPUOPT_TRANS_N;
  d.trans_b = GPUOPT_TRANS_N;
  d.m = g.m;
  d.n = g.n;
  d.k = g.k;
  d.alpha = 1.0;
  d.beta = 0.0;
  d.a_type = ab;
  d.c_type = c;
  d.compute = compute;
  d.lda = g.m;
  d.ldb = g.k;
  d.ldc = g.m;
  d.batch_count = g.batch;
  d.stride_a = g.m * g.k;
  d.stride_b = g.k * g.n;
  d.stride_c = g.m * g.n;
  return d;
}

struct Operands {
  std::unique_ptr<DeviceBuffer> a, b, c;   // the row's types
  std::unique_ptr<DeviceBuffer> a64, b64;  // upcast copies (not for f64 inputs)
  std::unique_ptr<DeviceBuffer> ref;       // f64 reference C
  std::unique_ptr<DeviceBuffer> parts;     // kGemmCheckParts GemmCheckPart
  std::int64_t elems_a = 0, elems_b = 0, elems_c = 0;
};

void allocate(BenchEnv& env, const GemmGroup& g, Operands* o) {
  o->elems_a = g.m * g.k * g.batch;
  o->elems_b = g.k * g.n * g.batch;
  o->elems_c = g.m * g.n * g.batch;
  const std::size_t ea = gemm_elem_bytes(g.cfg.a_type), ec = gemm_elem_bytes(g.cfg.c_type);
  auto make = [&](std::int64_t elems, std::size_t es) {
    return std::make_unique<DeviceBuffer>(env.ctx, static_cast<std::size_t>(elems) * es,
                                          GPUOPT_MEMORY_DEVICE);
  };
  o->a = make(o->elems_a, ea);
  o->b = make(o->elems_b, ea);
  o->c = make(o->elems_c, ec);
  if (g.cfg.a_type != GPUOPT_DTYPE_F64) {
    o->a64 = make(o->elems_a, sizeof(double));
    o->b64 = make(o->elems_b, sizeof(double));
  }
  o->ref = make(o->elems_c, sizeof(double));
  o->parts = make(kGemmCheckParts, sizeof(GemmCheckPart));
}

gpuopt_status_t force(BenchEnv& env, const VariantSpec& v) {
  return gpuopt_context_set_variant(env.ctx, GPUOPT_OP_GEMM, v.is_auto ? nullptr : v.name.c_str());
}

std::string last_variant(gpuopt_context_t ctx) {
  const char* name = nullptr;
  GPUOPT_CHECK(gpuopt_last_variant(ctx, GPUOPT_OP_GEMM, &name));
  return name ? name : "";
}

void gemm_call(BenchEnv& env, const gpuopt_gemm_desc_t& d, const void* a, const void* b, void* c) {
  const gpuopt_status_t st = gpuopt_gemm(env.ctx, env.stream, &d, a, b, c);
  if (st != GPUOPT_SUCCESS) throw BenchError(st, gpuopt_describe(st));
}

TimerConfig single_call() {
  TimerConfig t;
  t.warmup = 0;
  t.repeats = 1;
  t.inner = 1;
  return t;
}

void set_timing(const Timing& t, Row* r) {
  r->ms = t.median_ms;
  r->ms_min = t.min_ms;
  r->ms_max = t.max_ms;
  r->repeats = t.repeats;
  r->inner = t.inner;
}

std::string seconds(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f s", ms * 1e-3);
  return buf;
}

// Times the row after its checked call took first_ms: a probe call (the first warm-up), then as
// many samples as fit the row budget (naive: 1 warm-up and 3 samples), or the checked call or
// the probe alone when one call takes over 2 s.
void time_row(BenchEnv& env, const VariantSpec& v, double first_ms,
              const std::function<void(long)>& call, Row* r) {
  if (first_ms > kOnceMs) {
    Timing once;
    once.median_ms = once.min_ms = once.max_ms = first_ms;
    once.repeats = once.inner = 1;
    set_timing(once, r);
    r->note = "timed once: the checked call took " + seconds(first_ms) + " (over 2 s)";
    return;
  }
  const Timing probe = time_on_stream(env.cu, call, single_call());
  const double t1 = std::max(probe.median_ms, 1e-3);
  if (t1 > kOnceMs) {
    set_timing(probe, r);
    r->note = "timed once: one call takes " + seconds(t1) + " (over 2 s)";
    return;
  }
  TimerConfig tc = env.timer;
  tc.sync_each = false;
  const int max_repeats = std::max(1, env.timer.repeats);
  if (v.name == "naive") {
    tc.warmup = 0;  // the probe was the one warm-up
    tc.inner = 1;
    tc.repeats = std::min(3, max_repeats);
  } else {
    const int extra_warmup = std::max(0, env.timer.warmup - 1);
    tc.warmup = std::min(extra_warmup, static_cast<int>(kWarmBudgetMs / t1));
    tc.inner = calls_lasting(kMinSampleMs, t1, kMaxInner);
    const double fit = std::floor(kRowBudgetMs / (t1 * tc.inner));
    tc.repeats = static_cast<int>(std::clamp(fit, 1.0, static_cast<double>(max_repeats)));
  }
  const Timing t = time_on_stream(env.cu, call, tc);
  set_timing(t, r);
  if (t.repeats < 3 && t.repeats < max_repeats) {
    r->note = "slow: " + std::to_string(t.repeats) + " timed sample(s) (about 1 s per row)";
  }
}

// Everything a row does on the device; throws BenchError on the first failed call.
void measure(BenchEnv& env, const GemmGroup& g, const VariantSpec& v, const Operands& o, Row* r) {
  // Can the device run the variant at all?
  gpuopt_status_t st = force(env, v);
  if (st != GPUOPT_SUCCESS) {
    std::string why = gpuopt_describe(st);
    if (!v.available && st == GPUOPT_ERROR_UNSUPPORTED) {
      r->skipped = true;
      r->error = "skipped: " + why;
      return;
    }
    throw BenchError(st, why + " [gpuopt_context_set_variant(" + v.name + ")]");
  }

  // Fresh inputs, and one call on C poisoned with NaN (beta = 0 must not read it).
  const std::uint64_t seed = env.next_seed();
  gemm_fill(o.a->device_ptr(), g.cfg.a_type, o.elems_a, seed, kStreamX, env.cu);
  gemm_fill(o.b->device_ptr(), g.cfg.a_type, o.elems_b, seed, kStreamY, env.cu);
  gemm_poison(o.c->device_ptr(), o.c->bytes(), env.cu);
  const gpuopt_gemm_desc_t d = make_desc(g, g.cfg.a_type, g.cfg.c_type, g.cfg.compute);
  const auto call = [&](long) {
    gemm_call(env, d, o.a->device_ptr(), o.b->device_ptr(), o.c->device_ptr());
  };
  Timing first;
  try {
    first = time_on_stream(env.cu, call, single_call());
  } catch (const BenchError& e) {
    if (e.status() == GPUOPT_ERROR_UNSUPPORTED && !v.is_vendor && !v.is_auto) {
      r->skipped = true;  // this variant does not implement this problem: not a failure
      r->error = std::string("skipped: ") + e.what();
      return;
    }
    throw;
  }
  const std::string ran = last_variant(env.ctx);
  if (v.is_auto) {
    r->ran_variant = ran;
  } else if (ran != v.name) {
    throw BenchError(GPUOPT_ERROR_INTERNAL,
                     "forced variant " + v.name + " but gpuopt_last_variant reports '" + ran + "'");
  }

  // The reference: the vendor in f64 on the same inputs (upcast where they are not f64).
  const void* a64 = o.a->device_ptr();
  const void* b64 = o.b->device_ptr();
  if (o.a64) {
    gemm_upcast(o.a->device_ptr(), g.cfg.a_type, o.elems_a,
                static_cast<double*>(o.a64->device_ptr()), env.cu);
    gemm_upcast(o.b->device_ptr(), g.cfg.a_type, o.elems_b,
                static_cast<double*>(o.b64->device_ptr()), env.cu);
    a64 = o.a64->device_ptr();
    b64 = o.b64->device_ptr();
  }
  gemm_poison(o.ref->device_ptr(), o.ref->bytes(), env.cu);
  GPUOPT_CHECK(gpuopt_context_set_variant(env.ctx, GPUOPT_OP_GEMM, g.reference.c_str()));
  const gpuopt_gemm_desc_t d64 =
      make_desc(g, GPUOPT_DTYPE_F64, GPUOPT_DTYPE_F64, GPUOPT_COMPUTE_F64);
  try {
    gemm_call(env, d64, a64, b64, o.ref->device_ptr());
  } catch (const BenchError& e) {
    throw BenchError(e.status(), std::string("reference (") + g.reference + " f64): " + e.what());
  }
  GPUOPT_CHECK(force(env, v));

  // Compare on the device, judge on the host.
  gemm_compare(o.c->device_ptr(), g.cfg.c_type, static_cast<const double*>(o.ref->device_ptr()),
               o.elems_c, static_cast<GemmCheckPart*>(o.parts->device_ptr()), env.cu);
  std::vector<GemmCheckPart> parts(kGemmCheckParts);
  const void* host = env.copy_back(*o.parts, 0, parts.size() * sizeof(GemmCheckPart));
  std::memcpy(parts.data(), host, parts.size() * sizeof(GemmCheckPart));
  const GemmVerdict vd = gemm_judge(parts, gemm_tolerance(g.cfg.name), g.m, g.n,
                                    static_cast<std::uint64_t>(o.elems_c));
  if (!vd.reference_ok) {
    throw BenchError(GPUOPT_ERROR_INTERNAL, "reference (" + g.reference + " f64): " + vd.mismatch);
  }
  r->rel_err = vd.rel_err;
  r->correct = vd.correct;
  r->mismatch = vd.mismatch;
  r->bad_elements = static_cast<std::int64_t>(vd.nonfinite);

  time_row(env, v, first.median_ms, call, r);
  if (v.is_auto && last_variant(env.ctx) != r->ran_variant) {
    throw BenchError(GPUOPT_ERROR_INTERNAL, "auto chose '" + r->ran_variant +
                                                "' when checked but '" + last_variant(env.ctx) +
                                                "' when timed");
  }
}

std::string label(const GemmGroup& g, const std::string& variant) {
  return "gemm " + g.cfg.name + " " + gemm_shape_name(g) + " " + variant;
}

std::string summary(const Row& r) {
  if (r.skipped) return r.error;
  std::string s;
  char buf[128];
  if (std::isfinite(r.ms)) {
    std::snprintf(buf, sizeof(buf), "%.4g ms, %.1f TFLOP/s", r.ms, r.flops / (r.ms * 1e-3) / 1e12);
    s = buf;
  }
  if (!r.ran_variant.empty()) s += ", ran " + r.ran_variant;
  if (!r.error.empty()) return s + (s.empty() ? "" : ", ") + "ERROR " + r.error;
  if (!r.correct) return s + ", WRONG: " + r.mismatch;
  std::snprintf(buf, sizeof(buf), ", correct (rel_err %.1e)", r.rel_err);
  s += buf;
  if (!r.note.empty()) s += "; " + r.note;
  return s;
}

}  // namespace

bool is_textbook_gemm(const std::string& variant) {
  return variant == "naive" || variant == "smem_tiled" || variant == "smem_coalesced_padded" ||
         variant == "register_blocked";
}

std::string gemm_shape_name(const GemmGroup& g) {
  const std::string mnk =
      std::to_string(g.m) + "x" + std::to_string(g.n) + "x" + std::to_string(g.k);
  return g.batch > 1 ? std::to_string(g.batch) + "x(" + mnk + ")" : mnk;
}

std::vector<GemmGroup> plan_gemm(const Options& opt, const std::vector<VariantSpec>& table) {
  std::vector<GemmGroup> groups;
  if (!opt.wants_op("gemm")) return groups;
  std::string reference;
  for (const VariantSpec& v : table) {
    // The first vendor that has f64 (cublas): the reference of every row.
    if (v.is_vendor && (v.dtype_mask & (1u << GPUOPT_DTYPE_F64)) && reference.empty())
      reference = v.name;
  }
  auto add = [&](const GemmConfig& cfg, GemmShapeKind kind, std::int64_t m, std::int64_t n,
                 std::int64_t k, std::int64_t batch) {
    if (!opt.wants_gemm_type(cfg.name)) return;
    GemmGroup g;
    g.cfg = cfg;
    g.kind = kind;
    g.m = m;
    g.n = n;
    g.k = k;
    g.batch = batch;
    g.reference = reference;
    g.bar_min = bar_for(cfg, kind, n);
    const bool textbook_ok =
        !opt.variants.empty() || (kind == GemmShapeKind::kSquare && n <= kTextbookMaxN);
    bool any = false;
    for (const VariantSpec& v : table) {
      if (!(v.dtype_mask & (1u << static_cast<unsigned>(cfg.a_type)))) continue;
      const bool chosen = opt.wants_variant(v.name) && (textbook_ok || !is_textbook_gemm(v.name));
      any = any || chosen;
      if (chosen || v.is_vendor) g.variants.push_back(v);
    }
    append_auto(opt, &g.variants, &any);
    // The auto bar compares auto with every variant: only when all were measured.
    g.auto_bar =
        opt.variants.empty() && std::any_of(g.variants.begin(), g.variants.end(),
                                            [](const VariantSpec& v) { return v.is_auto; });
    if (any) groups.push_back(g);  // nothing asked for here: no vendor row alone
  };
  const std::vector<GemmConfig> configs = all_configs();
  for (std::int64_t n : opt.gemm_sizes) {
    for (const GemmConfig& c : configs) add(c, GemmShapeKind::kSquare, n, n, n, 1);
  }
  const std::int64_t rect_mn = opt.quick ? 2048 : 8192, rect_k = opt.quick ? 256 : 1024;
  const std::int64_t batch = opt.quick ? 64 : 512, side = opt.quick ? 128 : 256;
  for (const GemmConfig& c : configs) {
    if (c.name == "f64" || c.name == "tf32") continue;
    add(c, GemmShapeKind::kRect, rect_mn, rect_mn, rect_k, 1);
  }
  for (const GemmConfig& c : configs) {
    if (c.name == "f64" || c.name == "tf32") continue;
    add(c, GemmShapeKind::kBatched, side, side, side, batch);
  }
  return groups;
}

int gemm_row_count(const std::vector<GemmGroup>& groups) {
  int rows = 0;
  for (const GemmGroup& g : groups) {
    rows += static_cast<int>(g.variants.size());
    rows += has_own(g) ? 1 : 0;  // the own-vs-vendor re-timing
    rows += g.auto_bar ? 1 : 0;  // the auto-vs-fastest re-timing (or its "nothing to re-time")
  }
  return rows;
}

Row gemm_row_base(const GemmGroup& g) {
  Row r;
  r.op = "gemm";
  r.dtype = g.cfg.name;
  r.shape = gemm_shape_name(g);
  r.m = g.m;
  r.n = g.n;
  r.k = g.k;
  r.batch = g.batch;
  r.a_type = dtype_str(g.cfg.a_type);
  r.c_type = dtype_str(g.cfg.c_type);
  r.compute = compute_name(g.cfg.compute);
  r.memory = "device";
  r.data = "random";
  r.flops = 2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k) *
            static_cast<double>(g.batch);
  r.roof_applies = false;  // compute-bound: the vendor ratio is the figure
  return r;
}

// Re-times variants of the group's problem in alternation ("auto": automatic dispatch, which
// follows the tuning cache when one is attached), so that they see the same clocks and heat: in a
// long run the machine's state drifts between rows that run seconds apart
// (docs/notes/history/gemm-runs.md: 0.747 in the full run, 0.940 alone, same kernel; on the H100
// rows of near-equal variants a minute apart differ by up to 8%). kPairRounds rounds of all of
// them (time_interleaved), each warm-up calls lasting kPairWarmMs and 3 samples of enough calls to
// last kPairSampleMs, at ms_hint per call. Returns each round's median per variant
// ([variant][round]): ratios are taken round by round (paired_ratio), so a slow round counts
// against both variants. Auto must run auto_ran throughout.
std::vector<std::vector<double>> time_interleaved_gemm(BenchEnv& env, const GemmGroup& g,
                                                       const Operands& o,
                                                       const std::vector<std::string>& variants,
                                                       double ms_hint,
                                                       const std::string& auto_ran) {
  const gpuopt_gemm_desc_t d = make_desc(g, g.cfg.a_type, g.cfg.c_type, g.cfg.compute);
  const auto call = [&](long) {
    gemm_call(env, d, o.a->device_ptr(), o.b->device_ptr(), o.c->device_ptr());
  };
  TimerConfig tc = env.timer;
  tc.sync_each = false;
  const double per_call = std::max(ms_hint, 1e-3);
  tc.warmup = calls_lasting(kPairWarmMs, per_call, kMaxPairWarmup);
  tc.repeats = 3;
  tc.inner = calls_lasting(kPairSampleMs, per_call, kMaxInner);
  int selected = -1;
  const auto check_auto = [&] {
    if (selected < 0 || variants[static_cast<std::size_t>(selected)] != "auto") return;
    const std::string ran = last_variant(env.ctx);
    if (ran != auto_ran)
      throw BenchError(GPUOPT_ERROR_INTERNAL,
                       "auto ran '" + auto_ran + "' in its row but '" + ran + "' when re-timed");
  };
  const auto select = [&](int i) {
    check_auto();
    const std::string& v = variants[static_cast<std::size_t>(i)];
    GPUOPT_CHECK(
        gpuopt_context_set_variant(env.ctx, GPUOPT_OP_GEMM, v == "auto" ? nullptr : v.c_str()));
    selected = i;
  };
  std::vector<std::vector<double>> ms =
      time_interleaved(env.cu, static_cast<int>(variants.size()), kPairRounds, select, call, tc);
  check_auto();
  return ms;
}

// Median over rounds of (the fastest of `refs` in the round) / num in the round: the paired ratio
// of two interleaved timings (ms[variant][round]).
double paired_ratio(const std::vector<std::vector<double>>& ms,
                    const std::vector<std::size_t>& refs, std::size_t num) {
  std::vector<double> ratios;
  for (std::size_t r = 0; r < ms[num].size(); ++r) {
    double ref = INFINITY;
    for (std::size_t i : refs) ref = std::min(ref, ms[i][r]);
    ratios.push_back(ref / ms[num][r]);
  }
  return median(ratios);
}

// A progress step that re-times for a bar: run() returns the summary; a failure is recorded in
// the row `blame` (the bar then reads the rows alone).
void retime_step(BenchEnv& env, const std::string& what, Row* blame,
                 const std::function<std::string()>& run) {
  env.progress.start(what);
  try {
    env.progress.finish(run());
  } catch (const BenchError& e) {
    env.record_failure(e, true, blame);
    env.progress.finish(std::string("ERROR ") + e.what());
  }
}

// A re-timing step that does not run (counted in the progress total all the same).
void skip_step(BenchEnv& env, const std::string& what, const std::string& why) {
  env.progress.start(what);
  env.progress.finish(why);
}

// The interleaved re-timings the bars read (gemm_bars.cpp), on the group's rows from `first`:
// the best own variant with every vendor (one run of the three: best own / cublas and best own /
// best vendor), and auto with the fastest row's variant when auto ran another one, or, when auto
// follows a tuning cache read at the start, always (it may run a configuration of that variant
// its forced row does not; when the group has the auto bar).
void retime_for_bars(BenchEnv& env, const GemmGroup& g, const Operands& o, std::size_t first,
                     const std::string& setup_error, std::vector<Row>* rows) {
  std::vector<const Row*> view;
  for (std::size_t i = first; i < rows->size(); ++i) view.push_back(&(*rows)[i]);
  GemmPicks p = pick_gemm_rows(view);
  const auto row = [&](const Row* r) {
    return &(*rows)[static_cast<std::size_t>(r - rows->data())];
  };
  const auto blocked = [&]() -> std::string {
    if (env.broken()) return "not run: the device is in a sticky error state";
    return setup_error.empty() ? "" : "not run: setup failed";
  };

  if (has_own(g)) {
    std::string why = blocked();
    if (why.empty() && !(p.best_own && p.vendor))
      why = "nothing to re-time: no correct own or vendor row";
    if (!why.empty()) {
      skip_step(env, label(g, "best own vs vendors interleaved"), why);
    } else {
      std::vector<std::string> names = {p.best_own->variant};
      std::string vs;
      for (const Row* r : view) {
        if (!r->is_vendor || r->is_peer || !usable_gemm_row(*r)) continue;
        vs += (names.size() > 1 ? ", " : "") + r->variant;
        names.push_back(r->variant);
      }
      Row* own = row(p.best_own);
      retime_step(env, label(g, own->variant + " vs " + vs + " interleaved"), own, [&] {
        const auto ms = time_interleaved_gemm(env, g, o, names, own->ms, "");
        std::vector<std::size_t> vendors;
        for (std::size_t i = 1; i < ms.size(); ++i) {
          vendors.push_back(i);
          if (names[i] == kGemmCublas) own->paired_ratio_cublas = paired_ratio(ms, {i}, 0);
        }
        own->paired_ratio = paired_ratio(ms, vendors, 0);
        return fmt("%.3f of the best vendor", own->paired_ratio) +
               fmt(" (rows: %.3f)", p.vendor->ms / own->ms);
      });
    }
  }

  if (!g.auto_bar) return;
  p = pick_gemm_rows(view);  // the re-timing above may have failed its row
  std::string why = blocked();
  if (why.empty() && !p.ran) why = "nothing to re-time: the auto row failed";
  if (why.empty() && !p.fastest) why = "nothing to re-time: no correct variant";
  if (why.empty() && p.autorow->ran_variant == p.fastest->variant && !env.auto_follows_cache)
    why = "nothing to re-time: auto ran " + p.fastest->variant + ", the fastest row's variant";
  if (!why.empty()) {
    skip_step(env, label(g, "auto vs the fastest interleaved"), why);
    return;
  }
  Row* a = row(p.autorow);
  const std::string fastest = p.fastest->variant;
  retime_step(
      env, label(g, "auto (ran " + a->ran_variant + ") vs " + fastest + " interleaved"), a, [&] {
        const auto ms =
            time_interleaved_gemm(env, g, o, {"auto", fastest}, p.fastest->ms, a->ran_variant);
        a->paired_fastest = fastest;
        a->paired_ratio_fastest = paired_ratio(ms, {1}, 0);
        return fmt("%.3f of the fastest", a->paired_ratio_fastest) +
               fmt(" (rows: %.3f)", p.fastest->ms / p.ran->ms);
      });
}

void run_gemm_group(BenchEnv& env, const GemmGroup& g, std::vector<Row>* rows) {
  const std::size_t first_row = rows->size();
  Operands o;
  std::string setup_error;
  if (!env.broken()) {
    try {
      if (g.reference.empty()) {
        throw BenchError(GPUOPT_ERROR_NOT_FOUND, "no vendor variant with f64 for the reference");
      }
      allocate(env, g, &o);
    } catch (const BenchError& e) {
      setup_error = e.what();
      env.note_error();
    }
  }
  for (const VariantSpec& v : g.variants) {
    Row r = gemm_row_base(g);
    r.variant = v.name;
    r.is_vendor = v.is_vendor;
    run_row(
        env, label(g, v.name), v, setup_error, r, [&](Row* row) { measure(env, g, v, o, row); },
        rows, summary);
  }
  retime_for_bars(env, g, o, first_row, setup_error, rows);
  const gpuopt_gemm_desc_t d = make_desc(g, g.cfg.a_type, g.cfg.c_type, g.cfg.compute);
  tune_step(
      env, setup_error, "gemm " + g.cfg.name + " " + gemm_shape_name(g), GPUOPT_OP_GEMM,
      [&] { gemm_call(env, d, o.a->device_ptr(), o.b->device_ptr(), o.c->device_ptr()); },
      kTuneBudgetSecondsGemm);
  env.restore_auto(GPUOPT_OP_GEMM);
}

void compute_gemm_bars(Results& r, const std::vector<GemmGroup>& groups) {
  const bool tuned = r.tuning.auto_follows_cache();
  for (const GemmGroup& g : groups) {
    const std::string key = gemm_row_base(g).group_key();
    std::vector<const Row*> rows;
    for (const Row& row : r.rows) {
      if (row.op == "gemm" && row.group_key() == key) rows.push_back(&row);
    }
    if (rows.empty()) continue;
    GemmBarSpec spec;
    spec.label = "gemm " + g.cfg.name + " " + gemm_shape_name(g);
    spec.own_min = has_own(g) ? g.bar_min : kNaN;
    spec.auto_bar = g.auto_bar;
    spec.tuned = tuned;
    append_gemm_bars(spec, rows, &r.bars);
  }
}

}  // namespace bench
