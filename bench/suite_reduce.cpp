// The reduce rows. For each group: fill the input on the device once (fresh seed), compute the
// reference on the host from the same generator (all cores), then for each row: force the variant
// (or restore auto), poison the results, run one call, compare, and time it. Inputs are not
// rotated: every default array is larger than the L2 (2^24 f32 of --quick is 64 MiB).
#include "suite_reduce.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>

#include "check.hpp"
#include "reduce_data.hpp"
#include "row_steps.hpp"
#include "tuning.hpp"

namespace bench {
namespace {

bool is_textbook(const std::string& v) {
  return v == "neighbored" || v == "interleaved" || v == "unroll8" || v == "unroll8_warp" ||
         v == "complete_unroll";
}

const char* op_name(gpuopt_reduce_op_t op) {
  const char* name = gpuopt_reduce_op_name(op);
  return name ? name : "?";
}

std::size_t in_bytes(gpuopt_dtype_t t) { return t == GPUOPT_DTYPE_F64 ? 8 : 4; }
std::size_t out_bytes(const ReduceGroup& g) {
  if (g.op == GPUOPT_REDUCE_ARGMIN || g.op == GPUOPT_REDUCE_ARGMAX) return 8;
  if (g.type == GPUOPT_DTYPE_I32) return g.op == GPUOPT_REDUCE_SUM ? 8 : 4;
  return in_bytes(g.type);
}
std::int64_t results_of(const ReduceGroup& g) { return g.rows > 0 ? g.rows : 1; }
std::int64_t elements_of(const ReduceGroup& g) { return g.n * results_of(g); }

// The selected variants of the table for the dtype (textbook rungs only where asked), the vendor
// always, "auto" last; empty when nothing but the vendor would run.
std::vector<VariantSpec> pick(const Options& opt, const std::vector<VariantSpec>& table,
                              gpuopt_dtype_t t, bool textbook) {
  std::vector<VariantSpec> out;
  bool any = false;
  for (const VariantSpec& v : table) {
    if (!(v.dtype_mask & (1u << static_cast<unsigned>(t)))) continue;
    const bool named = !opt.variants.empty() && opt.wants_variant(v.name);
    const bool chosen = named || (opt.wants_variant(v.name) && (textbook || !is_textbook(v.name)));
    any = any || chosen;
    if (chosen || v.is_vendor) out.push_back(v);
  }
  append_auto(opt, &out, &any);
  if (!any) out.clear();
  return out;
}

// ---- host reference -----------------------------------------------------------------------

struct Ref {
  long double sum = 0, abs = 0;  // SUM
  long double best = 0;          // MIN / MAX value, ARGMIN / ARGMAX value at index
  std::int64_t index = -1;       // first index of best (relative to the segment)
};

long double value_at(const ReduceGroup& g, std::uint64_t seed, std::int64_t i) {
  const auto u = static_cast<std::uint64_t>(i);
  switch (g.type) {
    case GPUOPT_DTYPE_I32:
      return reduce_i32(seed, u);
    case GPUOPT_DTYPE_F32:
      return gen_value<float>(DataKind::kRandom, seed, kStreamX, u);
    default:
      return gen_value<double>(DataKind::kRandom, seed, kStreamX, u);
  }
}

bool wants_max(gpuopt_reduce_op_t op) {
  return op == GPUOPT_REDUCE_MAX || op == GPUOPT_REDUCE_ARGMAX;
}

// Reference of elements [b, e) of the array, indices relative to origin.
Ref reference_range(const ReduceGroup& g, std::uint64_t seed, std::int64_t b, std::int64_t e,
                    std::int64_t origin) {
  Ref r;
  const bool max = wants_max(g.op);
  for (std::int64_t i = b; i < e; ++i) {
    const long double x = value_at(g, seed, i);
    if (g.op == GPUOPT_REDUCE_SUM) {
      r.sum += x;
      r.abs += std::fabs(x);
    } else if (r.index < 0 || (max ? x > r.best : x < r.best)) {
      r.best = x;
      r.index = i - origin;
    }
  }
  return r;
}

// a then b (b's indices later): the combined reference.
Ref merge(const ReduceGroup& g, const Ref& a, const Ref& b) {
  Ref r = a;
  r.sum += b.sum;
  r.abs += b.abs;
  if (b.index >= 0 && (a.index < 0 || (wants_max(g.op) ? b.best > a.best : b.best < a.best))) {
    r.best = b.best;
    r.index = b.index;
  }
  return r;
}

// One reference per result, computed on all host cores.
std::vector<Ref> reference(const ReduceGroup& g, std::uint64_t seed) {
  const unsigned workers = std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
  std::vector<Ref> out(static_cast<std::size_t>(results_of(g)));
  std::vector<std::thread> pool;
  if (g.rows > 0) {
    for (unsigned w = 0; w < workers; ++w) {
      pool.emplace_back([&, w] {
        for (std::int64_t row = w; row < g.rows; row += workers)
          out[static_cast<std::size_t>(row)] =
              reference_range(g, seed, row * g.n, (row + 1) * g.n, row * g.n);
      });
    }
    for (std::thread& t : pool) t.join();
    return out;
  }
  std::vector<Ref> parts(workers);
  for (unsigned w = 0; w < workers; ++w) {
    pool.emplace_back([&, w] {
      const std::int64_t b = g.n * w / workers, e = g.n * (w + 1) / workers;
      parts[w] = reference_range(g, seed, b, e, 0);
    });
  }
  for (std::thread& t : pool) t.join();
  Ref all;
  for (const Ref& p : parts) all = merge(g, all, p);
  out[0] = all;
  return out;
}

// Compares the device results with the references; fills correct, rel_err, bad_elements and
// mismatch of the row. cub accumulates f32 sums in f32 (a wider bound).
void verdict(const ReduceGroup& g, const std::string& variant, const unsigned char* got,
             const std::vector<Ref>& refs, Row* r) {
  std::int64_t bad = 0;
  double worst = 0.0;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    const Ref& ref = refs[i];
    const unsigned char* p = got + i * out_bytes(g);
    bool ok = false;
    double err = 0.0;
    long double value = 0;
    long double want = 0;
    if (g.op == GPUOPT_REDUCE_ARGMIN || g.op == GPUOPT_REDUCE_ARGMAX) {
      std::int64_t idx = 0;
      std::memcpy(&idx, p, 8);
      ok = idx == ref.index;
      value = static_cast<long double>(idx);
      want = static_cast<long double>(ref.index);
    } else if (g.type == GPUOPT_DTYPE_I32) {
      if (g.op == GPUOPT_REDUCE_SUM) {
        std::int64_t s = 0;
        std::memcpy(&s, p, 8);
        value = static_cast<long double>(s);
        want = ref.sum;
      } else {
        std::int32_t s = 0;
        std::memcpy(&s, p, 4);
        value = s;
        want = ref.best;
      }
      ok = value == want;
    } else {
      if (g.type == GPUOPT_DTYPE_F64) {
        double d = 0;
        std::memcpy(&d, p, 8);
        value = d;
      } else {
        float f = 0;
        std::memcpy(&f, p, 4);
        value = f;
      }
      if (g.op == GPUOPT_REDUCE_SUM) {
        want = ref.sum;
        const bool wide = g.type == GPUOPT_DTYPE_F64 || variant != "cub";
        const long double eps_acc = wide ? 0x1p-52L : 0x1p-23L;
        const long double eps_out = g.type == GPUOPT_DTYPE_F64 ? 0x1p-53L : 0x1p-24L;
        const long double chain = static_cast<long double>(g.n / 256 + 64);
        // Own f32 sums: f32 partial sums of at most 10 elements before f64 (reduce_piece.cuh).
        const long double partials = g.type == GPUOPT_DTYPE_F32 && wide ? 16 * 0x1p-24L : 0.0L;
        const long double tol = (chain * eps_acc + partials) * ref.abs + eps_out * std::fabs(want);
        ok = std::isfinite(value) && std::fabs(value - want) <= tol;
        err = static_cast<double>(std::fabs(value - want) / std::max(std::fabs(want), 1e-300L));
      } else {
        want = ref.best;
        ok = value == want;
      }
    }
    worst = std::max(worst, err);
    if (!ok && bad++ == 0) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "result %zu: got %.17Lg, want %.17Lg", i, value, want);
      r->mismatch = buf;
    }
  }
  r->bad_elements = bad;
  r->rel_err = worst;
  r->correct = bad == 0;
  if (bad > 1) r->mismatch += " (" + std::to_string(bad) + " results wrong)";
}

gpuopt_reduce_desc_t make_desc(const ReduceGroup& g) {
  gpuopt_reduce_desc_t d{};
  d.struct_size = sizeof d;
  d.op = g.op;
  d.in_type = g.type;
  d.n = g.n;
  d.num_segments = results_of(g);
  d.segment_stride = g.n;
  d.mode = GPUOPT_REDUCE_DETERMINISTIC;
  return d;
}

void measure(BenchEnv& env, const ReduceGroup& g, const VariantSpec& v, const void* in, void* out,
             const std::vector<Ref>& refs, Row* r) {
  if (!force_for_row(env, GPUOPT_OP_REDUCE, v, r)) return;
  const gpuopt_reduce_desc_t d = make_desc(g);
  const std::size_t result_bytes = static_cast<std::size_t>(results_of(g)) * out_bytes(g);
  CUDA_CHECK(cudaMemsetAsync(out, 0xA5, result_bytes, env.cu));
  GPUOPT_CHECK(gpuopt_reduce(env.ctx, env.stream, &d, in, out));
  std::vector<unsigned char> got(result_bytes);
  CUDA_CHECK(cudaMemcpyAsync(got.data(), out, result_bytes, cudaMemcpyDeviceToHost, env.cu));
  CUDA_CHECK(cudaStreamSynchronize(env.cu));
  verdict(g, v.name, got.data(), refs, r);
  confirm_ran(env, GPUOPT_OP_REDUCE, v, r);
  time_into_row(
      env, [&] { GPUOPT_CHECK(gpuopt_reduce(env.ctx, env.stream, &d, in, out)); }, r);
}

constexpr const char* kCubI32 = "cub(i32->i32)";

// The anchor's case: cub::DeviceReduce::Sum(int32 -> int32) with its own temp storage.
void measure_cub_i32(BenchEnv& env, const ReduceGroup& g, const void* in, void* out,
                     const std::vector<Ref>& refs, Row* r) {
  const auto* x = static_cast<const std::int32_t*>(in);
  auto* y = static_cast<std::int32_t*>(out);
  const std::size_t bytes = cub_sum_i32_temp_bytes(g.n);
  void* temp = nullptr;
  CUDA_CHECK(cudaMalloc(&temp, bytes ? bytes : 1));
  try {
    cub_sum_i32(temp, bytes, x, y, g.n, env.cu);
    std::int32_t got = 0;
    CUDA_CHECK(cudaMemcpyAsync(&got, y, 4, cudaMemcpyDeviceToHost, env.cu));
    CUDA_CHECK(cudaStreamSynchronize(env.cu));
    const auto want = static_cast<std::int32_t>(static_cast<std::uint32_t>(
        static_cast<std::uint64_t>(static_cast<std::int64_t>(refs[0].sum))));
    r->correct = got == want;
    r->rel_err = 0.0;
    r->bad_elements = r->correct ? 0 : 1;
    if (!r->correct)
      r->mismatch = "got " + std::to_string(got) + ", want " + std::to_string(want) + " (mod 2^32)";
    const Timing t = time_on_stream(
        env.cu, [&](long) { cub_sum_i32(temp, bytes, x, y, g.n, env.cu); }, env.timer);
    r->ms = t.median_ms;
    r->ms_min = t.min_ms;
    r->ms_max = t.max_ms;
    r->repeats = t.repeats;
    r->inner = t.inner;
  } catch (...) {
    cudaFree(temp);
    throw;
  }
  CUDA_CHECK(cudaFree(temp));
}

std::string size_label(std::int64_t n) {
  for (int k = 0; k < 63; ++k)
    if ((std::int64_t{1} << k) == n) return "2^" + std::to_string(k);
  return std::to_string(n);
}

// The auto row of a group, or (without auto) its fastest correct own row.
const Row* headline(const Results& res, const ReduceGroup& g, std::string* which) {
  const std::string shape = reduce_shape_name(g);
  const std::string dtype = dtype_str(g.type);
  const Row* best = nullptr;
  for (const Row& row : res.rows) {
    if (row.op != "reduce" || row.shape != shape || row.dtype != dtype) continue;
    if (!row.error.empty() || !row.correct) continue;
    if (row.variant == "auto") {
      *which = "auto ran " + row.ran_variant;
      return &row;
    }
    if (!row.is_vendor && row.variant != kCubI32 && (!best || row.ms < best->ms)) best = &row;
  }
  if (best) *which = "best own: " + best->variant;
  return best;
}

}  // namespace

std::string reduce_shape_name(const ReduceGroup& g) {
  if (g.rows > 0)
    return std::string(op_name(g.op)) + " " + std::to_string(g.rows) + " rows x " +
           std::to_string(g.n);
  return std::string(op_name(g.op)) + " n=" + std::to_string(g.n);
}

std::vector<ReduceGroup> plan_reduce(const Options& opt, const std::vector<VariantSpec>& table) {
  std::vector<ReduceGroup> groups;
  if (!opt.wants_op("reduce")) return groups;
  const std::int64_t n = opt.sizes.empty() ? (std::int64_t{1} << 28)
                                           : *std::max_element(opt.sizes.begin(), opt.sizes.end());
  const std::int64_t side = opt.quick ? 4096 : 8192;
  auto add = [&](gpuopt_reduce_op_t op, gpuopt_dtype_t t, std::int64_t len, std::int64_t rows,
                 bool textbook) {
    ReduceGroup g;
    g.op = op;
    g.type = t;
    g.n = len;
    g.rows = rows;
    g.variants = pick(opt, table, t, textbook);
    if (!g.variants.empty()) groups.push_back(g);
  };
  add(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_I32, n, 0, true);  // the ladder
  if (!groups.empty()) groups.back().cub_i32_row = true;
  add(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, n, 0, false);
  add(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F64, n, 0, false);
  add(GPUOPT_REDUCE_MIN, GPUOPT_DTYPE_F32, n, 0, false);
  add(GPUOPT_REDUCE_MAX, GPUOPT_DTYPE_F32, n, 0, false);
  add(GPUOPT_REDUCE_ARGMAX, GPUOPT_DTYPE_F32, n, 0, false);
  add(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, side, side, false);
  add(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, 131072, side / 16, false);
  if (!groups.empty() && groups.back().rows == side / 16) groups.back().informational = true;
  return groups;
}

int reduce_row_count(const std::vector<ReduceGroup>& groups) {
  int rows = 0;
  for (const ReduceGroup& g : groups) rows += static_cast<int>(g.variants.size()) + g.cub_i32_row;
  return rows;
}

void run_reduce_group(BenchEnv& env, const ReduceGroup& g, std::vector<Row>* rows) {
  const std::size_t in_size = static_cast<std::size_t>(elements_of(g)) * in_bytes(g.type);
  const std::size_t out_size = static_cast<std::size_t>(results_of(g)) * out_bytes(g) + 16;
  std::unique_ptr<DeviceBuffer> in, out;
  std::vector<Ref> refs;
  std::string setup_error;
  if (!env.broken()) {
    try {
      in = std::make_unique<DeviceBuffer>(env.ctx, in_size, GPUOPT_MEMORY_DEVICE);
      out = std::make_unique<DeviceBuffer>(env.ctx, out_size, GPUOPT_MEMORY_DEVICE);
      const std::uint64_t seed = env.next_seed();
      fill_reduce_input(in->device_ptr(), g.type, elements_of(g), seed, env.cu);
      refs = reference(g, seed);  // on the host while the fill runs
      CUDA_CHECK(cudaStreamSynchronize(env.cu));
    } catch (const BenchError& e) {
      setup_error = e.what();
      env.note_error();
    }
  }
  const std::string shape = reduce_shape_name(g);
  for (const VariantSpec& v : g.variants) {
    Row r;
    r.op = "reduce";
    r.dtype = dtype_str(g.type);
    r.shape = shape;
    r.n = elements_of(g);
    r.variant = v.name;
    r.memory = "device";
    r.data = "random";
    r.compressed = -1;
    r.is_vendor = v.is_vendor;
    r.bytes = static_cast<double>(in_size);  // bytes read
    run_row(
        env, "reduce " + dtype_str(g.type) + " " + shape + " " + v.name, v, setup_error, r,
        [&](Row* row) { measure(env, g, v, in->device_ptr(), out->device_ptr(), refs, row); },
        rows);
  }
  if (g.cub_i32_row) {
    env.progress.start("reduce i32 " + shape + " " + kCubI32);
    Row r;
    r.op = "reduce";
    r.dtype = dtype_str(g.type);
    r.shape = shape;
    r.n = elements_of(g);
    r.variant = kCubI32;
    r.memory = "device";
    r.data = "random";
    r.bytes = static_cast<double>(in_size);
    r.note = "cub::DeviceReduce::Sum(int32 -> int32), wraps; the anchor's case, not gpuopt";
    if (env.broken() || !setup_error.empty()) {
      r.error = env.broken() ? "not run: the device is in a sticky error state" : setup_error;
    } else {
      try {
        measure_cub_i32(env, g, in->device_ptr(), out->device_ptr(), refs, &r);
      } catch (const BenchError& e) {
        r.correct = false;
        r.error = e.what();
        env.note_error();
      }
    }
    env.progress.finish(progress_summary(r));
    rows->push_back(r);
  }
  const gpuopt_reduce_desc_t d = make_desc(g);
  tune_step(env, setup_error, "reduce " + dtype_str(g.type) + " " + shape, GPUOPT_OP_REDUCE, [&] {
    GPUOPT_CHECK(gpuopt_reduce(env.ctx, env.stream, &d, in->device_ptr(), out->device_ptr()));
  });
  env.restore_auto(GPUOPT_OP_REDUCE);
}

void compute_reduce_bars(Results& res, const std::vector<ReduceGroup>& groups) {
  const double copy = res.roofs.copy_gbs;
  for (const ReduceGroup& g : groups) {
    if (g.informational) continue;
    std::string which;
    const Row* row = headline(res, g, &which);
    const std::string label =
        "reduce " + std::string(op_name(g.op)) + " " + dtype_str(g.type) +
        (g.rows > 0 ? " " + std::to_string(g.rows) + "x" + std::to_string(g.n) + " rows"
                    : " n=" + size_label(g.n));
    auto add = [&](const std::string& what, double value, double min, const std::string& note) {
      Bar b;
      b.name = label + ": " + what;
      b.value = value;
      b.min = min;
      b.target = ">= " + fmt("%.2f", min);
      b.pass = std::isfinite(value) && value >= min;
      b.note = note;
      res.bars.push_back(b);
    };
    const double gbs = row ? row->gbs : kNaN;
    const double vs_cub = row ? row->ratio_to_vendor : kNaN;
    const std::string note =
        which + (row ? ", " + fmt("%.0f", gbs) + " GB/s, copy " + fmt("%.0f", copy) + " GB/s" : "");
    if (g.rows > 0) {
      add("GB/s read / copy roof", gbs / copy, 0.85, note);
    } else if (g.op == GPUOPT_REDUCE_SUM && g.type == GPUOPT_DTYPE_I32) {
      // At least CUB and 0.9 of copy: the old 1.1x CUB bar was retired, since CUB itself reads
      // at the copy roof here and no sum can read its input faster than a copy does.
      add("cub ms / ms", vs_cub, 1.00, note);
      add("GB/s read / copy roof", gbs / copy, 0.90, note);
      const Row* anchor = nullptr;
      for (const Row& x : res.rows)
        if (x.op == "reduce" && x.variant == kCubI32 && x.correct && x.error.empty()) anchor = &x;
      add("cub(i32->i32) ms / ms", anchor && row ? anchor->ms / row->ms : kNaN, 1.00,
          which + (anchor ? ", cub(i32->i32) " + fmt("%.0f", anchor->gbs) + " GB/s" : ""));
    } else if (g.op == GPUOPT_REDUCE_SUM) {
      add("cub ms / ms", vs_cub, 1.00, note);
    } else {
      add("GB/s read / copy roof", gbs / copy, 0.90, note);
    }
  }
}

}  // namespace bench
