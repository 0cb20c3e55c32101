// One GDN problem on the device (forward and backward) and its CPU f64 reference.
//
// Inputs: x, dy uniform in [-1, 1), beta in [0.5, 1.5), gamma in [0, 2/C) (z stays positive, as
// the GDN paper requires). Outputs are allocated with a poisoned tail and poisoned before each
// call: every output element must be written and the tail left bitwise untouched. Tolerances are
// relative to each element's magnitude scale (the same sum with absolute values), so sums with
// cancellation (dbeta, dgamma) are judged fairly.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gpu_check.hpp"
#include "gpu_handles.hpp"
#include "gpuopt.h"
#include "random_data.hpp"

namespace gput {

struct GdnCase {
  std::int64_t n = 1, c = 1, h = 1, w = 1;
  int inverse = 0;
  gpuopt_compute_t compute = GPUOPT_COMPUTE_DEFAULT;

  std::int64_t pixels() const { return h * w; }
  std::int64_t total() const { return n * c * h * w; }
  double tol() const { return compute == GPUOPT_COMPUTE_TF32 ? 5e-3 : 1e-5; }
  std::string str() const {
    std::ostringstream os;
    os << "N=" << n << " C=" << c << " HxW=" << h << "x" << w << (inverse ? " inverse" : "")
       << (compute == GPUOPT_COMPUTE_TF32 ? " tf32" : " f32");
    return os.str();
  }
  gpuopt_gdn_desc_t desc() const {
    gpuopt_gdn_desc_t d{};
    d.struct_size = sizeof d;
    d.batch = n;
    d.channels = c;
    d.height = h;
    d.width = w;
    d.inverse = inverse;
    d.compute = compute;
    return d;
  }
};

inline GdnCase gdn_case(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w,
                        int inverse = 0, gpuopt_compute_t compute = GPUOPT_COMPUTE_DEFAULT) {
  GdnCase k;
  k.n = n;
  k.c = c;
  k.h = h;
  k.w = w;
  k.inverse = inverse;
  k.compute = compute;
  return k;
}

inline float gdn_poison() {
  float v;
  const std::uint32_t bits = 0x7fc5a5a5u;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// CPU f64 reference of both passes, with the per-element magnitude scales.
struct GdnReference {
  std::vector<double> y, y_scale, dx, dx_scale, dbeta, dbeta_scale, dgamma, dgamma_scale;

  static void scale_of(double z, bool inverse, double* s, double* dsdz) {
    *s = inverse ? std::sqrt(z) : 1.0 / std::sqrt(z);
    *dsdz = inverse ? 0.5 / *s : -0.5 * *s / z;
  }

  // Forward only (for the finite differences): y of inputs given in double.
  static std::vector<double> forward(const GdnCase& k, const std::vector<double>& x,
                                     const std::vector<double>& beta,
                                     const std::vector<double>& gamma) {
    const std::int64_t C = k.c, P = k.pixels();
    std::vector<double> y(x.size());
    for (std::int64_t n = 0; n < k.n; ++n)
      for (std::int64_t p = 0; p < P; ++p)
        for (std::int64_t i = 0; i < C; ++i) {
          double z = beta[i];
          for (std::int64_t j = 0; j < C; ++j) {
            const double xj = x[(n * C + j) * P + p];
            z += gamma[i * C + j] * xj * xj;
          }
          double s, d;
          scale_of(z, k.inverse != 0, &s, &d);
          y[(n * C + i) * P + p] = x[(n * C + i) * P + p] * s;
        }
    return y;
  }

  void compute(const GdnCase& k, const std::vector<float>& x, const std::vector<float>& beta,
               const std::vector<float>& gamma, const std::vector<float>& dy) {
    const std::int64_t C = k.c, P = k.pixels(), T = k.total();
    y.assign(T, 0);
    y_scale.assign(T, 0);
    dx.assign(T, 0);
    dx_scale.assign(T, 0);
    dbeta.assign(C, 0);
    dbeta_scale.assign(C, 0);
    dgamma.assign(C * C, 0);
    dgamma_scale.assign(C * C, 0);
    std::vector<double> t(C), s(C), x2(C);
    for (std::int64_t n = 0; n < k.n; ++n)
      for (std::int64_t p = 0; p < P; ++p) {
        auto at = [&](std::int64_t ch) { return (n * C + ch) * P + p; };
        for (std::int64_t j = 0; j < C; ++j) x2[j] = double(x[at(j)]) * x[at(j)];
        for (std::int64_t i = 0; i < C; ++i) {
          double z = beta[i];
          for (std::int64_t j = 0; j < C; ++j) z += double(gamma[i * C + j]) * x2[j];
          double d;
          scale_of(z, k.inverse != 0, &s[i], &d);
          y[at(i)] = x[at(i)] * s[i];
          y_scale[at(i)] = std::fabs(y[at(i)]);
          t[i] = dy[at(i)] * double(x[at(i)]) * d;
          dbeta[i] += t[i];
          dbeta_scale[i] += std::fabs(t[i]);
          for (std::int64_t j = 0; j < C; ++j) {
            dgamma[i * C + j] += t[i] * x2[j];
            dgamma_scale[i * C + j] += std::fabs(t[i]) * x2[j];
          }
        }
        for (std::int64_t kk = 0; kk < C; ++kk) {
          double u = 0, ua = 0;
          for (std::int64_t i = 0; i < C; ++i) {
            u += double(gamma[i * C + kk]) * t[i];
            ua += double(gamma[i * C + kk]) * std::fabs(t[i]);
          }
          dx[at(kk)] = dy[at(kk)] * s[kk] + 2.0 * x[at(kk)] * u;
          dx_scale[at(kk)] = std::fabs(dy[at(kk)] * s[kk]) + 2.0 * std::fabs(x[at(kk)]) * ua;
        }
      }
  }
};

// Compares got[0, count) to ref within tol * scale (plus a tiny absolute floor), and the
// poisoned tail got[count, end) bitwise untouched.
inline ::testing::AssertionResult gdn_compare(const char* what, const std::vector<float>& got,
                                              std::size_t count, const std::vector<double>& ref,
                                              const std::vector<double>& scale, double tol) {
  std::int64_t bad = 0;
  std::ostringstream first;
  double worst = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double err = std::fabs(double(got[i]) - ref[i]);
    const double bound = tol * scale[i] + 1e-30;
    if (scale[i] > 0) worst = std::max(worst, err / scale[i]);
    if (!(err <= bound) && bad++ < 5)
      first << "\n  " << what << "[" << i << "] = " << got[i] << ", expected " << ref[i]
            << " (scale " << scale[i] << ")";
  }
  const float poison = gdn_poison();
  for (std::size_t i = count; i < got.size(); ++i)
    if (std::memcmp(&got[i], &poison, sizeof poison) != 0 && bad++ < 5)
      first << "\n  " << what << " pad element " << i - count << " was overwritten";
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << bad << " bad elements (worst relative "
                                       << worst << ", tol " << tol << ")" << first.str();
}

// The device side of one case: inputs uploaded, outputs poisoned, workspace of the queried size.
class GdnData {
 public:
  static constexpr std::size_t kPad = 37;

  GdnData(const GdnCase& k, Rng& rng)
      : k_(k),
        x_(k.total() + 1),
        dy_(k.total() + 1),
        beta_(k.c),
        gamma_(k.c * k.c),
        y_(k.total() + kPad),
        dx_(k.total() + kPad),
        dbeta_(k.c + kPad),
        dgamma_(k.c * k.c + kPad) {
    hx_.resize(k.total());
    hdy_.resize(k.total());
    hbeta_.resize(k.c);
    hgamma_.resize(k.c * k.c);
    for (float& v : hx_) v = static_cast<float>(rng.uniform(-1.0, 1.0));
    for (float& v : hdy_) v = static_cast<float>(rng.uniform(-1.0, 1.0));
    for (float& v : hbeta_) v = static_cast<float>(rng.uniform(0.5, 1.5));
    for (float& v : hgamma_) v = static_cast<float>(rng.uniform(0.0, 2.0 / k.c));
    x_.upload(hx_);
    dy_.upload(hdy_);
    beta_.upload(hbeta_);
    gamma_.upload(hgamma_);
  }

  // Replaces x, beta and gamma (sizes of the case) on the host and the device; the reference
  // follows them.
  void set_inputs(std::vector<float> x, std::vector<float> beta, std::vector<float> gamma) {
    hx_ = std::move(x);
    hbeta_ = std::move(beta);
    hgamma_ = std::move(gamma);
    x_.upload(hx_);
    beta_.upload(hbeta_);
    gamma_.upload(hgamma_);
    have_ref_ = false;
  }

  const GdnCase& kase() const { return k_; }
  const std::vector<float>& hx() const { return hx_; }
  const std::vector<float>& hdy() const { return hdy_; }
  const std::vector<float>& hbeta() const { return hbeta_; }
  const std::vector<float>& hgamma() const { return hgamma_; }

  // Poisons every output (and its pad).
  void poison() {
    for (DeviceArray<float>* a : {&y_, &dx_, &dbeta_, &dgamma_})
      a->upload(std::vector<float>(a->size(), gdn_poison()));
  }

  // Allocates the workspace of the larger pass (once).
  ::testing::AssertionResult prepare(gpuopt_context_t ctx) {
    const gpuopt_gdn_desc_t d = k_.desc();
    size_t f = 0, b = 0;
    if (gpuopt_gdn_workspace_size(ctx, &d, GPUOPT_GDN_FORWARD, &f) != GPUOPT_SUCCESS ||
        gpuopt_gdn_workspace_size(ctx, &d, GPUOPT_GDN_BACKWARD, &b) != GPUOPT_SUCCESS)
      return ::testing::AssertionFailure() << "gpuopt_gdn_workspace_size: " << last_message();
    ws_bytes_ = std::max(f, b);
    ws_.reset(new DeviceArray<unsigned char>(ws_bytes_));
    return ::testing::AssertionSuccess();
  }

  gpuopt_status_t forward(gpuopt_context_t ctx, gpuopt_stream_t s) const {
    const gpuopt_gdn_desc_t d = k_.desc();
    return gpuopt_gdn_forward(ctx, s, &d, x_.data(), beta_.data(), gamma_.data(), y_.data(),
                              ws_bytes_ ? ws_->data() : nullptr, ws_bytes_);
  }
  gpuopt_status_t backward(gpuopt_context_t ctx, gpuopt_stream_t s) const {
    const gpuopt_gdn_desc_t d = k_.desc();
    return gpuopt_gdn_backward(ctx, s, &d, x_.data(), beta_.data(), gamma_.data(), dy_.data(),
                               dx_.data(), dbeta_.data(), dgamma_.data(),
                               ws_bytes_ ? ws_->data() : nullptr, ws_bytes_);
  }

  const GdnReference& reference() {
    if (!have_ref_) {
      ref_.compute(k_, hx_, hbeta_, hgamma_, hdy_);
      have_ref_ = true;
    }
    return ref_;
  }

  ::testing::AssertionResult check_forward(double tol) {
    const GdnReference& r = reference();
    return gdn_compare("y", y_.download(), k_.total(), r.y, r.y_scale, tol);
  }
  ::testing::AssertionResult check_forward() { return check_forward(k_.tol()); }
  ::testing::AssertionResult check_backward(double tol) {
    const GdnReference& r = reference();
    ::testing::AssertionResult a =
        gdn_compare("dx", dx_.download(), k_.total(), r.dx, r.dx_scale, tol);
    if (!a) return a;
    a = gdn_compare("dbeta", dbeta_.download(), k_.c, r.dbeta, r.dbeta_scale, tol);
    if (!a) return a;
    return gdn_compare("dgamma", dgamma_.download(), k_.c * k_.c, r.dgamma, r.dgamma_scale, tol);
  }
  ::testing::AssertionResult check_backward() { return check_backward(k_.tol()); }

  // True when every output is still poisoned (nothing ran).
  bool untouched() const {
    const float poison = gdn_poison();
    for (const DeviceArray<float>* a : {&y_, &dx_, &dbeta_, &dgamma_})
      for (float v : a->download())
        if (std::memcmp(&v, &poison, sizeof v) != 0) return false;
    return true;
  }

  std::vector<float> dx() const { return dx_.download(); }
  std::vector<float> dbeta() const { return dbeta_.download(); }
  std::vector<float> dgamma() const { return dgamma_.download(); }
  const float* x_dev() const { return x_.data(); }
  const float* beta_dev() const { return beta_.data(); }
  const float* gamma_dev() const { return gamma_.data(); }
  float* y_dev() const { return y_.data(); }
  float* dx_dev() const { return dx_.data(); }
  float* dbeta_dev() const { return dbeta_.data(); }
  float* dgamma_dev() const { return dgamma_.data(); }
  const float* dy_dev() const { return dy_.data(); }
  unsigned char* ws() const { return ws_ ? ws_->data() : nullptr; }
  std::size_t ws_bytes() const { return ws_bytes_; }

 private:
  GdnCase k_;
  std::vector<float> hx_, hdy_, hbeta_, hgamma_;
  DeviceArray<float> x_, dy_, beta_, gamma_, y_, dx_, dbeta_, dgamma_;
  std::unique_ptr<DeviceArray<unsigned char>> ws_;
  std::size_t ws_bytes_ = 0;
  GdnReference ref_;
  bool have_ref_ = false;
};

}  // namespace gput
