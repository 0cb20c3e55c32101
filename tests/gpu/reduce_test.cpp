// gpuopt_reduce on the device: every variant x every op and type it accepts against the CPU
// reference (reduce_harness.hpp) over odd sizes, rows, offset segments (sizes 0 and 1 mixed in)
// and misaligned inputs; NaN and infinity propagation; run-to-run determinism; graph capture (the
// workspace is per stream); bad input answered with statuses and messages naming the argument.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gpu_fixture.hpp"
#include "reduce_harness.hpp"

namespace {

using gput::Layout;
using gput::ReduceCase;
using gput::ReduceSpec;

const gpuopt_reduce_op_t kOps[] = {GPUOPT_REDUCE_SUM, GPUOPT_REDUCE_MIN, GPUOPT_REDUCE_MAX,
                                   GPUOPT_REDUCE_ARGMIN, GPUOPT_REDUCE_ARGMAX};
const gpuopt_dtype_t kTypes[] = {GPUOPT_DTYPE_I32, GPUOPT_DTYPE_I64, GPUOPT_DTYPE_U32,
                                 GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F64, GPUOPT_DTYPE_BF16,
                                 GPUOPT_DTYPE_F16};
const gpuopt_dtype_t kFloatTypes[] = {GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F64, GPUOPT_DTYPE_BF16,
                                      GPUOPT_DTYPE_F16};

bool is_textbook(const std::string& v) {
  return v == "neighbored" || v == "interleaved" || v == "unroll8" || v == "unroll8_warp" ||
         v == "complete_unroll";
}

class Reduce : public gput::OpTest<GPUOPT_OP_REDUCE> {
 protected:
  using Variant = gput::VariantEntry;

  std::vector<Variant> variants() const { return gput::list_variants(ctx_, GPUOPT_OP_REDUCE); }

  // Whether variant v must accept the problem (the textbook rungs: SUM of i32/f32/f64, one array).
  static bool accepts(const std::string& v, const ReduceSpec& s) {
    if (!is_textbook(v)) return true;
    return s.op == GPUOPT_REDUCE_SUM && s.layout == Layout::whole &&
           (s.type == GPUOPT_DTYPE_I32 || s.type == GPUOPT_DTYPE_F32 || s.type == GPUOPT_DTYPE_F64);
  }

  // Runs c with variant v forced (or refused, where v cannot take the problem) and checks it.
  void run_variant(ReduceCase& c, const std::string& v) {
    SCOPED_TRACE("variant " + v + ": " + gput::describe(c.spec()));
    force(v);
    c.reset_out();
    const gpuopt_status_t st = c.run(ctx_, stream_);
    if (c.results() == 0) {  // no segments: nothing to run, any variant succeeds
      ASSERT_GPUOPT_OK(st);
      sync();
      EXPECT_TRUE(c.check());
      return;
    }
    if (!accepts(v, c.spec())) {
      EXPECT_EQ(st, GPUOPT_ERROR_UNSUPPORTED);
      EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", v.c_str()));
      return;
    }
    ASSERT_GPUOPT_OK(st);
    sync();
    if (v != "auto") {
      EXPECT_EQ(last_variant(), v);
    }
    const bool cub_f32 = v == "cub" && c.spec().type == GPUOPT_DTYPE_F32;
    EXPECT_TRUE(c.check(cub_f32));
  }

  // Builds the case from spec (fresh random input) and runs it with every available variant,
  // then with auto dispatch. `edit` may change the host input before the upload.
  void run_all(const ReduceSpec& spec, const std::function<void(ReduceCase&)>& edit = nullptr,
               const std::vector<std::string>& only = {}) {
    ReduceCase c(spec, rng_.split());
    if (edit) edit(c);
    c.upload();
    if (HasFatalFailure()) return;
    for (const Variant& v : variants()) {
      if (!v.available) continue;
      if (!only.empty() && std::find(only.begin(), only.end(), v.name) == only.end()) continue;
      run_variant(c, v.name);
      if (HasFatalFailure()) return;
    }
    run_variant(c, "auto");
    force("auto");
  }

  static ReduceSpec whole(gpuopt_reduce_op_t op, gpuopt_dtype_t t, std::int64_t n,
                          std::int64_t misalign = 0) {
    ReduceSpec s;
    s.op = op;
    s.type = t;
    s.n = n;
    s.misalign = misalign;
    return s;
  }
  static ReduceSpec rows(gpuopt_reduce_op_t op, gpuopt_dtype_t t, std::int64_t count,
                         std::int64_t n, std::int64_t stride, std::int64_t misalign = 0) {
    ReduceSpec s = whole(op, t, n, misalign);
    s.layout = Layout::rows;
    s.segments = count;
    s.stride = stride;
    return s;
  }
  ReduceSpec offsets(gpuopt_reduce_op_t op, gpuopt_dtype_t t,
                     const std::vector<std::int64_t>& sizes) {
    ReduceSpec s = whole(op, t, 0);
    s.layout = Layout::offsets;
    s.segments = static_cast<std::int64_t>(sizes.size());
    s.offsets.push_back(0);
    for (std::int64_t z : sizes) s.offsets.push_back(s.offsets.back() + z);
    s.n = s.offsets.back() + 5;  // 5 elements past the last segment: never read
    return s;
  }
};

TEST_F(Reduce, EveryVariantOpAndTypeOverOddSizes) {
  const std::int64_t sizes[] = {0, 1, 2, 3, 31, 33, 1024, 1025, 4097, 65536, 65537, 1000003};
  for (gpuopt_reduce_op_t op : kOps) {
    for (gpuopt_dtype_t t : kTypes) {
      for (std::int64_t n : sizes) {
        run_all(whole(op, t, n));
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST_F(Reduce, MisalignedInputs) {
  for (gpuopt_reduce_op_t op : {GPUOPT_REDUCE_SUM, GPUOPT_REDUCE_ARGMAX}) {
    for (gpuopt_dtype_t t : kTypes) {
      for (std::int64_t shift : {1, 3}) {
        if (shift * static_cast<std::int64_t>(gput::in_size(t)) % 16 == 0) continue;
        for (std::int64_t n : {5, 100, 70001}) {
          run_all(whole(op, t, n, shift));
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

// The ladder size and beyond 2^26: every variant, a few ops and types (host time dominates).
TEST_F(Reduce, LargeArrays) {
  const std::int64_t n = (std::int64_t{1} << 26) + 3;
  run_all(whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_I32, n));
  run_all(whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, n));
  run_all(whole(GPUOPT_REDUCE_ARGMAX, GPUOPT_DTYPE_F32, n));
  run_all(whole(GPUOPT_REDUCE_MIN, GPUOPT_DTYPE_BF16, n));
}

// The piece split of one array: SUM/MIN/MAX take the deep kernel (2048 pieces from 32 MiB up),
// ARGMIN/ARGMAX the 4-load one; piece starts are rounded down to 512-byte boundaries of the
// address, so the misaligned inputs move every boundary (outputs poisoned before each run).
TEST_F(Reduce, PieceBoundariesOfOneArray) {
  const std::vector<std::string> vec = {"warp_shuffle_vec", "sm90_cluster"};
  const std::int64_t big = (std::int64_t{1} << 23) + 12345;  // f32/i32: 2048 pieces
  for (gpuopt_reduce_op_t op : {GPUOPT_REDUCE_SUM, GPUOPT_REDUCE_MAX, GPUOPT_REDUCE_ARGMAX}) {
    for (gpuopt_dtype_t t : {GPUOPT_DTYPE_I32, GPUOPT_DTYPE_F32}) {
      for (std::int64_t shift : {0, 1}) {
        run_all(whole(op, t, big, shift), nullptr, vec);
        if (HasFatalFailure()) return;
      }
    }
  }
  const std::int64_t mid = 3000017;  // 367 (bf16/f16) to 1465 (i64/f64) pieces
  for (gpuopt_reduce_op_t op : {GPUOPT_REDUCE_SUM, GPUOPT_REDUCE_MIN}) {
    for (gpuopt_dtype_t t : {GPUOPT_DTYPE_I64, GPUOPT_DTYPE_U32, GPUOPT_DTYPE_F64,
                             GPUOPT_DTYPE_BF16, GPUOPT_DTYPE_F16}) {
      for (std::int64_t shift : {0, 3}) {
        if (shift * static_cast<std::int64_t>(gput::in_size(t)) % 16 == 0 && shift) continue;
        run_all(whole(op, t, mid, shift), nullptr, vec);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST_F(Reduce, RowsOfAMatrix) {
  for (gpuopt_reduce_op_t op : kOps) {
    for (gpuopt_dtype_t t : kTypes) {
      run_all(rows(op, t, 1000, 777, 800));  // block per row
      run_all(rows(op, t, 3000, 33, 35));    // warp per row, rows misaligned
      if (HasFatalFailure()) return;
    }
  }
  // Few long rows: split over blocks (partials, counters) or clusters.
  for (gpuopt_dtype_t t : kTypes) {
    run_all(rows(GPUOPT_REDUCE_SUM, t, 64, 100000, 100003));
    run_all(rows(GPUOPT_REDUCE_ARGMIN, t, 200, 40000, 40001, 1));
    run_all(rows(GPUOPT_REDUCE_MAX, t, 3, 300001, 300001));
    if (HasFatalFailure()) return;
  }
  // Empty rows give the identity.
  for (gpuopt_reduce_op_t op : kOps) run_all(rows(op, GPUOPT_DTYPE_F32, 7, 0, 0));
}

TEST_F(Reduce, OffsetSegmentsWithEmptyAndSingleElementSegments) {
  std::vector<std::int64_t> small, large;
  for (int i = 0; i < 3000; ++i) {
    const int pick = static_cast<int>(rng_.integer(0, 9));
    small.push_back(pick == 0 ? 0 : pick == 1 ? 1 : rng_.integer(2, 90));
  }
  for (int i = 0; i < 40; ++i) {
    const int pick = static_cast<int>(rng_.integer(0, 7));
    large.push_back(pick == 0 ? 0 : pick == 1 ? 1 : rng_.integer(1000, 120000));
  }
  large[0] = 0;
  large[1] = 1;
  large[2] = 400000;  // one segment much longer than the others
  for (gpuopt_reduce_op_t op : kOps) {
    for (gpuopt_dtype_t t : kTypes) {
      run_all(offsets(op, t, small));
      run_all(offsets(op, t, large));
      if (HasFatalFailure()) return;
    }
  }
  // No segments at all: nothing is written (the harness checks the poisoned element).
  run_all(offsets(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, {}));
}

TEST_F(Reduce, NanAndInfinityPropagate) {
  for (gpuopt_dtype_t t : kFloatTypes) {
    for (gpuopt_reduce_op_t op : kOps) {
      for (std::int64_t n : {7, 5000, 300007}) {
        const std::int64_t first = rng_.integer(0, n - 1);
        const std::int64_t second = rng_.integer(first, n - 1);
        run_all(whole(op, t, n), [&](ReduceCase& c) {
          c.host().set_nan(static_cast<std::size_t>(second));
          c.host().set_nan(static_cast<std::size_t>(first));
        });
      }
      // Rows: NaN in some rows only.
      run_all(rows(op, t, 50, 3000, 3000), [&](ReduceCase& c) {
        for (int r = 0; r < 50; r += 7) c.host().set_nan(static_cast<std::size_t>(r * 3000 + r));
      });
    }
    // +inf and -inf: the sum is NaN; with +inf alone it is +inf; max is +inf.
    const double inf = std::numeric_limits<double>::infinity();
    run_all(whole(GPUOPT_REDUCE_SUM, t, 10000), [&](ReduceCase& c) {
      c.host().set(17, inf);
      c.host().set(9000, -inf);
    });
    run_all(whole(GPUOPT_REDUCE_SUM, t, 10000), [&](ReduceCase& c) { c.host().set(17, inf); });
    run_all(whole(GPUOPT_REDUCE_MAX, t, 10000), [&](ReduceCase& c) { c.host().set(4321, inf); });
    // Signed zeros: MIN is -0, MAX is +0, ARGMIN/ARGMAX take the first zero.
    for (gpuopt_reduce_op_t op : kOps) {
      run_all(whole(op, t, 2000), [&](ReduceCase& c) {
        for (std::size_t i = 0; i < 2000; ++i) c.host().set(i, (i % 3) ? 1.0 : -1.0);
        for (std::size_t i = 0; i < 2000; ++i)
          if (op == GPUOPT_REDUCE_MIN || op == GPUOPT_REDUCE_ARGMIN) c.host().set(i, 1.0);
        c.host().set(100, 0.0);
        c.host().set(1500, -0.0);
        c.host().set(1700, 0.0);
      });
    }
  }
}

// Same bits on every run: each variant twice on the same input, and on a second stream.
TEST_F(Reduce, DeterministicAcrossRunsAndStreams) {
  gput::Stream other = gput::make_stream(ctx_);
  ASSERT_TRUE(other);
  for (gpuopt_dtype_t t : {GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F64, GPUOPT_DTYPE_BF16}) {
    for (const ReduceSpec& spec : {whole(GPUOPT_REDUCE_SUM, t, (1 << 22) + 5),
                                   rows(GPUOPT_REDUCE_SUM, t, 16, 1 << 18, (1 << 18) + 1)}) {
      ReduceCase c(spec, rng_.split());
      c.upload();
      for (const Variant& v : variants()) {
        if (!v.available || !accepts(v.name, spec)) continue;
        SCOPED_TRACE(v.name + ": " + gput::describe(spec));
        force(v.name);
        std::vector<unsigned char> first;
        for (gpuopt_stream_t s : {stream_, other.get(), stream_}) {
          c.reset_out();
          ASSERT_GPUOPT_OK(c.run(ctx_, s));
          ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(s));
          const std::vector<unsigned char> got = c.download();
          if (first.empty()) {
            first = got;
            EXPECT_TRUE(c.compare(got, v.name == "cub" && t == GPUOPT_DTYPE_F32));
          } else {
            EXPECT_EQ(got, first) << "bits differ between runs";
          }
        }
      }
      force("auto");
    }
  }
}

// Integer sums, MIN/MAX and ARGMIN/ARGMAX are exact: every variant gives the same bits; checked
// by the reference above. Here: auto dispatch picks a fast rung and reports it.
TEST_F(Reduce, AutoDispatchPicksWarpShuffleVecForArrays) {
  ReduceCase c(whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, 1 << 20), rng_.split());
  c.upload();
  ASSERT_GPUOPT_OK(c.run(ctx_, stream_));
  sync();
  EXPECT_EQ(last_variant(), "warp_shuffle_vec");
  EXPECT_TRUE(c.check());
}

// Graph capture: nothing allocates during the call (the workspace is the stream's), the captured
// reduction replays correctly, and the counters a split reduction uses are reset every time.
TEST_F(Reduce, GraphCaptureAndReplay) {
  for (const char* v : {"auto", "warp_shuffle_vec", "sm90_cluster", "cub", "unroll8"}) {
    bool available = std::string(v) == "auto";
    for (const Variant& x : variants()) available = available || (x.name == v && x.available);
    if (!available) continue;
    SCOPED_TRACE(v);
    force(v);
    ReduceCase whole_sum(whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, (1 << 22) + 3), rng_.split());
    whole_sum.upload();
    ReduceCase row_max(rows(GPUOPT_REDUCE_ARGMAX, GPUOPT_DTYPE_F32, 64, 70000, 70001),
                       rng_.split());
    row_max.upload();
    const bool rows_ok = std::string(v) != "unroll8";
    ASSERT_GPUOPT_OK(gpuopt_graph_begin(ctx_, stream_));
    EXPECT_GPUOPT_OK(whole_sum.run(ctx_, stream_));
    if (rows_ok) {
      EXPECT_GPUOPT_OK(row_max.run(ctx_, stream_));
    }
    gpuopt_graph_t raw = nullptr;
    ASSERT_GPUOPT_OK(gpuopt_graph_end(stream_, &raw));
    gput::Graph g(raw);
    for (int replay = 0; replay < 3; ++replay) {
      whole_sum.reset_out();
      if (rows_ok) row_max.reset_out();
      ASSERT_GPUOPT_OK(gpuopt_graph_launch(g.get(), stream_));
      sync();
      EXPECT_TRUE(whole_sum.check(std::string(v) == "cub")) << "replay " << replay;
      if (rows_ok) {
        EXPECT_TRUE(row_max.check()) << "replay " << replay;
      }
    }
  }
  force("auto");
}

// Offsets that break the contract (decreasing, negative, past n) are clamped: no fault, and the
// stream keeps working.
TEST_F(Reduce, BadOffsetsNeverReadOutOfBounds) {
  for (const Variant& v : variants()) {
    if (!v.available || is_textbook(v.name)) continue;
    SCOPED_TRACE(v.name);
    force(v.name);
    const std::vector<std::int64_t> offs = {5,
                                            3,
                                            -7,
                                            1000,
                                            std::numeric_limits<std::int64_t>::max(),
                                            -1,
                                            50,
                                            std::numeric_limits<std::int64_t>::min(),
                                            99};
    gput::DeviceArray<std::int64_t> off(offs.size());
    off.upload(offs);
    gput::DeviceArray<float> in(100);
    ASSERT_CUDA_OK(cudaMemset(in.data(), 0, 100 * sizeof(float)));
    ASSERT_CUDA_OK(cudaDeviceSynchronize());  // the memset's stream does not order gpuopt's
    gput::DeviceArray<std::int64_t> out(offs.size() - 1);
    for (gpuopt_reduce_op_t op : {GPUOPT_REDUCE_SUM, GPUOPT_REDUCE_ARGMAX}) {
      gpuopt_reduce_desc_t d{};
      d.struct_size = sizeof d;
      d.op = op;
      d.in_type = GPUOPT_DTYPE_F32;
      d.n = 100;
      d.num_segments = static_cast<std::int64_t>(offs.size()) - 1;
      d.offsets = reinterpret_cast<const int64_t*>(off.data());
      EXPECT_GPUOPT_OK(gpuopt_reduce(ctx_, stream_, &d, in.data(), out.data()));
      sync();
    }
  }
  force("auto");
  ReduceCase c(whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_I32, 4099), rng_.split());
  c.upload();
  ASSERT_GPUOPT_OK(c.run(ctx_, stream_));
  sync();
  EXPECT_TRUE(c.check()) << "the stream no longer reduces correctly";
}

// ---- bad input ---------------------------------------------------------------------------------

class ReduceBadInput : public Reduce {
 protected:
  void SetUp() override {
    Reduce::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    in_.reset(new gput::DeviceArray<float>(4096));
    out_.reset(new gput::DeviceArray<std::int64_t>(64));
    ASSERT_CUDA_OK(cudaMemset(in_->data(), 0, 4096 * sizeof(float)));
    ASSERT_CUDA_OK(cudaDeviceSynchronize());  // the memset's stream does not order gpuopt's
    d_.struct_size = sizeof d_;
    d_.op = GPUOPT_REDUCE_SUM;
    d_.in_type = GPUOPT_DTYPE_F32;
    d_.n = 4096;
    d_.num_segments = 1;
  }
  gpuopt_status_t call(const gpuopt_reduce_desc_t* d, const void* in, void* out) {
    return gpuopt_reduce(ctx_, stream_, d, in, out);
  }
  gpuopt_status_t call() { return call(&d_, in_->data(), out_->data()); }

  std::unique_ptr<gput::DeviceArray<float>> in_;
  std::unique_ptr<gput::DeviceArray<std::int64_t>> out_;
  gpuopt_reduce_desc_t d_{};
};

TEST_F(ReduceBadInput, NullContextStreamAndDesc) {
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE,
                gpuopt_reduce(nullptr, stream_, &d_, in_->data(), out_->data()));
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "ctx"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE,
                gpuopt_reduce(ctx_, nullptr, &d_, in_->data(), out_->data()));
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "stream"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call(nullptr, in_->data(), out_->data()));
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "desc"));
}

TEST_F(ReduceBadInput, WrongStructSize) {
  d_.struct_size = 8;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "struct_size"));
  // A descriptor without the trailing mode field is fine (mode defaults to DETERMINISTIC).
  d_.struct_size = offsetof(gpuopt_reduce_desc_t, mode);
  EXPECT_GPUOPT_OK(call());
  sync();
}

TEST_F(ReduceBadInput, UnknownOpTypeAndMode) {
  d_.op = static_cast<gpuopt_reduce_op_t>(9);
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "op"));
  d_.op = GPUOPT_REDUCE_SUM;
  d_.in_type = static_cast<gpuopt_dtype_t>(77);
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "in_type"));
  d_.in_type = GPUOPT_DTYPE_U64;
  EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "in_type"));
  d_.in_type = GPUOPT_DTYPE_F32;
  d_.mode = static_cast<gpuopt_reduce_mode_t>(5);
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "mode"));
}

TEST_F(ReduceBadInput, NegativeSizes) {
  d_.n = -1;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "n"));
  d_.n = 16;
  d_.num_segments = -2;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "num_segments"));
}

TEST_F(ReduceBadInput, NullAndMisalignedPointers) {
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call(&d_, nullptr, out_->data()));
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "in"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call(&d_, in_->data(), nullptr));
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "out"));
  d_.n = 100;
  EXPECT_STATUS(GPUOPT_ERROR_MISALIGNED,
                call(&d_, reinterpret_cast<const char*>(in_->data()) + 2, out_->data()));
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "in"));
  EXPECT_STATUS(GPUOPT_ERROR_MISALIGNED,
                call(&d_, in_->data(), reinterpret_cast<char*>(out_->data()) + 1));
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "out"));
  // Host memory is not device memory.
  std::vector<float> host(100, 1.0f);
  EXPECT_NE(call(&d_, host.data(), out_->data()), GPUOPT_SUCCESS);
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "in"));
  // n = 0 reads nothing: in may be NULL.
  d_.n = 0;
  EXPECT_GPUOPT_OK(call(&d_, nullptr, out_->data()));
  sync();
}

TEST_F(ReduceBadInput, RangesPastTheAllocation) {
  // Far past the end (beyond any rounding of the allocation's extent).
  d_.n = 4096 + (1 << 22);
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "in"));
  d_.n = 16;
  d_.num_segments = 1 << 20;
  d_.segment_stride = 0;
  d_.n = 0;  // 2^20 empty rows: nothing read, 2^20 results
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "out"));
}

TEST_F(ReduceBadInput, SegmentsWithoutStrideOrOffsets) {
  d_.n = 64;
  d_.num_segments = 8;
  d_.segment_stride = 0;  // looks like the caller meant variable segments
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "segment_stride"));
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "offsets"));
  d_.segment_stride = 64;
  EXPECT_GPUOPT_OK(call());
  sync();
  // Offsets must be device memory covering num_segments + 1 entries.
  std::vector<std::int64_t> host_offsets(9, 0);
  d_.offsets = reinterpret_cast<const int64_t*>(host_offsets.data());
  EXPECT_NE(call(), GPUOPT_SUCCESS);
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "offsets"));
  // 2^20 + 1 offsets needed, 8 given (far past any rounding of the allocation).
  gput::DeviceArray<std::int64_t> short_offsets(8);
  gput::DeviceArray<float> big_out(1 << 20);
  d_.offsets = reinterpret_cast<const int64_t*>(short_offsets.data());
  d_.num_segments = 1 << 20;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call(&d_, in_->data(), big_out.data()));
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "offsets"));
}

TEST_F(ReduceBadInput, ForcedTextbookRungRefusesWhatItCannotDo) {
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_REDUCE, "interleaved"));
  d_.op = GPUOPT_REDUCE_ARGMAX;
  EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED, call());
  EXPECT_TRUE(gput::MessageNames("gpuopt_reduce", "interleaved"));
  d_.op = GPUOPT_REDUCE_SUM;
  d_.in_type = GPUOPT_DTYPE_BF16;
  EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED, call());
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_REDUCE, nullptr));
  EXPECT_GPUOPT_OK(call());
  sync();
}

}  // namespace
