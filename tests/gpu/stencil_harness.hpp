// One gpuopt_stencil problem on the device, checked against a CPU reference in f64.
//
// The input (random values in [-1, 1], rounded to the dtype) fills the grid; the pitch padding
// holds NaN, so a kernel that reads padding instead of applying the boundary is caught. The output
// is poisoned with NaN everywhere before the call: every grid element must be written, and the
// padding must keep its poison. Tolerance per element: 4 * (terms + 2) * eps(dtype) * sum |c * x|
// over the element's terms (the kernels use the coefficients rounded to the dtype, and sum in it).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_check.hpp"
#include "gpu_handles.hpp"
#include "gpuopt.h"
#include "random_data.hpp"

namespace gput {

struct StencilSpec {
  gpuopt_dtype_t dtype = GPUOPT_DTYPE_F32;
  int dims = 2;
  int radius = 1;
  gpuopt_boundary_t boundary = GPUOPT_BOUNDARY_ZERO;
  std::int64_t nx = 1, ny = 1, nz = 1;
  std::int64_t in_pitch = 0, in_slice = 0, out_pitch = 0, out_slice = 0;  // 0: dense
};

inline std::string describe(const StencilSpec& s) {
  std::ostringstream o;
  o << (s.dtype == GPUOPT_DTYPE_F64 ? "f64 " : "f32 ") << s.dims << "D r=" << s.radius
    << (s.boundary == GPUOPT_BOUNDARY_ZERO ? " zero " : " clamp ") << s.nx << "x" << s.ny;
  if (s.dims == 3) o << "x" << s.nz;
  o << " pitch in " << s.in_pitch << "/" << s.in_slice << " out " << s.out_pitch << "/"
    << s.out_slice;
  return o.str();
}

class StencilCase {
 public:
  StencilCase(StencilSpec spec, std::uint64_t seed) : s_(spec), rng_(seed) {
    if (s_.dims == 2) s_.nz = 1;
    if (!s_.in_pitch) s_.in_pitch = s_.nx;
    if (!s_.out_pitch) s_.out_pitch = s_.nx;
    if (!s_.in_slice) s_.in_slice = s_.in_pitch * s_.ny;
    if (!s_.out_slice) s_.out_slice = s_.out_pitch * s_.ny;
    es_ = s_.dtype == GPUOPT_DTYPE_F64 ? 8 : 4;
    in_n_ = static_cast<std::size_t>(s_.in_slice * s_.nz);
    out_n_ = static_cast<std::size_t>(s_.out_slice * s_.nz);
    in_.assign(in_n_, std::numeric_limits<double>::quiet_NaN());
    for (std::int64_t z = 0; z < s_.nz; ++z)
      for (std::int64_t y = 0; y < s_.ny; ++y)
        for (std::int64_t x = 0; x < s_.nx; ++x) in_[idx_in(x, y, z)] = round(rng_.uniform(-1, 1));
    coeffs_.resize(1 + s_.dims * 2 * s_.radius);
    for (double& c : coeffs_) c = rng_.uniform(-1, 1);
    din_ = std::make_unique<DeviceArray<unsigned char>>(in_n_ * es_ + 16);
    dout_ = std::make_unique<DeviceArray<unsigned char>>(out_n_ * es_ + 16);
  }

  const StencilSpec& spec() const { return s_; }
  std::vector<double>& coeffs() { return coeffs_; }

  gpuopt_stencil_desc_t desc() const {
    gpuopt_stencil_desc_t d{};
    d.struct_size = sizeof d;
    d.dtype = s_.dtype;
    d.dims = s_.dims;
    d.radius = s_.radius;
    d.boundary = s_.boundary;
    d.nx = s_.nx;
    d.ny = s_.ny;
    d.nz = s_.nz;
    d.in_pitch = s_.in_pitch;
    d.in_slice_pitch = s_.in_slice;
    d.out_pitch = s_.out_pitch;
    d.out_slice_pitch = s_.out_slice;
    d.coeffs = coeffs_.data();
    return d;
  }

  void upload() {
    ASSERT_TRUE(din_->ok() && dout_->ok());
    const std::vector<unsigned char> bytes = encode(in_);
    ASSERT_CUDA_OK(cudaMemcpy(din_->data(), bytes.data(), bytes.size(), cudaMemcpyDefault));
    reset_out();
  }
  void reset_out() {
    const std::vector<unsigned char> poison =
        encode(std::vector<double>(out_n_, std::numeric_limits<double>::quiet_NaN()));
    ASSERT_CUDA_OK(cudaMemcpy(dout_->data(), poison.data(), poison.size(), cudaMemcpyDefault));
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
  }

  gpuopt_status_t run(gpuopt_context_t ctx, gpuopt_stream_t stream) const {
    const gpuopt_stencil_desc_t d = desc();
    return gpuopt_stencil(ctx, stream, &d, din_->data(), dout_->data());
  }

  // Compares the output with the reference of `coeffs` (default: the case's own). The
  // reference is computed once per coefficient set and kept.
  ::testing::AssertionResult check(const std::vector<double>* coeffs = nullptr) {
    const std::vector<double>& c = coeffs ? *coeffs : coeffs_;
    if (c != ref_coeffs_) build_reference(c);
    std::vector<unsigned char> bytes(out_n_ * es_);
    if (cudaMemcpy(bytes.data(), dout_->data(), bytes.size(), cudaMemcpyDefault) != cudaSuccess)
      return ::testing::AssertionFailure() << "copy back failed";
    const double eps = es_ == 8 ? 1.1102230246251565e-16 : 5.9604644775390625e-08;
    const int terms = 1 + s_.dims * 2 * s_.radius;
    std::int64_t bad = 0;
    std::ostringstream first;
    for (std::size_t i = 0; i < out_n_; ++i) {
      const std::int64_t z = static_cast<std::int64_t>(i) / s_.out_slice;
      const std::int64_t rem = static_cast<std::int64_t>(i) - z * s_.out_slice;
      const std::int64_t y = rem / s_.out_pitch, x = rem - y * s_.out_pitch;
      const double got = value(bytes, i);
      const bool in_grid = x < s_.nx && y < s_.ny && z < s_.nz;
      bool ok;
      double want = std::numeric_limits<double>::quiet_NaN();
      if (!in_grid) {
        ok = std::isnan(got);  // padding keeps its poison
      } else {
        const std::size_t g = static_cast<std::size_t>(x + s_.nx * (y + s_.ny * z));
        want = ref_[g];
        ok = std::fabs(got - want) <= 4.0 * (terms + 2) * eps * mag_[g] + 1e-300;
      }
      if (!ok && bad++ == 0)
        first << "first bad at (" << x << ", " << y << ", " << z << ")"
              << (in_grid ? "" : " [padding]") << ": got " << got << ", want " << want;
    }
    if (bad == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << bad << " wrong elements of " << describe(s_) << "; " << first.str();
  }

 private:
  std::size_t idx_in(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return static_cast<std::size_t>(x + y * s_.in_pitch + z * s_.in_slice);
  }
  double round(double v) const { return es_ == 8 ? v : static_cast<double>(static_cast<float>(v)); }
  double coef(const std::vector<double>& c, int i) const { return round(c[i]); }

  // Input at (x, y, z) after the boundary rule.
  double at(std::int64_t x, std::int64_t y, std::int64_t z) const {
    auto clampi = [](std::int64_t v, std::int64_t n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); };
    if (s_.boundary == GPUOPT_BOUNDARY_CLAMP) {
      x = clampi(x, s_.nx);
      y = clampi(y, s_.ny);
      z = clampi(z, s_.nz);
    } else if (x < 0 || x >= s_.nx || y < 0 || y >= s_.ny || z < 0 || z >= s_.nz) {
      return 0.0;
    }
    return in_[idx_in(x, y, z)];
  }

  void build_reference(const std::vector<double>& c) {
    const std::size_t cells = static_cast<std::size_t>(s_.nx * s_.ny * s_.nz);
    ref_.resize(cells);
    mag_.resize(cells);
    std::size_t g = 0;
    for (std::int64_t z = 0; z < s_.nz; ++z)
      for (std::int64_t y = 0; y < s_.ny; ++y)
        for (std::int64_t x = 0; x < s_.nx; ++x, ++g) ref_[g] = reference(c, x, y, z, &mag_[g]);
    ref_coeffs_ = c;
  }

  double reference(const std::vector<double>& c, std::int64_t x, std::int64_t y, std::int64_t z,
                   double* mag) const {
    const int r = s_.radius;
    double sum = coef(c, 0) * at(x, y, z);
    *mag = std::fabs(sum);
    for (int a = 0; a < s_.dims; ++a) {
      for (int o = -r; o <= r; ++o) {
        if (o == 0) continue;
        const double k = coef(c, 1 + a * 2 * r + (o < 0 ? o + r : o + r - 1));
        const double v = at(x + (a == 0 ? o : 0), y + (a == 1 ? o : 0), z + (a == 2 ? o : 0));
        sum += k * v;
        *mag += std::fabs(k * v);
      }
    }
    return sum;
  }

  std::vector<unsigned char> encode(const std::vector<double>& v) const {
    std::vector<unsigned char> b(v.size() * es_);
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (es_ == 8) {
        std::memcpy(&b[i * 8], &v[i], 8);
      } else {
        const float f = static_cast<float>(v[i]);
        std::memcpy(&b[i * 4], &f, 4);
      }
    }
    return b;
  }
  double value(const std::vector<unsigned char>& b, std::size_t i) const {
    if (es_ == 8) {
      double d;
      std::memcpy(&d, &b[i * 8], 8);
      return d;
    }
    float f;
    std::memcpy(&f, &b[i * 4], 4);
    return f;
  }

  StencilSpec s_;
  Rng rng_;
  std::size_t es_ = 4, in_n_ = 0, out_n_ = 0;
  std::vector<double> in_, coeffs_;
  std::vector<double> ref_, mag_, ref_coeffs_;  // reference of ref_coeffs_ per grid cell
  std::unique_ptr<DeviceArray<unsigned char>> din_, dout_;
};

}  // namespace gput
