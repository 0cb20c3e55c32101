// The stencil rows: see suite_stencil.hpp.
#include "suite_stencil.hpp"

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

#include "check.hpp"
#include "row_steps.hpp"
#include "stencil_fill.hpp"
#include "tuning.hpp"

namespace bench {
namespace {

constexpr int kCheckPoints = 20000;

bool is_3d_variant(const std::string& n) { return n.find("zmarch") != std::string::npos; }
bool is_2d_variant(const std::string& n) {
  return n == "smem_sync" || n.rfind("sm80_cpasync", 0) == 0 || n.rfind("sm90_tma", 0) == 0;
}

std::string shape_of(const StencilGroup& g) {
  std::string s = std::to_string(g.nx) + "x" + std::to_string(g.ny);
  if (g.dims == 3) s += "x" + std::to_string(g.nz);
  return s + " r=" + std::to_string(g.radius);
}

// Coefficients of the rows: a Laplacian-like set (centre -1, neighbours 1 / (2 * axes * |o| r)).
std::vector<double> coeffs_of(const StencilGroup& g) {
  std::vector<double> c(1 + g.dims * 2 * g.radius);
  c[0] = -1.0;
  for (int a = 0; a < g.dims; ++a)
    for (int k = 0; k < 2 * g.radius; ++k) {
      const int o = k < g.radius ? g.radius - k : k - g.radius + 1;
      c[1 + a * 2 * g.radius + k] = 1.0 / (2.0 * g.dims * o * g.radius);
    }
  return c;
}

gpuopt_stencil_desc_t desc_of(const StencilGroup& g, const std::vector<double>& c) {
  gpuopt_stencil_desc_t d{};
  d.struct_size = sizeof d;
  d.dtype = GPUOPT_DTYPE_F32;
  d.dims = g.dims;
  d.radius = g.radius;
  d.boundary = GPUOPT_BOUNDARY_ZERO;
  d.nx = g.nx;
  d.ny = g.ny;
  d.nz = g.nz;
  d.in_pitch = d.out_pitch = g.nx;
  d.in_slice_pitch = d.out_slice_pitch = g.nx * g.ny;
  d.coeffs = c.data();
  return d;
}

// Checks the output at random points and the corners against the f64 reference.
void verify(const StencilGroup& g, const std::vector<double>& c, std::uint64_t seed,
            const float* out, Row* r) {
  auto in = [&](long long x, long long y, long long z) -> double {
    if (x < 0 || x >= g.nx || y < 0 || y >= g.ny || z < 0 || z >= g.nz) return 0.0;
    return stencil_value(g.smooth, seed, g.nx, g.ny, x + g.nx * (y + g.ny * z));
  };
  std::mt19937_64 gen(seed);
  const int terms = 1 + g.dims * 2 * g.radius;
  double worst = 0.0;
  std::int64_t bad = 0;
  for (int k = 0; k < kCheckPoints + 8; ++k) {
    long long x, y, z;
    if (k < 8) {
      x = (k & 1) ? g.nx - 1 : 0;
      y = (k & 2) ? g.ny - 1 : 0;
      z = (k & 4) ? g.nz - 1 : 0;
    } else {
      x = static_cast<long long>(gen() % g.nx);
      y = static_cast<long long>(gen() % g.ny);
      z = static_cast<long long>(gen() % g.nz);
    }
    double want = static_cast<float>(c[0]) * in(x, y, z), mag = std::fabs(want);
    for (int a = 0; a < g.dims; ++a)
      for (int o = -g.radius; o <= g.radius; ++o) {
        if (!o) continue;
        const double kf =
            static_cast<float>(c[1 + a * 2 * g.radius + (o < 0 ? o + g.radius : o + g.radius - 1)]);
        const double v = in(x + (a == 0) * o, y + (a == 1) * o, z + (a == 2) * o);
        want += kf * v;
        mag += std::fabs(kf * v);
      }
    const double got = out[x + g.nx * (y + g.ny * z)];
    const double err = std::fabs(got - want) / (mag > 0 ? mag : 1.0);
    worst = std::max(worst, err);
    if (!(err <= 4.0 * (terms + 2) * 5.96e-8)) {
      if (bad++ == 0)
        r->mismatch = "at (" + std::to_string(x) + "," + std::to_string(y) + "," +
                      std::to_string(z) + "): got " + fmt("%.9g", got) + ", want " +
                      fmt("%.9g", want);
    }
  }
  r->rel_err = worst;
  r->bad_elements = bad;
  r->correct = bad == 0;
}

void measure(BenchEnv& env, const StencilGroup& g, const VariantSpec& v, const DeviceBuffer& in,
             const DeviceBuffer& out, std::uint64_t seed, Row* r) {
  if (!force_for_row(env, GPUOPT_OP_STENCIL, v, r)) return;
  const std::vector<double> c = coeffs_of(g);
  const gpuopt_stencil_desc_t d = desc_of(g, c);
  CUDA_CHECK(cudaMemsetAsync(out.device_ptr(), 0xff, out.bytes(), env.cu));  // NaN poison
  GPUOPT_CHECK(gpuopt_stencil(env.ctx, env.stream, &d, in.device_ptr(), out.device_ptr()));
  const auto* host = static_cast<const float*>(env.copy_back(out, 0, out.bytes()));
  verify(g, c, seed, host, r);
  confirm_ran(env, GPUOPT_OP_STENCIL, v, r);
  time_into_row(
      env,
      [&] {
        GPUOPT_CHECK(gpuopt_stencil(env.ctx, env.stream, &d, in.device_ptr(), out.device_ptr()));
      },
      r);
  const double cells = static_cast<double>(g.nx) * g.ny * g.nz;
  r->note = fmt("%.0f MCells/s", cells / (r->ms * 1e-3) / 1e6);
}

}  // namespace

std::vector<StencilGroup> plan_stencil(const Options& opt, const std::vector<VariantSpec>& table) {
  std::vector<StencilGroup> groups;
  if (!opt.wants_op("stencil") || !opt.wants_dtype(GPUOPT_DTYPE_F32)) return groups;
  auto add = [&](int dims, int r, std::int64_t n, gpuopt_memory_kind_t mem, bool smooth) {
    StencilGroup g;
    g.dims = dims;
    g.radius = r;
    g.nx = g.ny = n;
    g.nz = dims == 3 ? n : 1;
    g.memory = mem;
    g.smooth = smooth;
    bool any = false;
    for (const VariantSpec& v : table) {
      if (!opt.wants_variant(v.name)) continue;
      if ((dims == 2 && is_3d_variant(v.name)) || (dims == 3 && is_2d_variant(v.name))) continue;
      if (smooth && v.name == "naive") continue;
      g.variants.push_back(v);
      any = true;
    }
    append_auto(opt, &g.variants, &any);
    if (any) groups.push_back(g);
  };
  add(2, 8, opt.quick ? 4096 : 16384, GPUOPT_MEMORY_DEVICE, false);
  const std::int64_t n3 = opt.quick ? 256 : 512;
  add(3, 4, n3, GPUOPT_MEMORY_DEVICE, false);
  add(3, 4, n3, GPUOPT_MEMORY_DEVICE, true);
  add(3, 4, n3, GPUOPT_MEMORY_COMPRESSIBLE, true);
  return groups;
}

int stencil_row_count(const std::vector<StencilGroup>& groups) {
  int n = 0;
  for (const StencilGroup& g : groups) n += static_cast<int>(g.variants.size());
  return n;
}

void run_stencil_group(BenchEnv& env, const StencilGroup& g, std::vector<Row>* rows) {
  const std::size_t bytes = static_cast<std::size_t>(g.nx * g.ny * g.nz) * sizeof(float);
  std::unique_ptr<DeviceBuffer> in, out;
  std::string setup_error;
  int compressed = -1;
  const std::uint64_t seed = env.next_seed();
  if (!env.broken()) {
    try {
      in = std::make_unique<DeviceBuffer>(env.ctx, bytes, g.memory);
      out = std::make_unique<DeviceBuffer>(env.ctx, bytes, g.memory);
      compressed = in->compressed() && out->compressed() ? 1 : 0;
      fill_stencil_grid(static_cast<float*>(in->device_ptr()), g.nx, g.ny, g.nz, g.smooth, seed,
                        env.cu);
      CUDA_CHECK(cudaStreamSynchronize(env.cu));
    } catch (const BenchError& e) {
      setup_error = e.what();
      env.note_error();
    }
  }
  for (const VariantSpec& v : g.variants) {
    const std::string data = g.smooth ? "smooth" : "random";
    const std::string mem = g.memory == GPUOPT_MEMORY_COMPRESSIBLE ? "compressible" : "device";
    Row r;
    r.op = "stencil";
    r.dtype = "f32";
    r.shape = shape_of(g);
    r.n = g.nx * g.ny * g.nz;
    r.variant = v.name;
    r.memory = mem;
    r.data = data;
    r.compressed = g.memory == GPUOPT_MEMORY_COMPRESSIBLE ? compressed : 0;
    r.bytes = 2.0 * static_cast<double>(bytes);  // one read and one write of the grid
    run_row(
        env, "stencil f32 " + shape_of(g) + " " + v.name + " [" + mem + ", " + data + "]", v,
        setup_error, r, [&](Row* row) { measure(env, g, v, *in, *out, seed, row); }, rows,
        [](const Row& done) {
          return progress_summary(done) + (done.note.empty() ? "" : ", " + done.note);
        });
  }
  const std::vector<double> c = coeffs_of(g);
  const gpuopt_stencil_desc_t d = desc_of(g, c);
  tune_step(env, setup_error, "stencil f32 " + shape_of(g), GPUOPT_OP_STENCIL, [&] {
    GPUOPT_CHECK(gpuopt_stencil(env.ctx, env.stream, &d, in->device_ptr(), out->device_ptr()));
  });
  env.restore_auto(GPUOPT_OP_STENCIL);
}

void compute_stencil_bars(Results& res, const std::vector<StencilGroup>& groups) {
  const double copy = res.roofs.copy_gbs;
  auto row_of = [&](const StencilGroup& g, const std::string& variant) -> const Row* {
    const std::string mem = g.memory == GPUOPT_MEMORY_COMPRESSIBLE ? "compressible" : "device";
    for (const Row& x : res.rows)
      if (x.op == "stencil" && x.shape == shape_of(g) && x.memory == mem &&
          x.data == (g.smooth ? "smooth" : "random") && x.variant == variant && x.correct &&
          x.error.empty())
        return &x;
    return nullptr;
  };
  auto add = [&](const std::string& name, double value, double min, const std::string& note) {
    Bar b;
    b.name = name;
    b.value = value;
    b.min = min;
    b.target = std::isfinite(min) ? ">= " + fmt("%.2f", min) : "report";
    b.pass = std::isfinite(value) && (!std::isfinite(min) || value >= min);
    b.note = note;
    res.bars.push_back(b);
  };
  const Row* smooth_device = nullptr;
  for (const StencilGroup& g : groups) {
    const Row* a = row_of(g, "auto");
    const std::string label =
        "stencil f32 " + std::string(g.dims == 2 ? "2D " : "3D ") + shape_of(g);
    const std::string note = a ? "auto ran " + a->ran_variant + ", " + fmt("%.0f", a->gbs) +
                                     " GB/s, " + a->note + ", copy " + fmt("%.0f", copy) + " GB/s"
                               : "";
    if (g.memory == GPUOPT_MEMORY_DEVICE && !g.smooth) {
      add(label + ": auto GB/s (1 read + 1 write) / copy roof", a ? a->gbs / copy : kNaN,
          g.dims == 2 ? 0.90 : 0.85, note);  // issue 19 (0.80 and 0.75 before)
      if (g.dims == 2) {
        const Row* t = row_of(g, "sm90_tma");
        const Row* s = row_of(g, "smem_sync");
        add(label + ": sm90_tma / smem_sync GB/s", t && s ? s->ms / t->ms : kNaN, 1.30,
            t && s ? fmt("%.0f", t->gbs) + " vs " + fmt("%.0f", s->gbs) + " GB/s" : "");
      }
    }
    if (g.smooth && g.memory == GPUOPT_MEMORY_DEVICE) smooth_device = a;
    if (g.smooth && g.memory == GPUOPT_MEMORY_COMPRESSIBLE) {
      const std::string state = a && a->compressed == 1   ? "buffers compressed"
                                : a && a->compressed == 0 ? "driver gave UNCOMPRESSED buffers"
                                                          : "compression unknown";
      add(label + ": smooth field, compressible / device GB/s (auto)",
          a && smooth_device ? smooth_device->ms / a->ms : kNaN, kNaN, state);
    }
  }
}

}  // namespace bench
