// One AXPY problem on the device, checked against a CPU reference in long double.
//
// The harness lays out x and y with strides, element offsets (to misalign them) and a poisoned
// pad past the last y element; every element of the y allocation that is not part of y holds a
// NaN sentinel and must be bitwise untouched after the call. Unused x elements hold NaN too, so a
// kernel that reads the wrong element is caught by the result check.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu_check.hpp"
#include "gpu_handles.hpp"
#include "gpuopt.h"
#include "random_data.hpp"

namespace gput {

template <class T>
constexpr gpuopt_dtype_t dtype_of() {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value, "f32 or f64");
  return std::is_same<T, float>::value ? GPUOPT_DTYPE_F32 : GPUOPT_DTYPE_F64;
}

// A quiet NaN with a recognizable payload, for poisoned elements.
template <class T>
T poison() {
  T v;
  if (sizeof(T) == 4) {
    const std::uint32_t bits = 0x7fc5a5a5u;
    std::memcpy(&v, &bits, sizeof v);
  } else {
    const std::uint64_t bits = 0x7ff8a5a5a5a5a5a5ull;
    std::memcpy(&v, &bits, sizeof v);
  }
  return v;
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Where x and y live. Offsets are in elements from a 256-byte-aligned allocation.
struct AxpyLayout {
  std::int64_t n = 0;
  std::int64_t incx = 1;
  std::int64_t incy = 1;
  std::int64_t x_offset = 0;
  std::int64_t y_offset = 0;
  bool alias = false;     // x is y (incx = incy, x_offset = y_offset)
  std::int64_t pad = 67;  // poisoned elements after the last y element
};

inline std::string describe(const AxpyLayout& l) {
  std::ostringstream os;
  os << "n=" << l.n << " incx=" << l.incx << " incy=" << l.incy << " x_offset=" << l.x_offset
     << " y_offset=" << l.y_offset << (l.alias ? " x==y" : "");
  return os.str();
}

enum class Fill {
  uniform,  // x, y uniform in [-1, 1)
  dyadic,   // x = k/8 (|k| <= 64), y integer in [-1000, 1000]: repeated axpy stays exact
};

template <class T>
class AxpyHarness {
 public:
  static std::int64_t span(std::int64_t n, std::int64_t inc) {
    return n > 0 ? 1 + (n - 1) * inc : 0;
  }
  static std::int64_t x_len(const AxpyLayout& l) { return l.x_offset + span(l.n, l.incx) + l.pad; }
  static std::int64_t y_len(const AxpyLayout& l) { return l.y_offset + span(l.n, l.incy) + l.pad; }

  // Allocates (or, when x_mem/y_mem are given, uses caller memory of at least x_len/y_len
  // elements), fills and uploads.
  AxpyHarness(const AxpyLayout& layout, double alpha, Rng& rng, Fill fill = Fill::uniform,
              T* x_mem = nullptr, T* y_mem = nullptr)
      : l_(layout), alpha_(alpha) {
    if (l_.alias) {
      l_.incx = l_.incy;
      l_.x_offset = l_.y_offset;
    }
    hy_.assign(static_cast<size_t>(y_len(l_)), poison<T>());
    if (!l_.alias) hx_.assign(static_cast<size_t>(x_len(l_)), poison<T>());
    for (std::int64_t i = 0; i < l_.n; ++i) {
      if (!l_.alias) x_at(i) = value(rng, fill, /*is_x=*/true);
      y_at(i) = value(rng, fill, /*is_x=*/false);
    }
    if (y_mem) {
      y_dev_ = y_mem;
    } else {
      y_own_.reset(new DeviceArray<T>(hy_.size()));
      y_dev_ = y_own_->data();
    }
    if (l_.alias) {
      x_dev_ = y_dev_;
    } else if (x_mem) {
      x_dev_ = x_mem;
    } else {
      x_own_.reset(new DeviceArray<T>(hx_.size()));
      x_dev_ = x_own_->data();
    }
    upload();
  }

  // Element i of the logical vectors in the host image (change them, then upload()).
  T& x_at(std::int64_t i) {
    return l_.alias ? y_at(i) : hx_[static_cast<size_t>(l_.x_offset + i * l_.incx)];
  }
  T& y_at(std::int64_t i) { return hy_[static_cast<size_t>(l_.y_offset + i * l_.incy)]; }

  // Host image -> device; complete on return.
  void upload() {
    ASSERT_TRUE(x_dev_ && y_dev_) << "allocation failed";
    ASSERT_CUDA_OK(cudaMemcpy(y_dev_, hy_.data(), hy_.size() * sizeof(T), cudaMemcpyDefault));
    if (!l_.alias) {
      ASSERT_CUDA_OK(cudaMemcpy(x_dev_, hx_.data(), hx_.size() * sizeof(T), cudaMemcpyDefault));
    }
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
  }

  const AxpyLayout& layout() const { return l_; }
  double alpha() const { return alpha_; }
  void set_alpha(double a) { alpha_ = a; }
  const T* x() const { return x_dev_ + l_.x_offset; }
  T* y() const { return y_dev_ + l_.y_offset; }

  // gpuopt_axpy on this problem (enqueued; the caller synchronizes).
  gpuopt_status_t run(gpuopt_context_t ctx, gpuopt_stream_t stream) const {
    return gpuopt_axpy(ctx, stream, dtype_of<T>(), l_.n, alpha_, x(), l_.incx, y(), l_.incy);
  }

  // Downloads y and checks y = y0 + repeats * alpha * x0 for every element of y (within
  // rounding), and every other element of the allocation bitwise untouched. The caller has
  // synchronized the stream.
  ::testing::AssertionResult check_result(int repeats = 1) const {
    return compare(download(), repeats);
  }
  // Same, against a y image read some other way (for example through a mapped host pointer).
  ::testing::AssertionResult compare(const std::vector<T>& got, int repeats = 1) const {
    if (got.size() != hy_.size()) return ::testing::AssertionFailure() << "download failed";
    std::int64_t bad = 0;
    std::ostringstream first;
    const long double a = static_cast<long double>(static_cast<T>(alpha_));
    const long double eps = std::numeric_limits<T>::epsilon();
    for (std::int64_t i = 0; i < l_.n; ++i) {
      const size_t pos = static_cast<size_t>(l_.y_offset + i * l_.incy);
      const long double y0 = hy_[pos];
      const long double x0 = l_.alias ? y0 : hx_[static_cast<size_t>(l_.x_offset + i * l_.incx)];
      long double ref = y0;
      if (l_.alias) {
        for (int r = 0; r < repeats; ++r) ref = a * ref + ref;
      } else {
        ref = y0 + static_cast<long double>(repeats) * (a * x0);
      }
      const long double g = got[pos];
      bool ok;
      if (std::isnan(ref)) {
        ok = std::isnan(g);
      } else if (std::isinf(ref)) {
        ok = g == ref;
      } else {
        const long double tol = 2 * eps * repeats * (repeats * std::fabs(a * x0) + std::fabs(y0)) +
                                std::numeric_limits<T>::denorm_min();
        ok = std::isfinite(g) && std::fabs(g - ref) <= tol;
      }
      if (!ok && bad++ < 5) {
        first << "\n  y[" << i << "] = " << static_cast<double>(g) << ", expected "
              << static_cast<double>(ref) << " (x=" << static_cast<double>(x0)
              << ", y0=" << static_cast<double>(y0) << ")";
      }
    }
    std::int64_t touched = 0;
    for (size_t pos = 0; pos < hy_.size(); ++pos) {
      if (is_y_position(pos)) continue;
      if (!same_bits(got[pos], hy_[pos]) && touched++ < 5) {
        first << "\n  element " << pos
              << " of the y allocation (not part of y) was overwritten: " << got[pos];
      }
    }
    if (bad == 0 && touched == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << describe(l_) << ", alpha=" << alpha_ << ": " << bad << " wrong elements, " << touched
           << " poisoned elements overwritten" << first.str();
  }

  // Downloads y and checks the whole allocation is bitwise what was uploaded (a refused call
  // wrote nothing).
  ::testing::AssertionResult check_unchanged() const {
    const std::vector<T> got = download();
    if (got.size() != hy_.size()) return ::testing::AssertionFailure() << "download failed";
    for (size_t pos = 0; pos < hy_.size(); ++pos) {
      if (!same_bits(got[pos], hy_[pos])) {
        return ::testing::AssertionFailure()
               << describe(l_) << ": element " << pos << " changed to " << got[pos]
               << " by a call that should have written nothing";
      }
    }
    return ::testing::AssertionSuccess();
  }

  std::vector<T> download() const {
    std::vector<T> got(hy_.size());
    const cudaError_t e = cudaMemcpy(got.data(), y_dev_, got.size() * sizeof(T), cudaMemcpyDefault);
    if (e != cudaSuccess) {
      ADD_FAILURE() << "cudaMemcpy of y: " << cudaGetErrorName(e);
      return {};
    }
    return got;
  }

 private:
  static T value(Rng& rng, Fill fill, bool is_x) {
    if (fill == Fill::uniform) return static_cast<T>(rng.uniform(-1.0, 1.0));
    return is_x ? static_cast<T>(rng.integer(-64, 64)) / 8
                : static_cast<T>(rng.integer(-1000, 1000));
  }

  bool is_y_position(size_t pos) const {
    const std::int64_t p = static_cast<std::int64_t>(pos) - l_.y_offset;
    return p >= 0 && p % l_.incy == 0 && p / l_.incy < l_.n;
  }

  AxpyLayout l_;
  double alpha_;
  std::vector<T> hx_, hy_;  // host images of the whole x and y allocations, as uploaded
  std::unique_ptr<DeviceArray<T>> x_own_, y_own_;
  T* x_dev_ = nullptr;
  T* y_dev_ = nullptr;
};

// Runs a fresh 4099-element f32 axpy with automatic dispatch and checks it: the context still
// works (used after every refused call).
inline void expect_axpy_still_works(gpuopt_context_t ctx, gpuopt_stream_t stream, Rng& rng) {
  AxpyLayout l;
  l.n = 4099;
  AxpyHarness<float> h(l, rng.alpha(), rng);
  ASSERT_GPUOPT_OK(h.run(ctx, stream));
  ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(stream));
  EXPECT_TRUE(h.check_result()) << "the context no longer runs a correct axpy";
}

}  // namespace gput
