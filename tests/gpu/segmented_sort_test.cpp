// gpuopt_segmented_sort on the device: every variant x key type x order x with/without values
// against the host check (segmented_sort_harness.hpp) over fixed sizes 0, 1, 2^k, 2^k + 1 and
// primes, offset segments with sizes 0 and 1 mixed in and gaps between them; stability with
// duplicate keys; NaN / infinity / signed-zero keys; graph capture; clamped bad offsets; bad
// input answered with statuses and messages naming the argument.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gpu_fixture.hpp"
#include "segmented_sort_harness.hpp"

namespace {

using gput::SortCase;
using gput::SortSpec;

const gpuopt_dtype_t kTypes[] = {GPUOPT_DTYPE_I32, GPUOPT_DTYPE_U32, GPUOPT_DTYPE_F32,
                                 GPUOPT_DTYPE_I64, GPUOPT_DTYPE_U64, GPUOPT_DTYPE_F64};

class SegmentedSort : public gput::OpTest<GPUOPT_OP_SEGMENTED_SORT> {
 protected:
  std::vector<std::string> variants() const {
    return gput::variant_names(ctx_, GPUOPT_OP_SEGMENTED_SORT);
  }

  // Whether variant v must take the problem.
  static bool accepts(const std::string& v, const SortSpec& s) {
    if (v == "warp_bitonic") return !s.use_offsets && s.segment_size <= 512;
    if (v == "block_bitonic") return !s.use_offsets && s.segment_size <= 4096;
    return true;
  }

  void run_variant(SortCase& c, const std::string& v) {
    SCOPED_TRACE("variant " + v + ": " + gput::describe(c.spec()));
    force(v);
    c.reset_out();
    const gpuopt_status_t st = c.run(ctx_, stream_);
    const bool empty = c.spec().num_items == 0 || c.spec().num_segments == 0;
    if (!empty && !accepts(v, c.spec())) {
      EXPECT_EQ(st, GPUOPT_ERROR_UNSUPPORTED);
      EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", v.c_str()));
      return;
    }
    ASSERT_GPUOPT_OK(st);
    sync();
    if (!empty && v != "auto") {
      EXPECT_EQ(last_variant(), v);
    }
    EXPECT_TRUE(c.check());
  }

  void run_all(const SortSpec& s, const std::vector<std::string>& only = {}) {
    SortCase c(s, rng_.split());
    run_all(c, only);
  }

  // Every variant (or those in only) and auto on c, whose host keys the caller may have set.
  void run_all(SortCase& c, const std::vector<std::string>& only = {}) {
    c.upload();
    if (HasFatalFailure()) return;
    for (const std::string& v : variants()) {
      if (!only.empty() && std::find(only.begin(), only.end(), v) == only.end()) continue;
      run_variant(c, v);
      if (HasFatalFailure()) return;
    }
    run_variant(c, "auto");
    force("auto");
  }

  static SortSpec fixed(gpuopt_dtype_t t, int vb, bool desc, std::int64_t segments,
                        std::int64_t size) {
    SortSpec s;
    s.type = t;
    s.value_bytes = vb;
    s.descending = desc;
    s.num_segments = segments;
    s.segment_size = size;
    s.num_items = segments * size;
    return s;
  }

  // Offsets from sizes, with a gap of `gap` unsorted items before every third segment.
  static SortSpec with_offsets(gpuopt_dtype_t t, int vb, bool desc,
                               const std::vector<std::int64_t>& sizes, std::int64_t gap = 3) {
    SortSpec s;
    s.type = t;
    s.value_bytes = vb;
    s.descending = desc;
    s.use_offsets = true;
    s.num_segments = static_cast<std::int64_t>(sizes.size());
    std::int64_t at = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (i % 3 == 0) at += gap;
      s.offsets.push_back(at);
      at += sizes[i];
    }
    s.offsets.push_back(at);
    s.num_items = at + gap;
    return s;
  }

  std::vector<std::int64_t> random_sizes(std::int64_t count, std::int64_t max) {
    std::vector<std::int64_t> sizes;
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t r = rng_.integer(0, 9);
      sizes.push_back(r == 0 ? 0 : (r == 1 ? 1 : rng_.integer(2, max)));
    }
    return sizes;
  }
};

// Fixed sizes 0, 1, 2^k, 2^k + 1 and primes up to 4096 (and past it for binned and cub), every
// key type, both orders, keys only and with 4- and 8-byte values.
TEST_F(SegmentedSort, FixedSizesEveryVariantTypeOrderAndValues) {
  const std::int64_t kSizes[] = {0, 1, 2, 9, 32, 33, 128, 257, 509, 512, 1031, 2048, 4093};
  for (gpuopt_dtype_t t : kTypes)
    for (int vb : {0, 4, 8})
      for (bool desc : {false, true})
        for (std::int64_t size : kSizes) {
          const std::int64_t segments =
              size == 0 ? 5 : std::max<std::int64_t>(3, (8000 / size) | 1);
          run_all(fixed(t, vb, desc, segments, size));
          if (HasFatalFailure()) return;
        }
}

TEST_F(SegmentedSort, FixedLargeSegmentsGoToTheRadixSort) {
  for (gpuopt_dtype_t t : {GPUOPT_DTYPE_I32, GPUOPT_DTYPE_F64})
    for (int vb : {0, 8}) {
      run_all(fixed(t, vb, vb != 0, 3, 5003));
      run_all(fixed(t, vb, false, 1, 65537));
      if (HasFatalFailure()) return;
    }
}

TEST_F(SegmentedSort, OffsetsWithEmptyAndSingleItemSegments) {
  for (gpuopt_dtype_t t : kTypes)
    for (int vb : {0, 4, 8})
      for (bool desc : {false, true}) {
        run_all(with_offsets(t, vb, desc, random_sizes(301, 1100)));
        if (HasFatalFailure()) return;
      }
}

TEST_F(SegmentedSort, OffsetsEverySizeClassAndLargeSegments) {
  std::vector<std::int64_t> sizes = {0,    1,    2,    8,    9,   16,   17,   64,
                                     65,   256,  257,  512,  513, 1024, 1025, 2048,
                                     2049, 4096, 4097, 9001, 0,   1,    3};
  for (gpuopt_dtype_t t : {GPUOPT_DTYPE_U32, GPUOPT_DTYPE_F32, GPUOPT_DTYPE_I64})
    for (int vb : {0, 4}) {
      run_all(with_offsets(t, vb, t == GPUOPT_DTYPE_F32, sizes));
      if (HasFatalFailure()) return;
    }
}

// Few distinct keys: equal keys must keep their input order (values record it).
TEST_F(SegmentedSort, StableWithDuplicateKeys) {
  for (gpuopt_dtype_t t : kTypes)
    for (bool desc : {false, true})
      for (std::int64_t size : {7, 128, 300, 1000, 4096, 6000}) {
        SortSpec s = fixed(t, 4, desc, 9, size);
        s.distinct = 5;
        run_all(s);
        SortSpec o = with_offsets(t, 8, desc, random_sizes(40, 2 * size));
        o.distinct = 3;
        run_all(o);
        if (HasFatalFailure()) return;
      }
}

// IEEE total order: -inf < ... < -0.0 < +0.0 < ... < +inf < NaN (both NaN signs last).
TEST_F(SegmentedSort, NanInfinityAndSignedZeroKeys) {
  for (gpuopt_dtype_t t : {GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F64})
    for (int vb : {0, 8})
      for (bool desc : {false, true})
        for (std::int64_t size : {5, 64, 200, 777, 3000, 5000}) {
          SortSpec s = fixed(t, vb, desc, 7, size);
          s.special = true;
          run_all(s);
          if (HasFatalFailure()) return;
        }
}

// Integer keys at the ends of their range and either side of the sign bit, where a key map that
// confused signed and unsigned order would show (the cub rung sorts unsigned 32-bit keys as int
// with the sign bit flipped, signed 64-bit ones as unsigned).
template <class T>
std::vector<T> extreme_keys() {
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  const T half = static_cast<T>(hi / 2);
  return {lo,
          static_cast<T>(lo + 1),
          static_cast<T>(half - 1),
          half,
          static_cast<T>(half + 1),
          static_cast<T>(-1),
          T(0),
          T(1),
          static_cast<T>(hi - 1),
          hi};
}

template <class T>
void set_extreme_keys(SortCase& c, gput::Rng& rng) {
  const std::vector<T> pick = extreme_keys<T>();
  std::vector<unsigned char>& keys = c.host_keys();
  for (std::size_t i = 0; i < keys.size() / sizeof(T); ++i) {
    const T k =
        pick[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(pick.size()) - 1))];
    std::memcpy(keys.data() + i * sizeof(T), &k, sizeof(T));
  }
}

TEST_F(SegmentedSort, IntegerKeysAtTheirExtremesEveryVariant) {
  for (gpuopt_dtype_t t : {GPUOPT_DTYPE_I32, GPUOPT_DTYPE_U32, GPUOPT_DTYPE_I64, GPUOPT_DTYPE_U64})
    for (int vb : {0, 4})
      for (bool desc : {false, true})
        for (const SortSpec& s : {fixed(t, vb, desc, 67, 33), fixed(t, vb, desc, 3, 1500),
                                  with_offsets(t, vb, desc, random_sizes(41, 700))}) {
          SortCase c(s, rng_.split());
          gput::Rng keys_rng(rng_.split());
          switch (t) {
            case GPUOPT_DTYPE_I32:
              set_extreme_keys<std::int32_t>(c, keys_rng);
              break;
            case GPUOPT_DTYPE_U32:
              set_extreme_keys<std::uint32_t>(c, keys_rng);
              break;
            case GPUOPT_DTYPE_I64:
              set_extreme_keys<std::int64_t>(c, keys_rng);
              break;
            default:
              set_extreme_keys<std::uint64_t>(c, keys_rng);
              break;
          }
          run_all(c);
          if (HasFatalFailure()) return;
        }
}

// A small case per variant (for compute-sanitizer memcheck and racecheck).
TEST_F(SegmentedSort, SmallEveryVariant) {
  for (int vb : {0, 8}) {
    run_all(fixed(GPUOPT_DTYPE_I32, vb, false, 5, 100));
    run_all(fixed(GPUOPT_DTYPE_F64, vb, true, 3, 1500));
    run_all(with_offsets(GPUOPT_DTYPE_U32, vb, false, {0, 1, 5, 30, 300, 1500, 4500, 2}));
    if (HasFatalFailure()) return;
  }
}

TEST_F(SegmentedSort, AutoPicksTheNetworksForFixedSegments) {
  SortCase a(fixed(GPUOPT_DTYPE_I32, 0, false, 64, 128), rng_.split());
  a.upload();
  ASSERT_GPUOPT_OK(a.run(ctx_, stream_));
  sync();
  EXPECT_EQ(last_variant(), "warp_bitonic");
  EXPECT_TRUE(a.check());
  SortCase b(fixed(GPUOPT_DTYPE_I32, 0, false, 8, 3000), rng_.split());
  b.upload();
  ASSERT_GPUOPT_OK(b.run(ctx_, stream_));
  sync();
  EXPECT_EQ(last_variant(), "block_bitonic");
  SortCase c(with_offsets(GPUOPT_DTYPE_I32, 0, false, {3, 4, 5}), rng_.split());
  c.upload();
  ASSERT_GPUOPT_OK(c.run(ctx_, stream_));
  sync();
  EXPECT_EQ(last_variant(), "binned");
}

// Nothing allocates or synchronizes during the call: the sort can be captured and replayed.
TEST_F(SegmentedSort, GraphCaptureAndReplay) {
  for (const std::string& v : variants()) {
    SCOPED_TRACE(v);
    force(v);
    SortCase c(v == "warp_bitonic" || v == "block_bitonic"
                   ? fixed(GPUOPT_DTYPE_F32, 4, false, 100, 300)
                   : with_offsets(GPUOPT_DTYPE_F32, 4, false, random_sizes(200, 6000)),
               rng_.split());
    c.upload();
    c.reset_out();
    ASSERT_GPUOPT_OK(c.run(ctx_, stream_));  // allocates the workspace outside the capture
    sync();
    ASSERT_GPUOPT_OK(gpuopt_graph_begin(ctx_, stream_));
    EXPECT_GPUOPT_OK(c.run(ctx_, stream_));
    gpuopt_graph_t raw = nullptr;
    ASSERT_GPUOPT_OK(gpuopt_graph_end(stream_, &raw));
    gput::Graph g(raw);
    for (int replay = 0; replay < 2; ++replay) {
      c.reset_out();
      ASSERT_GPUOPT_OK(gpuopt_graph_launch(g.get(), stream_));
      sync();
      EXPECT_TRUE(c.check()) << "replay " << replay;
    }
  }
  force("auto");
}

// Offsets that break the contract (negative, past num_items, decreasing) are clamped into
// [0, num_items] and made non-decreasing per segment: nothing is read or written out of bounds.
TEST_F(SegmentedSort, BadOffsetsAreClamped) {
  for (const char* v : {"binned", "cub"}) {
    SCOPED_TRACE(v);
    force(v);
    SortSpec s = with_offsets(GPUOPT_DTYPE_I32, 4, false, {10, 20, 30, 40, 5000});
    // Clamped: [0, 10), [10, 10), [10, 40), [40, 6000), [6000, 6000) (a decreasing end).
    s.offsets = {-50, 10, 10, 40, 1 << 30, 7};
    s.num_segments = 5;
    s.num_items = 6000;
    SortCase c(s, rng_.split());
    c.upload();
    c.reset_out();
    ASSERT_GPUOPT_OK(c.run(ctx_, stream_));
    sync();
    EXPECT_TRUE(c.check());
  }
  force("auto");
}

// ---- bad input ----------------------------------------------------------------------------------

class SegmentedSortBadInput : public SegmentedSort {
 protected:
  void SetUp() override {
    SegmentedSort::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    keys_ = std::make_unique<gput::DeviceArray<std::int32_t>>(4096);
    out_ = std::make_unique<gput::DeviceArray<std::int32_t>>(4096);
    d_.struct_size = sizeof d_;
    d_.key_type = GPUOPT_DTYPE_I32;
    d_.num_items = 4096;
    d_.num_segments = 32;
    d_.segment_size = 128;
    ASSERT_GPUOPT_OK(gpuopt_segmented_sort_workspace_size(ctx_, &d_, &ws_bytes_));
    ws_ = std::make_unique<gput::DeviceArray<unsigned char>>(ws_bytes_);
  }
  gpuopt_status_t call(const gpuopt_segmented_sort_desc_t* d, const void* kin, void* kout,
                       std::size_t ws_bytes) {
    return gpuopt_segmented_sort(ctx_, stream_, d, kin, kout, nullptr, nullptr, ws_->data(),
                                 ws_bytes);
  }
  gpuopt_status_t call() { return call(&d_, keys_->data(), out_->data(), ws_bytes_); }

  std::unique_ptr<gput::DeviceArray<std::int32_t>> keys_, out_;
  std::unique_ptr<gput::DeviceArray<unsigned char>> ws_;
  std::size_t ws_bytes_ = 0;
  gpuopt_segmented_sort_desc_t d_{};
};

TEST_F(SegmentedSortBadInput, ValidCallSucceeds) {
  EXPECT_GPUOPT_OK(call());
  sync();
}

TEST_F(SegmentedSortBadInput, NullHandlesDescAndStructSize) {
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE,
                gpuopt_segmented_sort(nullptr, stream_, &d_, keys_->data(), out_->data(), nullptr,
                                      nullptr, ws_->data(), ws_bytes_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "ctx"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                call(nullptr, keys_->data(), out_->data(), ws_bytes_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "desc"));
  d_.struct_size = 8;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "struct_size"));
}

TEST_F(SegmentedSortBadInput, TypesValuesOrderAndSizes) {
  d_.key_type = GPUOPT_DTYPE_F16;
  EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "key_type"));
  d_.key_type = static_cast<gpuopt_dtype_t>(99);
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "key_type"));
  d_.key_type = GPUOPT_DTYPE_I32;
  d_.value_bytes = 2;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "value_bytes"));
  d_.value_bytes = 4;  // values pointers NULL
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "values_in"));
  d_.value_bytes = 0;
  d_.order = static_cast<gpuopt_sort_order_t>(7);
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "order"));
  d_.order = GPUOPT_SORT_ASCENDING;
  d_.num_items = -1;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "num_items"));
  d_.num_items = 4000;  // != 32 x 128
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "num_items"));
  d_.num_items = 4096;
  d_.segment_size = -128;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "segment_size"));
}

TEST_F(SegmentedSortBadInput, PointersWorkspaceAndOverlap) {
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call(&d_, nullptr, out_->data(), ws_bytes_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "keys_in"));
  EXPECT_STATUS(GPUOPT_ERROR_MISALIGNED,
                call(&d_, keys_->data(), reinterpret_cast<char*>(out_->data()) + 2, ws_bytes_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "keys_out"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                call(&d_, keys_->data(), out_->data(), ws_bytes_ - 1));
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "workspace_bytes"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call(&d_, keys_->data(), keys_->data(), ws_bytes_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "keys_out"));
  d_.num_items = 8192;
  d_.num_segments = 64;
  std::size_t big = 0;
  ASSERT_GPUOPT_OK(gpuopt_segmented_sort_workspace_size(ctx_, &d_, &big));
  gput::DeviceArray<unsigned char> ws(big);
  EXPECT_FALSE(gpuopt_segmented_sort(ctx_, stream_, &d_, keys_->data(), out_->data(), nullptr,
                                     nullptr, ws.data(), big) == GPUOPT_SUCCESS);
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "keys_in"));
}

TEST_F(SegmentedSortBadInput, ForcedVariantRefusesWhatItCannotSort) {
  force("warp_bitonic");
  d_.num_segments = 2;
  d_.segment_size = 2048;
  std::size_t bytes = 0;
  ASSERT_GPUOPT_OK(gpuopt_segmented_sort_workspace_size(ctx_, &d_, &bytes));
  gput::DeviceArray<unsigned char> ws(bytes);
  EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED,
                gpuopt_segmented_sort(ctx_, stream_, &d_, keys_->data(), out_->data(), nullptr,
                                      nullptr, ws.data(), bytes));
  EXPECT_TRUE(gput::MessageNames("gpuopt_segmented_sort", "segment_size"));
  force("auto");
}

}  // namespace
