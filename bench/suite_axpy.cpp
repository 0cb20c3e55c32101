// The axpy ladders. For each row: force the variant (or restore auto), check it once on fresh
// inputs against the host reference, then time it (inputs rotated when they fit in L2).
#include "suite_axpy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "check.hpp"
#include "data.hpp"
#include "row_steps.hpp"
#include "verify.hpp"

namespace bench {
namespace {

constexpr std::int64_t kStrideAlign = 64;  // elements: every rotated set starts 256-byte aligned

bool in_list(const std::vector<std::string>& names, const std::string& n) {
  return std::find(names.begin(), names.end(), n) != names.end();
}

// Variants of a group: the selected ones that support the dtype, the vendor always (it is the
// yardstick of ratio_to_vendor), "auto" last. only: when non-empty, a further restriction.
std::vector<VariantSpec> group_variants(const Options& opt, const std::vector<VariantSpec>& table,
                                        gpuopt_dtype_t dtype,
                                        const std::vector<std::string>& only) {
  std::vector<VariantSpec> out;
  bool any = false;
  for (const VariantSpec& v : table) {
    if (!(v.dtype_mask & (1u << static_cast<unsigned>(dtype)))) continue;
    bool chosen = opt.wants_variant(v.name) && (only.empty() || in_list(only, v.name));
    if (chosen) any = true;
    if (chosen || v.is_vendor) out.push_back(v);
  }
  append_auto(opt, &out, &any);
  if (!any) out.clear();  // nothing asked for here: no vendor row alone
  return out;
}

std::string shape_of(std::int64_t n) { return "n=" + std::to_string(n); }

std::string label(const AxpyGroup& g, const std::string& variant) {
  std::string s = "axpy " + dtype_str(g.dtype) + " " + shape_of(g.n) + " " + variant;
  if (g.memory != GPUOPT_MEMORY_DEVICE || g.data != DataKind::kRandom) {
    s += " [" + memory_name(g.memory) + ", " + data_kind_name(g.data) + "]";
  }
  return s;
}

double alpha_as(gpuopt_dtype_t dtype) {
  return dtype == GPUOPT_DTYPE_F32 ? static_cast<double>(static_cast<float>(kAxpyAlpha))
                                   : kAxpyAlpha;
}

std::string last_variant(gpuopt_context_t ctx) {
  const char* name = nullptr;
  GPUOPT_CHECK(gpuopt_last_variant(ctx, GPUOPT_OP_AXPY, &name));
  return name ? name : "";
}

// Everything a row does on the device; throws BenchError on the first failed call.
void measure(BenchEnv& env, const AxpyGroup& g, const VariantSpec& v, const DeviceBuffer& x,
             const DeviceBuffer& y, std::int64_t stride, std::int64_t sets, Row* r) {
  const gpuopt_status_t st =
      gpuopt_context_set_variant(env.ctx, GPUOPT_OP_AXPY, v.is_auto ? nullptr : v.name.c_str());
  if (st != GPUOPT_SUCCESS) {
    std::string why = gpuopt_describe(st);
    if (!v.available && st == GPUOPT_ERROR_UNSUPPORTED) {
      r->skipped = true;
      r->error = "skipped: " + why;
      return;
    }
    throw BenchError(st, why + " [gpuopt_context_set_variant(" + v.name + ")]");
  }
  const std::size_t es = dtype_bytes(g.dtype);
  const double alpha = alpha_as(g.dtype);
  auto* xb = static_cast<unsigned char*>(x.device_ptr());
  auto* yb = static_cast<unsigned char*>(y.device_ptr());

  // Correctness: fresh inputs in set 0, one call, full comparison on the host.
  const std::uint64_t seed = env.next_seed();
  fill_device(xb, g.dtype, g.n, g.data, seed, kStreamX, 0, env.cu);
  fill_device(yb, g.dtype, g.n, g.data, seed, kStreamY, 0, env.cu);
  GPUOPT_CHECK(gpuopt_axpy(env.ctx, env.stream, g.dtype, g.n, kAxpyAlpha, xb, 1, yb, 1));
  const void* out = env.copy_back(y, 0, static_cast<std::size_t>(g.n) * es);
  AxpyCheck c;
  c.dtype = g.dtype;
  c.n = g.n;
  c.alpha = alpha;
  c.calls = 1;
  c.kind = g.data;
  c.seed = seed;
  VerifyResult vr = verify_axpy(c, out);
  r->rel_err = vr.rel_err;
  r->bad_elements = vr.bad;
  r->correct = vr.correct;
  if (vr.bad > 0) {
    char buf[256];
    std::snprintf(buf, sizeof(buf),
                  "%lld of %lld elements wrong, first at %lld: got %.9g, want %.9g",
                  static_cast<long long>(vr.bad), static_cast<long long>(g.n),
                  static_cast<long long>(vr.first_bad), vr.first_got, vr.first_want);
    r->mismatch = buf;
  } else if (!vr.correct) {
    r->mismatch = "rel_err above the bar";
  }
  const std::string ran = last_variant(env.ctx);
  if (v.is_auto) {
    r->ran_variant = ran;
  } else if (ran != v.name) {
    throw BenchError(GPUOPT_ERROR_INTERNAL,
                     "forced variant " + v.name + " but gpuopt_last_variant reports '" + ran + "'");
  }

  // Timing over the rotated sets.
  const std::size_t set_bytes = static_cast<std::size_t>(stride) * es;
  Timing t = time_on_stream(
      env.cu,
      [&](long i) {
        const std::size_t off = static_cast<std::size_t>(i % sets) * set_bytes;
        GPUOPT_CHECK(
            gpuopt_axpy(env.ctx, env.stream, g.dtype, g.n, kAxpyAlpha, xb + off, 1, yb + off, 1));
      },
      env.timer);
  r->ms = t.median_ms;
  r->ms_min = t.min_ms;
  r->ms_max = t.max_ms;
  r->repeats = t.repeats;
  r->inner = t.inner;
  if (v.is_auto && last_variant(env.ctx) != r->ran_variant) {
    throw BenchError(GPUOPT_ERROR_INTERNAL, "auto chose '" + r->ran_variant +
                                                "' when checked but '" + last_variant(env.ctx) +
                                                "' when timed");
  }
}

}  // namespace

std::string memory_name(gpuopt_memory_kind_t kind) {
  switch (kind) {
    case GPUOPT_MEMORY_DEVICE:
      return "device";
    case GPUOPT_MEMORY_COMPRESSIBLE:
      return "compressible";
    case GPUOPT_MEMORY_PINNED_HOST:
      return "pinned";
    case GPUOPT_MEMORY_MAPPED:
      return "mapped";
    case GPUOPT_MEMORY_EXTERNAL:
      return "external";
  }
  return "unknown";
}

std::string progress_summary(const Row& r) {
  if (r.skipped) return r.error;
  std::string s;
  char buf[128];
  if (r.ms == r.ms) {
    std::snprintf(buf, sizeof(buf), "%.4g ms", r.ms);
    s = buf;
    if (r.bytes > 0) {
      std::snprintf(buf, sizeof(buf), ", %.0f GB/s", r.bytes / (r.ms * 1e-3) / 1e9);
      s += buf;
    }
  }
  if (!r.ran_variant.empty()) s += ", ran " + r.ran_variant;
  if (!r.error.empty()) {
    s += (s.empty() ? "" : ", ") + std::string("ERROR ") + r.error;
  } else {
    s += r.correct ? ", correct" : ", WRONG: " + r.mismatch;
  }
  return s;
}

void append_auto(const Options& opt, std::vector<VariantSpec>* out, bool* any) {
  if (!opt.wants_variant("auto")) return;
  VariantSpec a;
  a.name = "auto";
  a.is_auto = true;
  out->push_back(a);
  *any = true;
}

std::vector<VariantSpec> list_variants(gpuopt_context_t ctx, gpuopt_op_t op) {
  int count = 0;
  GPUOPT_CHECK(gpuopt_variant_count(ctx, op, &count));
  std::vector<VariantSpec> out;
  for (int i = 0; i < count; ++i) {
    const char* name = nullptr;
    GPUOPT_CHECK(gpuopt_variant_name(ctx, op, i, &name));
    gpuopt_variant_info_t info{};
    info.struct_size = sizeof(info);
    GPUOPT_CHECK(gpuopt_variant_info(ctx, op, i, &info));
    if (name == nullptr) throw BenchError(GPUOPT_ERROR_INTERNAL, "gpuopt_variant_name gave NULL");
    VariantSpec v;
    v.name = name;
    v.is_vendor = info.is_vendor == 1;
    v.available = info.available == 1;
    v.dtype_mask = info.dtype_mask;
    out.push_back(v);
  }
  return out;
}

std::vector<AxpyGroup> plan_axpy(const Options& opt, const std::vector<VariantSpec>& table) {
  std::vector<AxpyGroup> groups;
  if (!opt.wants_op("axpy")) return groups;
  auto add = [&](gpuopt_dtype_t dtype, std::int64_t n, gpuopt_memory_kind_t mem, DataKind data,
                 const std::vector<std::string>& only) {
    AxpyGroup g;
    g.dtype = dtype;
    g.n = n;
    g.memory = mem;
    g.data = data;
    g.variants = group_variants(opt, table, dtype, only);
    if (!g.variants.empty()) groups.push_back(g);
  };
  const std::vector<std::string> compressible_set = {"vec4_gridstride", "vec4_blocktile"};
  for (std::int64_t n : opt.sizes) {
    if (!opt.wants_dtype(GPUOPT_DTYPE_F32)) continue;
    add(GPUOPT_DTYPE_F32, n, GPUOPT_MEMORY_DEVICE, DataKind::kRandom, {});
    // The compressible comparison; its "device, random" baseline is the ladder just above.
    add(GPUOPT_DTYPE_F32, n, GPUOPT_MEMORY_DEVICE, DataKind::kPatterned, compressible_set);
    add(GPUOPT_DTYPE_F32, n, GPUOPT_MEMORY_COMPRESSIBLE, DataKind::kPatterned, compressible_set);
    add(GPUOPT_DTYPE_F32, n, GPUOPT_MEMORY_COMPRESSIBLE, DataKind::kRandom, compressible_set);
  }
  for (std::int64_t n : opt.sizes) {
    if (opt.wants_dtype(GPUOPT_DTYPE_F64)) {
      add(GPUOPT_DTYPE_F64, n, GPUOPT_MEMORY_DEVICE, DataKind::kRandom, {});
    }
  }
  return groups;
}

std::size_t axpy_copy_back_bytes(const std::vector<AxpyGroup>& groups) {
  std::size_t most = 0;
  for (const AxpyGroup& g : groups) {
    most = std::max(most, static_cast<std::size_t>(g.n) * dtype_bytes(g.dtype));
  }
  return most;
}

void run_axpy_group(BenchEnv& env, const AxpyGroup& g, std::vector<Row>* rows) {
  const std::size_t es = dtype_bytes(g.dtype);
  const std::int64_t stride = (g.n + kStrideAlign - 1) / kStrideAlign * kStrideAlign;
  // Rotate among enough sets of (x, y) that a call never finds its inputs in L2: 3x the L2.
  const double set_pair = 2.0 * static_cast<double>(stride) * static_cast<double>(es);
  const double l2 = static_cast<double>(env.info.l2_cache_bytes);
  std::int64_t sets = static_cast<std::int64_t>(std::ceil(3.0 * l2 / std::max(set_pair, 1.0)));
  sets = std::clamp<std::int64_t>(sets, 1, 4096);
  const std::size_t bytes = static_cast<std::size_t>(stride * sets) * es;

  std::unique_ptr<DeviceBuffer> x, y;
  std::string setup_error;
  int compressed = -1;
  if (!env.broken()) {
    try {
      x = std::make_unique<DeviceBuffer>(env.ctx, bytes, g.memory);
      y = std::make_unique<DeviceBuffer>(env.ctx, bytes, g.memory);
      compressed = x->compressed() && y->compressed() ? 1 : 0;
      // Every set gets data of the group's kind; set 0 is refilled before each check.
      const std::uint64_t seed = env.next_seed();
      fill_device(x->device_ptr(), g.dtype, stride * sets, g.data, seed, kStreamX, 0, env.cu);
      fill_device(y->device_ptr(), g.dtype, stride * sets, g.data, seed, kStreamY, 0, env.cu);
      CUDA_CHECK(cudaStreamSynchronize(env.cu));
    } catch (const BenchError& e) {
      setup_error = e.what();
      env.note_error();
    }
  }

  for (const VariantSpec& v : g.variants) {
    Row r;
    r.op = "axpy";
    r.dtype = dtype_str(g.dtype);
    r.shape = shape_of(g.n);
    r.n = g.n;
    r.variant = v.name;
    r.memory = memory_name(g.memory);
    r.data = data_kind_name(g.data);
    r.compressed = g.memory == GPUOPT_MEMORY_COMPRESSIBLE ? compressed : 0;
    r.is_vendor = v.is_vendor;
    r.bytes = 3.0 * static_cast<double>(g.n) * static_cast<double>(es);  // read x, y; write y
    run_row(
        env, label(g, v.name), v, setup_error, r,
        [&](Row* row) { measure(env, g, v, *x, *y, stride, sets, row); }, rows);
  }
  env.restore_auto(GPUOPT_OP_AXPY);
}

}  // namespace bench
