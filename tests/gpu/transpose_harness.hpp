// One gpuopt_transpose problem on the device, checked exactly against a CPU reference.
//
// A holds random bits (any bit pattern, NaNs included: the transpose copies bits) with a guard of
// poison around it; B is poisoned (0xFF bytes: NaN in every type) over its whole allocation,
// gaps between lines and a guard after the last line included. After the call every element of
// B = A^T must equal its source bit for bit and every other byte of B must still be poison.
// The one exception is an arithmetic vendor routine (cuBLAS geam computes 1 * a + 0 * b): there
// a NaN may come back with another payload (signaling NaNs are quieted) and a subnormal as zero.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_check.hpp"
#include "gpu_handles.hpp"
#include "gpuopt.h"

namespace gput {

inline std::size_t transpose_elem(gpuopt_dtype_t t) {
  return t == GPUOPT_DTYPE_F64 ? 8 : (t == GPUOPT_DTYPE_BF16 ? 2 : 4);
}

struct TransposeSpec {
  gpuopt_dtype_t dtype = GPUOPT_DTYPE_F32;
  std::int64_t rows = 0, cols = 0;
  std::int64_t lda = 0, ldb = 0;      // 0: tight (max(1, rows), max(1, cols))
  std::int64_t a_off = 0, b_off = 0;  // elements past a 256-byte-aligned base
};

inline std::string describe(const TransposeSpec& s) {
  std::ostringstream o;
  o << gpuopt_dtype_name(s.dtype) << " " << s.rows << "x" << s.cols << " lda=" << s.lda
    << " ldb=" << s.ldb << " a_off=" << s.a_off << " b_off=" << s.b_off;
  return o.str();
}

class TransposeCase {
 public:
  TransposeCase(TransposeSpec s, std::uint64_t seed) : s_(s) {
    if (s_.lda == 0) s_.lda = s_.rows > 1 ? s_.rows : 1;
    if (s_.ldb == 0) s_.ldb = s_.cols > 1 ? s_.cols : 1;
    es_ = transpose_elem(s_.dtype);
    a_elems_ = s_.a_off + (s_.cols > 0 ? (s_.cols - 1) * s_.lda + s_.rows : 0) + kGuard;
    b_elems_ = s_.b_off + (s_.rows > 0 ? (s_.rows - 1) * s_.ldb + s_.cols : 0) + kGuard;
    host_a_.resize(static_cast<std::size_t>(a_elems_) * es_);
    std::mt19937_64 gen(seed);
    for (std::size_t k = 0; k < host_a_.size(); k += 8) {
      const std::uint64_t r = gen();
      std::memcpy(&host_a_[k], &r, host_a_.size() - k < 8 ? host_a_.size() - k : 8);
    }
    a_ = std::make_unique<DeviceArray<unsigned char>>(host_a_.size());
    b_ = std::make_unique<DeviceArray<unsigned char>>(static_cast<std::size_t>(b_elems_) * es_);
  }

  const TransposeSpec& spec() const { return s_; }
  bool ok() const { return a_->ok() && b_->ok(); }

  void upload() const { a_->upload(host_a_); }
  void poison_b() const {
    ASSERT_CUDA_OK(cudaMemset(b_->data(), 0xFF, b_->size()));
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
  }

  gpuopt_transpose_desc_t desc() const {
    gpuopt_transpose_desc_t d{};
    d.struct_size = sizeof d;
    d.dtype = s_.dtype;
    d.rows = s_.rows;
    d.cols = s_.cols;
    d.lda = s_.lda;
    d.ldb = s_.ldb;
    return d;
  }
  const void* a_ptr() const { return a_->data() + s_.a_off * es_; }
  void* b_ptr() const { return b_->data() + s_.b_off * es_; }

  gpuopt_status_t run(gpuopt_context_t ctx, gpuopt_stream_t stream) const {
    const gpuopt_transpose_desc_t d = desc();
    return gpuopt_transpose(ctx, stream, &d, a_ptr(), b_ptr());
  }

  // B = A^T exactly (arithmetic: up to NaN payloads and flushed subnormals), everything else of
  // B's allocation still poison.
  ::testing::AssertionResult check(bool arithmetic = false) const {
    const std::vector<unsigned char> b = b_->download();
    std::vector<unsigned char> want(b.size(), 0xFF);
    for (std::int64_t i = 0; i < s_.rows; ++i)
      for (std::int64_t j = 0; j < s_.cols; ++j)
        std::memcpy(&want[static_cast<std::size_t>(s_.b_off + j + i * s_.ldb) * es_],
                    &host_a_[static_cast<std::size_t>(s_.a_off + i + j * s_.lda) * es_], es_);
    return compare(b, want, arithmetic);
  }

  // B's allocation entirely poison (nothing ran).
  ::testing::AssertionResult check_untouched() const {
    return compare(b_->download(), std::vector<unsigned char>(b_->size(), 0xFF));
  }

 private:
  static constexpr std::int64_t kGuard = 19;  // elements after the last line

  // Whether got may stand for want in an arithmetic copy (f32 / f64).
  bool same_value(const unsigned char* got, const unsigned char* want) const {
    double g = 0, w = 0;
    if (es_ == 4) {
      float gf = 0, wf = 0;
      std::memcpy(&gf, got, 4);
      std::memcpy(&wf, want, 4);
      g = gf;
      w = wf;
      if (std::fpclassify(wf) == FP_SUBNORMAL) return gf == 0.0f || gf == wf;
    } else if (es_ == 8) {
      std::memcpy(&g, got, 8);
      std::memcpy(&w, want, 8);
      if (std::fpclassify(w) == FP_SUBNORMAL) return g == 0.0 || g == w;
    } else {
      return false;
    }
    return std::isnan(g) && std::isnan(w);
  }

  ::testing::AssertionResult compare(const std::vector<unsigned char>& got,
                                     const std::vector<unsigned char>& want,
                                     bool arithmetic = false) const {
    std::int64_t bad = 0, first = -1;
    for (std::size_t e = 0; e * es_ < got.size(); ++e) {
      if (std::memcmp(&got[e * es_], &want[e * es_], es_) != 0 &&
          !(arithmetic && same_value(&got[e * es_], &want[e * es_]))) {
        if (bad++ == 0) first = static_cast<std::int64_t>(e);
      }
    }
    if (bad == 0) return ::testing::AssertionSuccess();
    const std::int64_t pos = first - s_.b_off;
    std::ostringstream o;
    o << describe(s_) << ": " << bad << " elements of B wrong, first at element " << pos;
    if (pos >= 0) {
      const std::int64_t i = pos / s_.ldb, j = pos % s_.ldb;
      o << " (B line i=" << i << ", j=" << j
        << (i < s_.rows && j < s_.cols ? ", inside B" : ", outside B: must stay poison") << ")";
    }
    return ::testing::AssertionFailure() << o.str();
  }

  TransposeSpec s_;
  std::size_t es_ = 4;
  std::int64_t a_elems_ = 0, b_elems_ = 0;
  std::vector<unsigned char> host_a_;
  std::unique_ptr<DeviceArray<unsigned char>> a_, b_;
};

}  // namespace gput
