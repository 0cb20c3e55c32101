// A segmented-sort test case: random keys of any sort key type (duplicates and special floats on
// request), values that record each item's original index, poisoned outputs, and a check that
// every segment came out as a sorted, stable permutation of its input with the values following
// their keys, and that items outside every segment stayed unwritten.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gpu_handles.hpp"
#include "gpuopt.h"
#include "random_data.hpp"

namespace gput {

struct SortSpec {
  gpuopt_dtype_t type = GPUOPT_DTYPE_I32;
  int value_bytes = 0;
  bool descending = false;
  bool use_offsets = false;
  std::int64_t num_segments = 0;
  std::int64_t segment_size = 0;      // fixed layout
  std::vector<std::int64_t> offsets;  // offsets layout (num_segments + 1)
  std::int64_t num_items = 0;
  int distinct = 0;      // > 0: keys drawn from this many values (duplicates: stability)
  bool special = false;  // floats: NaNs, infinities, signed zeros, denormals mixed in
};

inline std::size_t key_bytes(gpuopt_dtype_t t) {
  return t == GPUOPT_DTYPE_I32 || t == GPUOPT_DTYPE_U32 || t == GPUOPT_DTYPE_F32 ? 4 : 8;
}

inline std::string describe(const SortSpec& s) {
  std::string d = std::string(gpuopt_dtype_name(s.type)) + " v" + std::to_string(s.value_bytes) +
                  (s.descending ? " desc" : " asc") +
                  " segments=" + std::to_string(s.num_segments) +
                  " items=" + std::to_string(s.num_items);
  d += s.use_offsets ? " offsets" : " size=" + std::to_string(s.segment_size);
  if (s.distinct) d += " distinct=" + std::to_string(s.distinct);
  if (s.special) d += " special";
  return d;
}

// Order of two keys (bits) as gpuopt defines it: -1, 0 (equal, all NaNs alike), 1.
inline int compare_keys(gpuopt_dtype_t t, const unsigned char* a, const unsigned char* b) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  auto cmpf = [&](auto x, auto y) {
    const bool nx = std::isnan(x), ny = std::isnan(y);
    if (nx || ny) return nx && ny ? 0 : (nx ? 1 : -1);
    if (x == y) return cmp(std::signbit(y) ? 1 : 0, std::signbit(x) ? 1 : 0);  // -0 < +0
    return cmp(x, y);
  };
  switch (t) {
    case GPUOPT_DTYPE_I32: {
      std::int32_t x, y;
      std::memcpy(&x, a, 4), std::memcpy(&y, b, 4);
      return cmp(x, y);
    }
    case GPUOPT_DTYPE_U32: {
      std::uint32_t x, y;
      std::memcpy(&x, a, 4), std::memcpy(&y, b, 4);
      return cmp(x, y);
    }
    case GPUOPT_DTYPE_F32: {
      float x, y;
      std::memcpy(&x, a, 4), std::memcpy(&y, b, 4);
      return cmpf(x, y);
    }
    case GPUOPT_DTYPE_I64: {
      std::int64_t x, y;
      std::memcpy(&x, a, 8), std::memcpy(&y, b, 8);
      return cmp(x, y);
    }
    case GPUOPT_DTYPE_U64: {
      std::uint64_t x, y;
      std::memcpy(&x, a, 8), std::memcpy(&y, b, 8);
      return cmp(x, y);
    }
    default: {
      double x, y;
      std::memcpy(&x, a, 8), std::memcpy(&y, b, 8);
      return cmpf(x, y);
    }
  }
}

class SortCase {
 public:
  static constexpr unsigned char kPoison = 0xA5;

  SortCase(const SortSpec& spec, std::uint64_t seed) : s_(spec), rng_(seed) {
    const std::size_t n = static_cast<std::size_t>(s_.num_items);
    const std::size_t kb = key_bytes(s_.type);
    keys_.resize(n * kb);
    for (std::size_t i = 0; i < n; ++i) random_key(keys_.data() + i * kb);
    if (s_.value_bytes) {
      values_.resize(n * static_cast<std::size_t>(s_.value_bytes));
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t v = i;  // the original index: values follow keys, stability
        std::memcpy(values_.data() + i * s_.value_bytes, &v,
                    static_cast<std::size_t>(s_.value_bytes));
      }
    }
  }

  const SortSpec& spec() const { return s_; }
  std::vector<unsigned char>& host_keys() { return keys_; }

  void upload() {
    const std::size_t n = static_cast<std::size_t>(s_.num_items);
    kin_ = std::make_unique<DeviceArray<unsigned char>>(keys_.size() + 16);
    kout_ = std::make_unique<DeviceArray<unsigned char>>(keys_.size() + 16);
    kin_->upload(keys_);
    if (s_.value_bytes) {
      vin_ = std::make_unique<DeviceArray<unsigned char>>(values_.size() + 16);
      vout_ = std::make_unique<DeviceArray<unsigned char>>(values_.size() + 16);
      vin_->upload(values_);
    }
    if (s_.use_offsets) {
      off_ = std::make_unique<DeviceArray<std::int64_t>>(s_.offsets.size());
      off_->upload(s_.offsets);
    }
    (void)n;
  }

  gpuopt_segmented_sort_desc_t desc() const {
    gpuopt_segmented_sort_desc_t d{};
    d.struct_size = sizeof d;
    d.key_type = s_.type;
    d.value_bytes = s_.value_bytes;
    d.order = s_.descending ? GPUOPT_SORT_DESCENDING : GPUOPT_SORT_ASCENDING;
    d.num_items = s_.num_items;
    d.num_segments = s_.num_segments;
    d.segment_size = s_.segment_size;
    d.offsets = s_.use_offsets ? off_->data() : nullptr;
    return d;
  }

  // The memsets run on the legacy stream, which does not order gpuopt's non-blocking streams:
  // wait for them, or the poison can land after the sort (seen on the H200: 0xA5A5A5A5 values).
  void reset_out() {
    ASSERT_CUDA_OK(cudaMemset(kout_->data(), kPoison, kout_->size()));
    if (vout_) {
      ASSERT_CUDA_OK(cudaMemset(vout_->data(), kPoison, vout_->size()));
    }
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
  }

  // Allocates the workspace the library asks for (once per case).
  gpuopt_status_t run(gpuopt_context_t ctx, gpuopt_stream_t stream) {
    const gpuopt_segmented_sort_desc_t d = desc();
    if (!ws_) {
      std::size_t bytes = 0;
      const gpuopt_status_t st = gpuopt_segmented_sort_workspace_size(ctx, &d, &bytes);
      if (st != GPUOPT_SUCCESS) return st;
      ws_bytes_ = bytes;
      ws_ = std::make_unique<DeviceArray<unsigned char>>(bytes);
    }
    return gpuopt_segmented_sort(ctx, stream, &d, kin_->data(), kout_->data(),
                                 vin_ ? vin_->data() : nullptr, vout_ ? vout_->data() : nullptr,
                                 ws_bytes_ ? ws_->data() : nullptr, ws_bytes_);
  }

  // Every segment sorted, a stable permutation of its input; the rest unwritten.
  ::testing::AssertionResult check() const {
    const std::size_t kb = key_bytes(s_.type);
    const std::size_t vb = static_cast<std::size_t>(s_.value_bytes);
    const std::vector<unsigned char> ko = kout_->download();
    const std::vector<unsigned char> vo = vout_ ? vout_->download() : std::vector<unsigned char>();
    const std::int64_t n = s_.num_items;
    std::vector<char> covered(static_cast<std::size_t>(n), 0);
    for (std::int64_t seg = 0; seg < s_.num_segments; ++seg) {
      std::int64_t lo = 0, hi = 0;
      bounds(seg, &lo, &hi);
      for (std::int64_t i = lo; i < hi; ++i) covered[static_cast<std::size_t>(i)] = 1;
      // Sorted.
      for (std::int64_t i = lo + 1; i < hi; ++i) {
        int c = compare_keys(s_.type, &ko[(i - 1) * kb], &ko[i * kb]);
        if (s_.descending) c = -c;
        if (c > 0)
          return ::testing::AssertionFailure() << "segment " << seg << " [" << lo << ", " << hi
                                               << "): item " << i << " out of order";
      }
      if (vb) {
        // A permutation, values following keys, stable among equal keys.
        std::vector<char> seen(static_cast<std::size_t>(hi - lo), 0);
        std::uint64_t prev = 0;
        for (std::int64_t i = lo; i < hi; ++i) {
          std::uint64_t v = 0;
          std::memcpy(&v, &vo[i * vb], vb);
          if (v < static_cast<std::uint64_t>(lo) || v >= static_cast<std::uint64_t>(hi) ||
              seen[v - lo]++)
            return ::testing::AssertionFailure()
                   << "segment " << seg << ": value at " << i << " is " << v
                   << ", not a fresh index of the segment";
          if (std::memcmp(&ko[i * kb], &keys_[v * kb], kb) != 0)
            return ::testing::AssertionFailure()
                   << "segment " << seg << ": key at " << i << " is not the key of its value " << v;
          if (i > lo && std::memcmp(&ko[(i - 1) * kb], &ko[i * kb], kb) == 0 && prev > v)
            return ::testing::AssertionFailure() << "segment " << seg << ": equal keys at " << i - 1
                                                 << ", " << i << " out of input order (unstable)";
          prev = v;
        }
      } else {
        // The same multiset of key bits.
        std::vector<std::vector<unsigned char>> a, b;
        for (std::int64_t i = lo; i < hi; ++i) {
          a.emplace_back(&keys_[i * kb], &keys_[i * kb] + kb);
          b.emplace_back(&ko[i * kb], &ko[i * kb] + kb);
        }
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        if (a != b)
          return ::testing::AssertionFailure()
                 << "segment " << seg << ": output keys are not a permutation of the input";
      }
    }
    for (std::int64_t i = 0; i < n; ++i) {
      if (covered[static_cast<std::size_t>(i)]) continue;
      for (std::size_t q = 0; q < kb; ++q)
        if (ko[i * kb + q] != kPoison)
          return ::testing::AssertionFailure() << "item " << i << " outside every segment written";
    }
    return ::testing::AssertionSuccess();
  }

 private:
  void bounds(std::int64_t seg, std::int64_t* lo, std::int64_t* hi) const {
    if (!s_.use_offsets) {
      *lo = seg * s_.segment_size;
      *hi = *lo + s_.segment_size;
      return;
    }
    const std::int64_t n = s_.num_items;
    std::int64_t b = std::clamp<std::int64_t>(s_.offsets[seg], 0, n);
    std::int64_t e = std::clamp<std::int64_t>(s_.offsets[seg + 1], b, n);
    *lo = b;
    *hi = e;
  }

  void random_key(unsigned char* out) {
    const std::size_t kb = key_bytes(s_.type);
    std::uint64_t bits = static_cast<std::uint64_t>(rng_.integer(INT64_MIN, INT64_MAX));
    const bool is_float = s_.type == GPUOPT_DTYPE_F32 || s_.type == GPUOPT_DTYPE_F64;
    if (s_.distinct > 0) {
      const std::int64_t v = rng_.integer(0, s_.distinct - 1) - s_.distinct / 2;
      if (s_.type == GPUOPT_DTYPE_F32) {
        const float f = static_cast<float>(v) * 0.5f;
        std::memcpy(out, &f, 4);
      } else if (s_.type == GPUOPT_DTYPE_F64) {
        const double f = static_cast<double>(v) * 0.5;
        std::memcpy(out, &f, 8);
      } else {
        std::memcpy(out, &v, kb);  // little-endian: the low bytes
      }
      return;
    }
    if (is_float && s_.special && rng_.integer(0, 3) == 0) {
      const double kSpecial[] = {std::numeric_limits<double>::quiet_NaN(),
                                 -std::numeric_limits<double>::quiet_NaN(),
                                 std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity(),
                                 0.0,
                                 -0.0,
                                 std::numeric_limits<double>::denorm_min(),
                                 -std::numeric_limits<double>::denorm_min(),
                                 1.0,
                                 -1.0};
      const double d = kSpecial[rng_.integer(0, 9)];
      if (s_.type == GPUOPT_DTYPE_F32) {
        float f = static_cast<float>(d);
        if (d == std::numeric_limits<double>::denorm_min())
          f = std::numeric_limits<float>::denorm_min();
        std::memcpy(out, &f, 4);
      } else {
        std::memcpy(out, &d, 8);
      }
      return;
    }
    if (is_float) {  // finite random values of both signs and many magnitudes
      const double d =
          rng_.uniform(-1.0, 1.0) * std::pow(2.0, static_cast<double>(rng_.integer(-30, 30)));
      if (s_.type == GPUOPT_DTYPE_F32) {
        const float f = static_cast<float>(d);
        std::memcpy(out, &f, 4);
      } else {
        std::memcpy(out, &d, 8);
      }
      return;
    }
    std::memcpy(out, &bits, kb);
  }

  SortSpec s_;
  Rng rng_;
  std::vector<unsigned char> keys_, values_;
  std::unique_ptr<DeviceArray<unsigned char>> kin_, kout_, vin_, vout_, ws_;
  std::unique_ptr<DeviceArray<std::int64_t>> off_;
  std::size_t ws_bytes_ = 0;
};

}  // namespace gput
