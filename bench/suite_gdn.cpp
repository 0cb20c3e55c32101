// The gdn rows (see suite_gdn.hpp).
#include "suite_gdn.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <thread>

#include "check.hpp"
#include "row_steps.hpp"
#include "timer.hpp"

namespace bench {
namespace {

constexpr double kMinRatio = 2.5;  // issue 19: every pass at least 2.5x composed

std::string shape_of(const GdnGroup& g) {
  return std::string(g.backward ? "backward" : "forward") + " N=" + std::to_string(g.n) +
         " C=" + std::to_string(g.c) + " " + std::to_string(g.h) + "x" + std::to_string(g.w);
}

gpuopt_gdn_desc_t desc_of(const GdnGroup& g) {
  gpuopt_gdn_desc_t d{};
  d.struct_size = sizeof d;
  d.batch = g.n;
  d.channels = g.c;
  d.height = g.h;
  d.width = g.w;
  d.compute = g.tf32 ? GPUOPT_COMPUTE_TF32 : GPUOPT_COMPUTE_F32;
  return d;
}

// Host inputs and the f64 reference (stored as f32 with a magnitude scale per element).
struct GdnHost {
  std::int64_t n = 0, c = 0, p = 0;
  std::vector<float> x, dy, beta, gamma;
  std::vector<float> y, y_scale, dx, dx_scale;
  std::vector<double> dbeta, dbeta_scale, dgamma, dgamma_scale;

  void make(const GdnGroup& g, std::uint64_t seed) {
    n = g.n;
    c = g.c;
    p = g.h * g.w;
    const std::size_t total = static_cast<std::size_t>(n * c * p);
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<float> u(-1.f, 1.f), b(0.5f, 1.5f),
        gm(0.f, 2.f / static_cast<float>(c));
    x.resize(total);
    dy.resize(total);
    for (float& v : x) v = u(gen);
    for (float& v : dy) v = u(gen);
    beta.resize(c);
    for (float& v : beta) v = b(gen);
    gamma.resize(c * c);
    for (float& v : gamma) v = gm(gen);
    reference();
  }

  // Every (image, pixel), split over the host's cores; each worker keeps its own dbeta/dgamma
  // sums, added in worker order afterwards.
  void reference() {
    const std::size_t total = x.size();
    y.assign(total, 0.f);
    y_scale.assign(total, 0.f);
    dx.assign(total, 0.f);
    dx_scale.assign(total, 0.f);
    const int workers = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
    std::vector<std::vector<double>> db(workers, std::vector<double>(2 * c, 0.0)),
        dg(workers, std::vector<double>(2 * c * c, 0.0));
    const std::int64_t columns = n * p;
    auto work = [&](int wk) {
      std::vector<double> x2(c), s(c), t(c), ta(c);
      std::vector<double>& mb = db[wk];
      std::vector<double>& mg = dg[wk];
      for (std::int64_t col = wk; col < columns; col += workers) {
        const std::int64_t img = col / p, pix = col % p;
        auto at = [&](std::int64_t ch) {
          return static_cast<std::size_t>((img * c + ch) * p + pix);
        };
        for (std::int64_t j = 0; j < c; ++j) x2[j] = double(x[at(j)]) * x[at(j)];
        for (std::int64_t i = 0; i < c; ++i) {
          double z = beta[i];
          const float* gr = &gamma[i * c];
          for (std::int64_t j = 0; j < c; ++j) z += double(gr[j]) * x2[j];
          s[i] = 1.0 / std::sqrt(z);
          const double dsdz = -0.5 * s[i] / z;
          y[at(i)] = static_cast<float>(x[at(i)] * s[i]);
          y_scale[at(i)] = std::fabs(y[at(i)]);
          t[i] = dy[at(i)] * double(x[at(i)]) * dsdz;
          ta[i] = std::fabs(t[i]);
          mb[i] += t[i];
          mb[c + i] += ta[i];
          double* row = &mg[i * c];
          double* rowa = &mg[c * c + i * c];
          for (std::int64_t j = 0; j < c; ++j) {
            row[j] += t[i] * x2[j];
            rowa[j] += ta[i] * x2[j];
          }
        }
        for (std::int64_t k = 0; k < c; ++k) {
          double u = 0, ua = 0;
          for (std::int64_t i = 0; i < c; ++i) {
            u += double(gamma[i * c + k]) * t[i];
            ua += double(gamma[i * c + k]) * ta[i];
          }
          dx[at(k)] = static_cast<float>(dy[at(k)] * s[k] + 2.0 * x[at(k)] * u);
          dx_scale[at(k)] =
              static_cast<float>(std::fabs(dy[at(k)] * s[k]) + 2.0 * std::fabs(x[at(k)]) * ua);
        }
      }
    };
    std::vector<std::thread> pool;
    for (int wk = 0; wk < workers; ++wk) pool.emplace_back(work, wk);
    for (std::thread& th : pool) th.join();
    dbeta.assign(c, 0.0);
    dbeta_scale.assign(c, 0.0);
    dgamma.assign(c * c, 0.0);
    dgamma_scale.assign(c * c, 0.0);
    for (int wk = 0; wk < workers; ++wk) {
      for (std::int64_t i = 0; i < c; ++i) {
        dbeta[i] += db[wk][i];
        dbeta_scale[i] += db[wk][c + i];
      }
      for (std::int64_t e = 0; e < c * c; ++e) {
        dgamma[e] += dg[wk][e];
        dgamma_scale[e] += dg[wk][c * c + e];
      }
    }
  }
};

// Worst |got - want| / scale over the elements; counts those above tol.
template <class Want>
double worst_error(const float* got, const Want& want, const Want& scale, std::size_t count,
                   double tol, std::int64_t* bad) {
  double worst = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double err = std::fabs(double(got[i]) - double(want[i]));
    const double sc = double(scale[i]) > 1e-30 ? double(scale[i]) : 1e-30;
    if (!(err <= tol * sc)) ++*bad;
    worst = std::max(worst, std::isfinite(err) ? err / sc : INFINITY);
  }
  return worst;
}

struct GdnDevice {
  std::unique_ptr<DeviceBuffer> x, dy, beta, gamma, out, dbeta, dgamma, ws;
  std::size_t ws_bytes = 0;
};

void measure(BenchEnv& env, const GdnGroup& g, const VariantSpec& v, const GdnHost& h, GdnDevice& d,
             Row* r) {
  if (!force_for_row(env, GPUOPT_OP_GDN, v, r)) return;
  const gpuopt_gdn_desc_t desc = desc_of(g);
  auto* x = static_cast<const float*>(d.x->device_ptr());
  auto* beta = static_cast<const float*>(d.beta->device_ptr());
  auto* gamma = static_cast<const float*>(d.gamma->device_ptr());
  auto* out = static_cast<float*>(d.out->device_ptr());
  auto call = [&] {
    if (!g.backward) {
      GPUOPT_CHECK(gpuopt_gdn_forward(env.ctx, env.stream, &desc, x, beta, gamma, out,
                                      d.ws->device_ptr(), d.ws_bytes));
    } else {
      GPUOPT_CHECK(gpuopt_gdn_backward(
          env.ctx, env.stream, &desc, x, beta, gamma, static_cast<const float*>(d.dy->device_ptr()),
          out, static_cast<float*>(d.dbeta->device_ptr()),
          static_cast<float*>(d.dgamma->device_ptr()), d.ws->device_ptr(), d.ws_bytes));
    }
  };
  const std::size_t total = h.x.size();
  CUDA_CHECK(cudaMemsetAsync(out, 0xff, total * sizeof(float), env.cu));
  try {
    call();
  } catch (const BenchError& e) {
    // A variant that does not implement this pass or mode (sm90_onepass_fused: the tf32
    // backward pass only) is skipped, not failed.
    if (e.status() == GPUOPT_ERROR_UNSUPPORTED && !v.is_vendor && !v.is_auto) {
      r->skipped = true;
      r->error = std::string("skipped: ") + e.what();
      return;
    }
    throw;
  }
  GPUOPT_CHECK(gpuopt_stream_synchronize(env.stream));
  const double tol = g.tf32 ? 5e-3 : 1e-5;
  std::vector<float> got(total);
  CUDA_CHECK(cudaMemcpy(got.data(), out, total * sizeof(float), cudaMemcpyDeviceToHost));
  std::int64_t bad = 0;
  double worst = g.backward ? worst_error(got.data(), h.dx, h.dx_scale, total, tol, &bad)
                            : worst_error(got.data(), h.y, h.y_scale, total, tol, &bad);
  if (g.backward) {
    std::vector<float> db(h.c), dg(h.c * h.c);
    CUDA_CHECK(cudaMemcpy(db.data(), d.dbeta->device_ptr(), db.size() * 4, cudaMemcpyDeviceToHost));
    CUDA_CHECK(
        cudaMemcpy(dg.data(), d.dgamma->device_ptr(), dg.size() * 4, cudaMemcpyDeviceToHost));
    worst = std::max(worst, worst_error(db.data(), h.dbeta, h.dbeta_scale, db.size(), tol, &bad));
    worst = std::max(worst, worst_error(dg.data(), h.dgamma, h.dgamma_scale, dg.size(), tol, &bad));
  }
  r->rel_err = worst;
  r->bad_elements = bad;
  r->correct = bad == 0;
  if (bad) r->mismatch = std::to_string(bad) + " elements beyond tol * scale";
  confirm_ran(env, GPUOPT_OP_GDN, v, r);
  time_into_row(env, call, r);
}

const Row* find(const Results& res, const GdnGroup& g, const std::string& variant) {
  const std::string dtype = g.tf32 ? "tf32" : "f32";
  for (const Row& r : res.rows)
    if (r.op == "gdn" && r.dtype == dtype && r.shape == shape_of(g) && r.variant == variant &&
        r.error.empty() && r.correct)
      return &r;
  return nullptr;
}

}  // namespace

std::vector<GdnGroup> plan_gdn(const Options& opt, const std::vector<VariantSpec>& table) {
  std::vector<GdnGroup> groups;
  if (!opt.wants_op("gdn")) return groups;
  for (bool backward : {false, true})
    for (bool tf32 : {false, true}) {
      GdnGroup g;
      g.backward = backward;
      g.tf32 = tf32;
      if (opt.quick) g.n = 4;
      bool any = false;
      for (const VariantSpec& v : table) {
        const bool chosen = opt.wants_variant(v.name);
        any = any || chosen;
        if (chosen || v.name == "composed") g.variants.push_back(v);
      }
      append_auto(opt, &g.variants, &any);
      if (any) groups.push_back(g);
    }
  return groups;
}

int gdn_row_count(const std::vector<GdnGroup>& groups) {
  int n = 0;
  for (const GdnGroup& g : groups) n += static_cast<int>(g.variants.size());
  return n;
}

void run_gdn_groups(BenchEnv& env, const std::vector<GdnGroup>& groups, std::vector<Row>* rows) {
  if (groups.empty()) return;
  GdnHost h;
  GdnDevice d;
  std::string setup_error;
  if (!env.broken()) {
    try {
      h.make(groups.front(), env.next_seed());
      const std::size_t tb = h.x.size() * sizeof(float);
      d.x = std::make_unique<DeviceBuffer>(env.ctx, tb, GPUOPT_MEMORY_DEVICE);
      d.dy = std::make_unique<DeviceBuffer>(env.ctx, tb, GPUOPT_MEMORY_DEVICE);
      d.out = std::make_unique<DeviceBuffer>(env.ctx, tb, GPUOPT_MEMORY_DEVICE);
      d.beta = std::make_unique<DeviceBuffer>(env.ctx, h.c * 4, GPUOPT_MEMORY_DEVICE);
      d.dbeta = std::make_unique<DeviceBuffer>(env.ctx, h.c * 4, GPUOPT_MEMORY_DEVICE);
      d.gamma = std::make_unique<DeviceBuffer>(env.ctx, h.c * h.c * 4, GPUOPT_MEMORY_DEVICE);
      d.dgamma = std::make_unique<DeviceBuffer>(env.ctx, h.c * h.c * 4, GPUOPT_MEMORY_DEVICE);
      const gpuopt_gdn_desc_t desc = desc_of(groups.front());
      std::size_t f = 0, b = 0;
      GPUOPT_CHECK(gpuopt_gdn_workspace_size(env.ctx, &desc, GPUOPT_GDN_FORWARD, &f));
      GPUOPT_CHECK(gpuopt_gdn_workspace_size(env.ctx, &desc, GPUOPT_GDN_BACKWARD, &b));
      d.ws_bytes = std::max(f, b);
      d.ws = std::make_unique<DeviceBuffer>(env.ctx, d.ws_bytes, GPUOPT_MEMORY_DEVICE);
      CUDA_CHECK(cudaMemcpy(d.x->device_ptr(), h.x.data(), tb, cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(d.dy->device_ptr(), h.dy.data(), tb, cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(d.beta->device_ptr(), h.beta.data(), h.c * 4, cudaMemcpyHostToDevice));
      CUDA_CHECK(
          cudaMemcpy(d.gamma->device_ptr(), h.gamma.data(), h.c * h.c * 4, cudaMemcpyHostToDevice));
    } catch (const BenchError& e) {
      setup_error = e.what();
      env.note_error();
    }
  }
  for (const GdnGroup& g : groups) {
    for (const VariantSpec& v : g.variants) {
      Row r;
      r.op = "gdn";
      r.dtype = g.tf32 ? "tf32" : "f32";
      r.compute = r.dtype;
      r.shape = shape_of(g);
      r.n = g.n;
      r.variant = v.name;
      r.memory = "device";
      r.data = "random";
      r.is_vendor = v.name == "composed";  // the baseline of the bar (cuBLAS-based)
      if (r.is_vendor) r.note = "the bars' baseline (elementwise kernels + cuBLAS)";
      const double total = static_cast<double>(g.n * g.c * g.h * g.w);
      r.bytes = (g.backward ? 3.0 : 2.0) * total * 4.0;  // x (dy) read, y (dx) written once
      r.flops = (g.backward ? 3.0 : 1.0) * 2.0 * total * static_cast<double>(g.c);
      run_row(
          env, "gdn " + std::string(g.tf32 ? "tf32 " : "f32 ") + shape_of(g) + " " + v.name, v,
          setup_error, r, [&](Row* row) { measure(env, g, v, h, d, row); }, rows);
    }
  }
  env.restore_auto(GPUOPT_OP_GDN);
}

void compute_gdn_bars(Results& res, const std::vector<GdnGroup>& groups) {
  for (const GdnGroup& g : groups) {
    // The fused design's row: the variant auto ran when that is of the fused family (on the
    // H200 sm90_wgmma_fused, the fused design on wgmma, for the forward pass), else
    // `sm80_mma_fused` (named `fused` before issue 18; the bar's name stays "fused ms").
    const Row* autorow = find(res, g, "auto");
    const std::string ran = autorow ? autorow->ran_variant : "";
    const std::string fam = ran.find("fused") != std::string::npos ? ran : "sm80_mma_fused";
    const Row* fused = find(res, g, fam);
    const Row* composed = find(res, g, "composed");
    Bar b;
    b.name = "gdn " + std::string(g.backward ? "backward " : "forward ") +
             (g.tf32 ? "tf32" : "f32") + " N=" + std::to_string(g.n) + " C=" + std::to_string(g.c) +
             ": composed ms / fused ms";
    b.value = fused && composed ? composed->ms / fused->ms : kNaN;
    b.min = kMinRatio;
    b.target = ">= " + fmt("%.2f", kMinRatio);
    b.pass = std::isfinite(b.value) && b.value >= kMinRatio;
    char note[160];
    std::snprintf(note, sizeof note, "%s %.4f ms, composed %.4f ms", fam.c_str(),
                  fused ? fused->ms : kNaN, composed ? composed->ms : kNaN);
    b.note = note;
    res.bars.push_back(b);
  }
}

}  // namespace bench
