// One GEMM problem (possibly a strided batch) on the device, checked against a CPU reference that
// accumulates the exact input values in long double.
//
// A, B and C each live in their own allocation, at an element offset (to misalign them), with
// leading dimensions and batch strides that may exceed the matrices. Every element of an
// allocation that is not part of its matrices holds a NaN sentinel: a kernel that reads a wrong
// element of A or B (padding, another batch's gap, past k) turns results into NaN, and the C
// elements outside the m x n x batch region must be bitwise untouched. With beta = 0 the C region
// is poisoned as well: C must not be read. Results are compared by relative Frobenius error over
// every element (or, for large shapes, ~2000 sampled elements; every element is still checked
// for NaN/Inf).
#pragma once
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
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

// A type combination of gpuopt_gemm and the accuracy it promises (relative Frobenius error
// against the f64 reference).
struct GemmTypeConfig {
  const char* name;  // identifier-safe ("bf16_f32")
  gpuopt_dtype_t ab;
  gpuopt_dtype_t c;
  gpuopt_compute_t compute;
  double tol;
};

inline const std::vector<GemmTypeConfig>& gemm_type_configs() {
  static const std::vector<GemmTypeConfig> kConfigs = {
      {"f64", GPUOPT_DTYPE_F64, GPUOPT_DTYPE_F64, GPUOPT_COMPUTE_F64, 1e-12},
      {"f32", GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F32, GPUOPT_COMPUTE_F32, 1e-5},
      {"tf32", GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F32, GPUOPT_COMPUTE_TF32, 5e-3},
      {"bf16_f32", GPUOPT_DTYPE_BF16, GPUOPT_DTYPE_F32, GPUOPT_COMPUTE_F32, 2e-2},
      {"bf16_bf16", GPUOPT_DTYPE_BF16, GPUOPT_DTYPE_BF16, GPUOPT_COMPUTE_F32, 2e-2},
      {"f16_f32", GPUOPT_DTYPE_F16, GPUOPT_DTYPE_F32, GPUOPT_COMPUTE_F32, 2e-2},
      {"f16_f16", GPUOPT_DTYPE_F16, GPUOPT_DTYPE_F16, GPUOPT_COMPUTE_F32, 2e-2},
  };
  return kConfigs;
}

// --- Element codecs (host side, exact round-to-nearest-even) ---

inline std::size_t gemm_elem_size(gpuopt_dtype_t t) {
  return t == GPUOPT_DTYPE_F64 ? 8 : (t == GPUOPT_DTYPE_F32 ? 4 : 2);
}

inline std::uint16_t bf16_bits(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}

inline float bf16_value(std::uint16_t h) {
  const std::uint32_t x = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

inline std::uint16_t f16_bits(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);   // NaN
  if (ax >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520: Inf
  if (ax < 0x38800000u) {  // below 2^-14: subnormal (units of 2^-24) or zero
    const float q = std::nearbyint(std::fabs(f) * 16777216.0f);
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(q));
  }
  const std::uint32_t mant = ax & 0x7fffffu;
  std::uint32_t h = ((((ax >> 23) - 127u + 15u) << 10) | (mant >> 13));
  const std::uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry bumps the exponent: right
  return static_cast<std::uint16_t>(sign | h);
}

inline float f16_value(std::uint16_t h) {
  const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else {
    v = std::ldexp(static_cast<float>(mant | 0x400), exp - 25);
  }
  return (h & 0x8000u) ? -v : v;
}

// Writes v (rounded to nearest even) as a t at p.
inline void put_elem(gpuopt_dtype_t t, std::uint8_t* p, double v) {
  if (t == GPUOPT_DTYPE_F64) {
    std::memcpy(p, &v, 8);
  } else if (t == GPUOPT_DTYPE_F32) {
    const float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  } else {
    const std::uint16_t h =
        t == GPUOPT_DTYPE_BF16 ? bf16_bits(static_cast<float>(v)) : f16_bits(static_cast<float>(v));
    std::memcpy(p, &h, 2);
  }
}

inline double get_elem(gpuopt_dtype_t t, const std::uint8_t* p) {
  if (t == GPUOPT_DTYPE_F64) {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  if (t == GPUOPT_DTYPE_F32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  std::uint16_t h;
  std::memcpy(&h, p, 2);
  return t == GPUOPT_DTYPE_BF16 ? bf16_value(h) : f16_value(h);
}

// A quiet NaN with a recognizable payload.
inline void put_poison(gpuopt_dtype_t t, std::uint8_t* p) {
  const std::uint64_t d = 0x7ff8a5a5a5a5a5a5ull;
  const std::uint32_t f = 0x7fc5a5a5u;
  const std::uint16_t b = 0x7fc5u, h = 0x7e55u;
  if (t == GPUOPT_DTYPE_F64) std::memcpy(p, &d, 8);
  if (t == GPUOPT_DTYPE_F32) std::memcpy(p, &f, 4);
  if (t == GPUOPT_DTYPE_BF16) std::memcpy(p, &b, 2);
  if (t == GPUOPT_DTYPE_F16) std::memcpy(p, &h, 2);
}

// A random value of type t, exact in t: uniform in [-1, 1) for f64 and f32, k / 32 with
// |k| <= 64 for bf16 and f16 (7 significant bits, exact in both).
inline double random_elem(gpuopt_dtype_t t, Rng& rng) {
  if (t == GPUOPT_DTYPE_F64) return rng.uniform(-1.0, 1.0);
  if (t == GPUOPT_DTYPE_F32) return static_cast<float>(rng.uniform(-1.0, 1.0));
  return static_cast<double>(rng.integer(-64, 64)) / 32.0;
}

// --- The problem ---

struct GemmCase {
  std::string label;
  gpuopt_transpose_t ta = GPUOPT_TRANS_N;
  gpuopt_transpose_t tb = GPUOPT_TRANS_N;
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t lda = 0, ldb = 0, ldc = 0;  // 0: the rows as stored (at least 1)
  std::int64_t batch = 1;
  std::int64_t stride_a = -1, stride_b = -1, stride_c = -1;  // -1: ld * columns (packed)
  std::int64_t a_off = 0, b_off = 0, c_off = 0;              // elements past a 256-byte boundary
  double alpha = 1.0, beta = 0.0;
  bool sampled = false;  // reference on kSamples sampled elements of C instead of all
};

inline std::string describe(const GemmCase& c) {
  std::ostringstream os;
  os << c.label << ": " << (c.ta == GPUOPT_TRANS_N ? "N" : "T")
     << (c.tb == GPUOPT_TRANS_N ? "N" : "T") << " m=" << c.m << " n=" << c.n << " k=" << c.k;
  if (c.lda || c.ldb || c.ldc) os << " ld=" << c.lda << "/" << c.ldb << "/" << c.ldc;
  if (c.batch > 1) {
    os << " batch=" << c.batch << " strides=" << c.stride_a << "/" << c.stride_b << "/"
       << c.stride_c;
  }
  if (c.a_off || c.b_off || c.c_off)
    os << " offsets=" << c.a_off << "/" << c.b_off << "/" << c.c_off;
  os << " alpha=" << c.alpha << " beta=" << c.beta << (c.sampled ? " (sampled)" : "");
  return os.str();
}

// Rounds x up to a multiple of 8 elements (16-byte aligned columns for every type).
inline std::int64_t round8(std::int64_t x) { return (x + 7) / 8 * 8; }

class GemmData {
 public:
  static constexpr int kSamples = 2000;
  static constexpr std::int64_t kTailPad = 19;  // poisoned elements after each matrix span

  // Lays out, fills, computes the reference and uploads (check ok() or HasFatalFailure()).
  GemmData(const GemmTypeConfig& cfg, const GemmCase& c, Rng& rng) : cfg_(cfg), c_(c) {
    const bool ta = c.ta == GPUOPT_TRANS_T, tb = c.tb == GPUOPT_TRANS_T;
    a_ = Matrix::make(ta ? c.k : c.m, ta ? c.m : c.k, c.lda, c.batch, c.stride_a, c.a_off);
    b_ = Matrix::make(tb ? c.n : c.k, tb ? c.k : c.n, c.ldb, c.batch, c.stride_b, c.b_off);
    c_mat_ = Matrix::make(c.m, c.n, c.ldc, c.batch, c.stride_c, c.c_off);
    fill(a_, cfg.ab, rng, &ha_, true);
    fill(b_, cfg.ab, rng, &hb_, true);
    fill(c_mat_, cfg.c, rng, &hc_, c.beta != 0.0);
    region_.assign(static_cast<std::size_t>(c_mat_.alloc), 0);
    c_mat_.for_each([&](std::int64_t, std::int64_t, std::int64_t, std::int64_t pos) {
      region_[static_cast<std::size_t>(pos)] = 1;
    });
    compute_reference(rng);
    da_.reset(new DeviceArray<std::uint8_t>(ha_.size()));
    db_.reset(new DeviceArray<std::uint8_t>(hb_.size()));
    dc_.reset(new DeviceArray<std::uint8_t>(hc_.size()));
    ok_ = da_->ok() && db_->ok() && dc_->ok();
    if (ok_) {
      ok_ = cudaMemcpy(da_->data(), ha_.data(), ha_.size(), cudaMemcpyDefault) == cudaSuccess &&
            cudaMemcpy(db_->data(), hb_.data(), hb_.size(), cudaMemcpyDefault) == cudaSuccess;
    }
    if (ok_) ok_ = reset_c() == cudaSuccess;
    if (!ok_) ADD_FAILURE() << "device setup of " << describe(c_) << " failed";
  }

  bool ok() const { return ok_; }
  const GemmCase& problem() const { return c_; }
  const GemmTypeConfig& config() const { return cfg_; }

  // Device operands as gpuopt_gemm takes them.
  const void* A() const { return da_->data() + a_.off * gemm_elem_size(cfg_.ab); }
  const void* B() const { return db_->data() + b_.off * gemm_elem_size(cfg_.ab); }
  void* C() const { return dc_->data() + c_mat_.off * gemm_elem_size(cfg_.c); }

  gpuopt_gemm_desc_t desc() const {
    gpuopt_gemm_desc_t d;
    std::memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    d.trans_a = c_.ta;
    d.trans_b = c_.tb;
    d.m = c_.m;
    d.n = c_.n;
    d.k = c_.k;
    d.alpha = c_.alpha;
    d.beta = c_.beta;
    d.a_type = cfg_.ab;
    d.c_type = cfg_.c;
    d.compute = cfg_.compute;
    d.lda = a_.ld;
    d.ldb = b_.ld;
    d.ldc = c_mat_.ld;
    d.batch_count = c_.batch;
    d.stride_a = a_.stride;
    d.stride_b = b_.stride;
    d.stride_c = c_mat_.stride;
    return d;
  }

  // gpuopt_gemm on this problem (enqueued; the caller synchronizes).
  gpuopt_status_t run(gpuopt_context_t ctx, gpuopt_stream_t stream) const {
    const gpuopt_gemm_desc_t d = desc();
    return gpuopt_gemm(ctx, stream, &d, A(), B(), C());
  }

  // Restores C's whole allocation to its initial image (complete on return).
  cudaError_t reset_c() const {
    const cudaError_t e = cudaMemcpy(dc_->data(), hc_.data(), hc_.size(), cudaMemcpyDefault);
    return e != cudaSuccess ? e : cudaDeviceSynchronize();
  }

  // Downloads C (the caller has synchronized the stream) and checks: every element of the region
  // finite, relative Frobenius error against the reference within the config's tolerance, every
  // other element of the allocation bitwise untouched.
  ::testing::AssertionResult check() const {
    std::vector<std::uint8_t> got;
    if (!download(&got)) return ::testing::AssertionFailure() << "download of C failed";
    const std::size_t es = gemm_elem_size(cfg_.c);
    std::int64_t nonfinite = 0, touched = 0;
    std::ostringstream first;
    for (std::size_t pos = 0; pos < region_.size(); ++pos) {
      const std::uint8_t* g = got.data() + pos * es;
      if (region_[pos]) {
        if (!std::isfinite(get_elem(cfg_.c, g)) && nonfinite++ < 3) {
          first << "\n  non-finite C element " << where(static_cast<std::int64_t>(pos)) << ": "
                << get_elem(cfg_.c, g);
        }
      } else if (std::memcmp(g, hc_.data() + pos * es, es) != 0 && touched++ < 3) {
        first << "\n  element " << pos << " of the C allocation (outside C) was overwritten with "
              << get_elem(cfg_.c, g);
      }
    }
    long double d2 = 0, r2 = 0, worst = -1;
    std::int64_t worst_pos = -1;
    double worst_got = 0, worst_ref = 0;
    for (const Ref& r : refs_) {
      const double g = get_elem(cfg_.c, got.data() + static_cast<std::size_t>(r.pos) * es);
      if (!std::isfinite(g)) continue;  // counted above
      const long double d = static_cast<long double>(g) - r.value;
      d2 += d * d;
      r2 += r.value * r.value;
      if (std::fabs(d) > worst) {
        worst = std::fabs(d);
        worst_pos = r.pos;
        worst_got = g;
        worst_ref = static_cast<double>(r.value);
      }
    }
    const double err = r2 > 0 ? static_cast<double>(std::sqrt(d2 / r2))
                              : (d2 > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    if (nonfinite == 0 && touched == 0 && err <= cfg_.tol) return ::testing::AssertionSuccess();
    auto f = ::testing::AssertionFailure();
    f << cfg_.name << " " << describe(c_) << ": relative error " << err << " (tolerance "
      << cfg_.tol << " over " << refs_.size() << " elements), " << nonfinite
      << " non-finite elements, " << touched << " elements outside C overwritten";
    if (worst_pos >= 0) {
      f << "\n  largest difference at " << where(worst_pos) << ": got " << worst_got
        << ", expected " << worst_ref;
    }
    return f << first.str();
  }

  // Downloads C and checks the whole allocation is bitwise what was uploaded.
  ::testing::AssertionResult check_unchanged() const {
    std::vector<std::uint8_t> got;
    if (!download(&got)) return ::testing::AssertionFailure() << "download of C failed";
    if (got == hc_) return ::testing::AssertionSuccess();
    const std::size_t es = gemm_elem_size(cfg_.c);
    std::size_t pos = 0;
    while (std::memcmp(got.data() + pos * es, hc_.data() + pos * es, es) == 0) ++pos;
    return ::testing::AssertionFailure()
           << cfg_.name << " " << describe(c_) << ": element " << pos
           << " of the C allocation changed by a call that should have written nothing";
  }

 private:
  // A column-major matrix (rows x cols, leading dimension ld) repeated batch times at stride,
  // at element offset off of its allocation of alloc elements.
  struct Matrix {
    std::int64_t rows = 0, cols = 0, ld = 1, batch = 1, stride = 0, off = 0, alloc = 0;

    static Matrix make(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t batch,
                       std::int64_t stride, std::int64_t off) {
      Matrix x;
      x.rows = rows;
      x.cols = cols;
      x.ld = ld > 0 ? ld : std::max<std::int64_t>(rows, 1);
      x.batch = batch;
      x.stride = stride >= 0 ? stride : x.ld * cols;
      x.off = off;
      const std::int64_t span =
          rows > 0 && cols > 0 ? (batch - 1) * x.stride + (cols - 1) * x.ld + rows : 0;
      x.alloc = off + span + kTailPad;
      return x;
    }
    std::int64_t pos(std::int64_t z, std::int64_t r, std::int64_t c) const {
      return off + z * stride + c * ld + r;
    }
    template <class F>
    void for_each(F&& f) const {
      for (std::int64_t z = 0; z < batch; ++z) {
        for (std::int64_t c = 0; c < cols; ++c) {
          for (std::int64_t r = 0; r < rows; ++r) f(z, r, c, pos(z, r, c));
        }
      }
    }
  };

  struct Ref {
    std::int64_t pos;  // element of the C allocation
    long double value;
  };

  static void fill(const Matrix& x, gpuopt_dtype_t t, Rng& rng, std::vector<std::uint8_t>* img,
                   bool values) {
    const std::size_t es = gemm_elem_size(t);
    img->assign(static_cast<std::size_t>(x.alloc) * es, 0);
    for (std::int64_t p = 0; p < x.alloc; ++p) put_poison(t, img->data() + p * es);
    if (!values) return;
    x.for_each([&](std::int64_t, std::int64_t, std::int64_t, std::int64_t p) {
      put_elem(t, img->data() + p * es, random_elem(t, rng));
    });
  }

  std::vector<double> decode(const std::vector<std::uint8_t>& img, gpuopt_dtype_t t) const {
    const std::size_t es = gemm_elem_size(t);
    std::vector<double> v(img.size() / es);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = get_elem(t, img.data() + i * es);
    return v;
  }

  void compute_reference(Rng& rng) {
    const std::vector<double> av = decode(ha_, cfg_.ab), bv = decode(hb_, cfg_.ab);
    const std::vector<double> cv = decode(hc_, cfg_.c);
    const bool ta = c_.ta == GPUOPT_TRANS_T, tb = c_.tb == GPUOPT_TRANS_T;
    auto ref_at = [&](std::int64_t z, std::int64_t i, std::int64_t j) {
      long double s = 0;
      for (std::int64_t kk = 0; kk < c_.k; ++kk) {
        const double a = av[static_cast<std::size_t>(ta ? a_.pos(z, kk, i) : a_.pos(z, i, kk))];
        const double b = bv[static_cast<std::size_t>(tb ? b_.pos(z, j, kk) : b_.pos(z, kk, j))];
        s += static_cast<long double>(a) * b;
      }
      const std::int64_t pos = c_mat_.pos(z, i, j);
      long double r = static_cast<long double>(c_.alpha) * s;
      if (c_.beta != 0.0)
        r += static_cast<long double>(c_.beta) * cv[static_cast<std::size_t>(pos)];
      refs_.push_back(Ref{pos, r});
    };
    if (c_.sampled) {
      for (int s = 0; s < kSamples; ++s) {
        ref_at(rng.integer(0, c_.batch - 1), rng.integer(0, c_.m - 1), rng.integer(0, c_.n - 1));
      }
    } else {
      c_mat_.for_each(
          [&](std::int64_t z, std::int64_t i, std::int64_t j, std::int64_t) { ref_at(z, i, j); });
    }
  }

  bool download(std::vector<std::uint8_t>* got) const {
    got->resize(hc_.size());
    const cudaError_t e = cudaMemcpy(got->data(), dc_->data(), got->size(), cudaMemcpyDefault);
    if (e != cudaSuccess) ADD_FAILURE() << "cudaMemcpy of C: " << cudaGetErrorName(e);
    return e == cudaSuccess;
  }

  // "(batch z, row i, column j)" of an element of C's allocation inside the region.
  std::string where(std::int64_t pos) const {
    const std::int64_t rel = pos - c_mat_.off;
    const std::int64_t z = c_mat_.batch > 1 ? rel / c_mat_.stride : 0;
    const std::int64_t rem = rel - z * (c_mat_.batch > 1 ? c_mat_.stride : 0);
    std::ostringstream os;
    os << "(batch " << z << ", row " << rem % c_mat_.ld << ", column " << rem / c_mat_.ld << ")";
    return os.str();
  }

  GemmTypeConfig cfg_;
  GemmCase c_;
  Matrix a_, b_, c_mat_;
  std::vector<std::uint8_t> ha_, hb_, hc_;  // host images of the allocations, as uploaded
  std::vector<char> region_;                // 1 for the elements of C's m x n x batch region
  std::vector<Ref> refs_;
  std::unique_ptr<DeviceArray<std::uint8_t>> da_, db_, dc_;
  bool ok_ = false;
};

// --- Variants ---

using GemmVariant = VariantEntry;

// The gemm variants of the context's table, in table order.
inline std::vector<GemmVariant> gemm_variant_list(gpuopt_context_t ctx) {
  return list_variants(ctx, GPUOPT_OP_GEMM);
}

// The variant the last gemm on ctx ran ("<none>" before any).
inline std::string last_gemm_variant(gpuopt_context_t ctx) {
  return last_variant_name(ctx, GPUOPT_OP_GEMM);
}

// Variants that must accept every valid problem c of the config (the others may refuse cases
// they cannot do, e.g. for alignment, with GPUOPT_ERROR_UNSUPPORTED). cublaslt takes every
// problem with k >= 1: every type, transpose, leading dimension, alignment and batch.
inline bool gemm_must_accept(const std::string& variant, const GemmTypeConfig& cfg,
                             const GemmCase& c) {
  if (variant == "naive" || variant == "cublas") return true;
  if (variant == "cublaslt") return c.k >= 1;
  const bool exact = cfg.ab == GPUOPT_DTYPE_F64 ||
                     (cfg.ab == GPUOPT_DTYPE_F32 && cfg.compute == GPUOPT_COMPUTE_F32);
  return exact && (variant == "smem_tiled" || variant == "smem_coalesced_padded" ||
                   variant == "register_blocked");
}

// Runs a fresh f32 96x64x48 gemm with automatic dispatch and checks it: the context still works
// (used after every refused call).
inline void expect_gemm_still_works(gpuopt_context_t ctx, gpuopt_stream_t stream, Rng& rng) {
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx, GPUOPT_OP_GEMM, nullptr));
  GemmCase c;
  c.label = "still works";
  c.m = 96;
  c.n = 64;
  c.k = 48;
  c.alpha = 0.75;
  c.beta = -0.5;
  GemmData d(gemm_type_configs()[1], c, rng);
  ASSERT_TRUE(d.ok());
  ASSERT_GPUOPT_OK(d.run(ctx, stream));
  ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(stream));
  EXPECT_TRUE(d.check()) << "the context no longer runs a correct gemm";
}

}  // namespace gput
