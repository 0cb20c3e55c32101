// The transpose rows (see suite_transpose.hpp).
#include "suite_transpose.hpp"

#include <cmath>
#include <cstdio>
#include <memory>

#include "check.hpp"
#include "row_steps.hpp"
#include "transpose_data.hpp"
#include "tuning.hpp"

namespace bench {
namespace {

std::size_t elem_of(gpuopt_dtype_t t) {
  return t == GPUOPT_DTYPE_F64 ? 8 : (t == GPUOPT_DTYPE_BF16 ? 2 : 4);
}

std::string shape_of(const TransposeGroup& g) {
  return std::to_string(g.rows) + "x" + std::to_string(g.cols);
}

gpuopt_transpose_desc_t desc_of(const TransposeGroup& g) {
  gpuopt_transpose_desc_t d{};
  d.struct_size = sizeof d;
  d.dtype = g.dtype;
  d.rows = g.rows;
  d.cols = g.cols;
  d.lda = g.rows;
  d.ldb = g.cols;
  return d;
}

void measure(BenchEnv& env, const TransposeGroup& g, const VariantSpec& v, const void* a, void* b,
             void* scratch, Row* r) {
  if (!force_for_row(env, GPUOPT_OP_TRANSPOSE, v, r)) return;
  const gpuopt_transpose_desc_t d = desc_of(g);
  const std::size_t bytes = static_cast<std::size_t>(g.rows * g.cols) * elem_of(g.dtype);
  CUDA_CHECK(cudaMemsetAsync(b, 0xFF, bytes, env.cu));
  GPUOPT_CHECK(gpuopt_transpose(env.ctx, env.stream, &d, a, b));
  std::int64_t fi = -1, fj = -1;
  const std::uint64_t bad = count_transpose_mismatches(a, b, elem_of(g.dtype), g.rows, g.cols,
                                                       g.rows, g.cols, scratch, env.cu, &fi, &fj);
  r->bad_elements = static_cast<std::int64_t>(bad);
  r->rel_err = bad ? 1.0 : 0.0;
  r->correct = bad == 0;
  if (bad) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%llu elements of B differ from A^T, first at A(%lld, %lld)",
                  static_cast<unsigned long long>(bad), static_cast<long long>(fi),
                  static_cast<long long>(fj));
    r->mismatch = buf;
  }
  confirm_ran(env, GPUOPT_OP_TRANSPOSE, v, r);
  time_into_row(
      env, [&] { GPUOPT_CHECK(gpuopt_transpose(env.ctx, env.stream, &d, a, b)); }, r);
}

}  // namespace

std::vector<TransposeGroup> plan_transpose(const Options& opt,
                                           const std::vector<VariantSpec>& table) {
  std::vector<TransposeGroup> groups;
  if (!opt.wants_op("transpose")) return groups;
  const std::int64_t side = opt.quick ? 8192 : 16384;
  auto add = [&](gpuopt_dtype_t t, std::int64_t rows, std::int64_t cols, bool bar) {
    TransposeGroup g;
    g.dtype = t;
    g.rows = rows;
    g.cols = cols;
    g.bar = bar;
    bool any = false;
    for (const VariantSpec& v : table) {
      if (!(v.dtype_mask & (1u << static_cast<unsigned>(t)))) continue;
      const bool chosen = opt.wants_variant(v.name);
      any = any || chosen;
      if (chosen || v.is_vendor) g.variants.push_back(v);
    }
    append_auto(opt, &g.variants, &any);
    if (any) groups.push_back(g);
  };
  // --dtype narrows the groups (bf16 is among the gemm type names of the CLI).
  if (opt.wants_dtype(GPUOPT_DTYPE_F32)) add(GPUOPT_DTYPE_F32, side, side, true);
  if (opt.wants_dtype(GPUOPT_DTYPE_F64))
    add(GPUOPT_DTYPE_F64, side, side / 2, false);  // same bytes as the f32 matrix
  if (opt.wants_gemm_type("bf16")) add(GPUOPT_DTYPE_BF16, side * 2, side, false);
  return groups;
}

int transpose_row_count(const std::vector<TransposeGroup>& groups) {
  int rows = 0;
  for (const TransposeGroup& g : groups) rows += static_cast<int>(g.variants.size());
  return rows;
}

void run_transpose_group(BenchEnv& env, const TransposeGroup& g, std::vector<Row>* rows) {
  const std::size_t bytes = static_cast<std::size_t>(g.rows * g.cols) * elem_of(g.dtype);
  std::unique_ptr<DeviceBuffer> a, b, scratch;
  std::string setup_error;
  if (!env.broken()) {
    try {
      a = std::make_unique<DeviceBuffer>(env.ctx, bytes, GPUOPT_MEMORY_DEVICE);
      b = std::make_unique<DeviceBuffer>(env.ctx, bytes, GPUOPT_MEMORY_DEVICE);
      scratch = std::make_unique<DeviceBuffer>(env.ctx, 64, GPUOPT_MEMORY_DEVICE);
      fill_random_bits(a->device_ptr(), bytes, elem_of(g.dtype), env.next_seed() * 0x100000001ull,
                       env.cu);
      CUDA_CHECK(cudaStreamSynchronize(env.cu));
    } catch (const BenchError& e) {
      setup_error = e.what();
      env.note_error();
    }
  }
  const std::string shape = shape_of(g);
  for (const VariantSpec& v : g.variants) {
    Row r;
    r.op = "transpose";
    r.dtype = dtype_str(g.dtype);
    r.shape = shape;
    r.n = g.rows * g.cols;
    r.variant = v.name;
    r.memory = "device";
    r.data = "random";
    r.compressed = -1;
    r.is_vendor = v.is_vendor;
    r.bytes = 2.0 * static_cast<double>(bytes);  // read A + write B
    run_row(
        env, "transpose " + dtype_str(g.dtype) + " " + shape + " " + v.name, v, setup_error, r,
        [&](Row* row) {
          measure(env, g, v, a->device_ptr(), b->device_ptr(), scratch->device_ptr(), row);
        },
        rows);
  }
  const gpuopt_transpose_desc_t d = desc_of(g);
  tune_step(
      env, setup_error, "transpose " + dtype_str(g.dtype) + " " + shape, GPUOPT_OP_TRANSPOSE, [&] {
        GPUOPT_CHECK(gpuopt_transpose(env.ctx, env.stream, &d, a->device_ptr(), b->device_ptr()));
      });
  env.restore_auto(GPUOPT_OP_TRANSPOSE);
}

void compute_transpose_bars(Results& res, const std::vector<TransposeGroup>& groups) {
  const double copy = res.roofs.copy_gbs;
  for (const TransposeGroup& g : groups) {
    if (!g.bar) continue;
    std::string which;
    const Row* row = headline_row(res, "transpose", shape_of(g), dtype_str(g.dtype), &which);
    const std::string label = "transpose " + dtype_str(g.dtype) + " " + shape_of(g);
    const double gbs = row ? row->gbs : kNaN;
    const std::string note =
        which + (row ? ", " + fmt("%.0f", gbs) + " GB/s, copy " + fmt("%.0f", copy) + " GB/s" : "");
    auto add = [&](const std::string& what, double value, double min) {
      Bar b;
      b.name = label + ": " + what;
      b.value = value;
      b.min = min;
      b.target = ">= " + fmt("%.2f", min);
      b.pass = std::isfinite(value) && value >= min;
      b.note = note;
      res.bars.push_back(b);
    };
    add("GB/s (read + write) / copy roof", gbs / copy, 0.85);
    add("cublas ms / ms", row ? row->ratio_to_vendor : kNaN, 1.00);
  }
}

}  // namespace bench
