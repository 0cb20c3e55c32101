// gpuopt_transpose on the device: every variant forced x every dtype it takes, over odd sizes
// (1x1, 1xN, Nx1, 33x17, 1000x777), leading dimensions larger than the sizes, unaligned pointers
// and pitches (the variants that need 16-byte alignment refuse, auto still runs), poisoned
// outputs, exact comparison with the CPU reference (transpose_harness.hpp); graph capture; bad
// input (overlap, misaligned and foreign pointers) answered with statuses naming the argument.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_fixture.hpp"
#include "transpose_harness.hpp"

namespace {

using gput::TransposeCase;
using gput::TransposeSpec;

const gpuopt_dtype_t kTypes[] = {GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F64, GPUOPT_DTYPE_BF16};

std::int64_t round8(std::int64_t n) { return (n + 7) / 8 * 8; }

class Transpose : public gput::OpTest<GPUOPT_OP_TRANSPOSE> {
 protected:
  using Variant = gput::VariantEntry;

  std::vector<Variant> variants() const { return gput::list_variants(ctx_, GPUOPT_OP_TRANSPOSE); }

  // Whether the variant that ran is the arithmetic vendor routine.
  bool ran_cublas() const { return last_variant() == "cublas"; }

  // Whether variant v must refuse the case (UNSUPPORTED) rather than run it.
  static bool refuses(const Variant& v, const TransposeSpec& s) {
    if (!(v.dtype_mask & (1u << static_cast<unsigned>(s.dtype)))) return true;
    if (v.name.find("tma") == std::string::npos) return false;  // the TMA rungs' conditions
    const std::size_t e = gput::transpose_elem(s.dtype);
    const std::int64_t lda = s.lda ? s.lda : (s.rows > 1 ? s.rows : 1);
    const std::int64_t ldb = s.ldb ? s.ldb : (s.cols > 1 ? s.cols : 1);
    return (s.a_off * e) % 16 || (s.b_off * e) % 16 || (lda * e) % 16 || (ldb * e) % 16 ||
           (s.cols * e) % 16;
  }

  void run_variant(const TransposeCase& c, const Variant& v) {
    SCOPED_TRACE("variant " + v.name + ": " + gput::describe(c.spec()));
    force(v.name);
    c.poison_b();
    const gpuopt_status_t st = c.run(ctx_, stream_);
    if (c.spec().rows == 0 || c.spec().cols == 0) {  // nothing to move: any variant succeeds
      ASSERT_GPUOPT_OK(st);
      sync();
      EXPECT_TRUE(c.check_untouched());
      return;
    }
    if (v.name != "auto" && refuses(v, c.spec())) {
      EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED, st);
      EXPECT_TRUE(gput::MessageNames("gpuopt_transpose", v.name.c_str()));
      sync();
      EXPECT_TRUE(c.check_untouched());
      return;
    }
    ASSERT_GPUOPT_OK(st);
    sync();
    if (v.name != "auto") {
      EXPECT_EQ(last_variant(), v.name);
    }
    EXPECT_TRUE(c.check(ran_cublas()));
  }

  // Every available variant, then auto, on one fresh random A.
  void run_all(const TransposeSpec& spec) {
    TransposeCase c(spec, rng_.split());
    ASSERT_TRUE(c.ok());
    c.upload();
    if (HasFatalFailure()) return;
    std::vector<Variant> vs = variants();
    vs.push_back({"auto", true, ~0u});
    for (const Variant& v : vs) {
      if (!v.available) continue;
      run_variant(c, v);
      if (HasFatalFailure()) return;
    }
    force("auto");
  }

  static TransposeSpec spec(gpuopt_dtype_t t, std::int64_t rows, std::int64_t cols,
                            std::int64_t lda = 0, std::int64_t ldb = 0, std::int64_t a_off = 0,
                            std::int64_t b_off = 0) {
    TransposeSpec s;
    s.dtype = t;
    s.rows = rows;
    s.cols = cols;
    s.lda = lda;
    s.ldb = ldb;
    s.a_off = a_off;
    s.b_off = b_off;
    return s;
  }
};

// Small shapes (also the sanitizer filter: Transpose.Small*).
TEST_F(Transpose, SmallOddSizesEveryVariantAndType) {
  const std::int64_t shapes[][2] = {{1, 1},   {1, 300},  {300, 1},   {33, 17}, {17, 33},
                                    {64, 64}, {65, 129}, {130, 260}, {0, 5},   {5, 0}};
  for (gpuopt_dtype_t t : kTypes) {
    for (const auto& sh : shapes) {
      run_all(spec(t, sh[0], sh[1]));  // tight leading dimensions
      if (HasFatalFailure()) return;
      // Pitches padded to 16 bytes (TMA and the vector paths can take them).
      run_all(spec(t, sh[0], sh[1], round8(sh[0]) + 8, round8(sh[1]) + 16));
      if (HasFatalFailure()) return;
    }
  }
}

TEST_F(Transpose, SmallLeadingDimensionsLargerThanSizes) {
  for (gpuopt_dtype_t t : kTypes) {
    run_all(spec(t, 33, 17, 40, 21));
    run_all(spec(t, 70, 45, 71, 50));
    run_all(spec(t, 128, 128, 136, 131));
    if (HasFatalFailure()) return;
  }
}

TEST_F(Transpose, SmallUnalignedPointers) {
  for (gpuopt_dtype_t t : kTypes) {
    run_all(spec(t, 96, 80, 96, 80, 1, 0));  // A one element past 16 bytes
    run_all(spec(t, 96, 80, 96, 80, 0, 3));  // B three elements past
    run_all(spec(t, 130, 67, 136, 72, 5, 7));
    if (HasFatalFailure()) return;
  }
}

TEST_F(Transpose, LargeOddSizesEveryVariantAndType) {
  for (gpuopt_dtype_t t : kTypes) {
    run_all(spec(t, 1000, 777));
    run_all(spec(t, 1000, 777, 1008, 784));
    run_all(spec(t, 2048, 1536));
    run_all(spec(t, 1, 70000));
    run_all(spec(t, 70000, 1));
    if (HasFatalFailure()) return;
  }
}

TEST_F(Transpose, AutoRunsUnalignedAndPicksAVariant) {
  TransposeCase c(spec(GPUOPT_DTYPE_F32, 257, 129, 261, 133, 1, 2), rng_.split());
  ASSERT_TRUE(c.ok());
  c.upload();
  c.poison_b();
  force("auto");
  ASSERT_GPUOPT_OK(c.run(ctx_, stream_));
  sync();
  EXPECT_TRUE(c.check(ran_cublas()));
  EXPECT_NE(last_variant(), "sm90_tma");
}

TEST_F(Transpose, SmallGraphCaptureEveryVariant) {
  std::vector<Variant> vs = variants();
  vs.push_back({"auto", true, ~0u});
  for (const Variant& v : vs) {
    if (!v.available) continue;
    for (gpuopt_dtype_t t : kTypes) {
      if (!(v.dtype_mask & (1u << static_cast<unsigned>(t)))) continue;
      SCOPED_TRACE("variant " + v.name + " " + gpuopt_dtype_name(t));
      TransposeCase c(spec(t, 136, 72), rng_.split());
      ASSERT_TRUE(c.ok());
      c.upload();
      c.poison_b();
      force(v.name);
      ASSERT_GPUOPT_OK(gpuopt_graph_begin(ctx_, stream_));
      const gpuopt_status_t st = c.run(ctx_, stream_);
      gpuopt_graph_t g = nullptr;
      const gpuopt_status_t end = gpuopt_graph_end(stream_, &g);
      gput::Graph graph(g);
      ASSERT_GPUOPT_OK(st);
      ASSERT_GPUOPT_OK(end);
      sync();
      EXPECT_TRUE(c.check_untouched()) << "capturing ran the transpose";
      ASSERT_GPUOPT_OK(gpuopt_graph_launch(graph.get(), stream_));
      sync();
      EXPECT_TRUE(c.check(ran_cublas()));
    }
  }
  force("auto");
}

TEST_F(Transpose, BadOperandsAnsweredWithStatusAndArgument) {
  TransposeCase c(spec(GPUOPT_DTYPE_F32, 64, 48), rng_.split());
  ASSERT_TRUE(c.ok());
  const gpuopt_transpose_desc_t d = c.desc();
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_transpose(ctx_, stream_, &d, nullptr, c.b_ptr()));
  EXPECT_TRUE(gput::MessageNames("gpuopt_transpose", "A"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_transpose(ctx_, stream_, &d, c.a_ptr(), nullptr));
  EXPECT_TRUE(gput::MessageNames("gpuopt_transpose", "B"));
  // Misaligned to the element.
  const auto* a_odd = static_cast<const unsigned char*>(c.a_ptr()) + 2;
  EXPECT_STATUS(GPUOPT_ERROR_MISALIGNED, gpuopt_transpose(ctx_, stream_, &d, a_odd, c.b_ptr()));
  EXPECT_TRUE(gput::MessageNames("gpuopt_transpose", "A"));
  // Host memory is not device memory.
  std::vector<float> host(64 * 48);
  EXPECT_NE(GPUOPT_SUCCESS, gpuopt_transpose(ctx_, stream_, &d, host.data(), c.b_ptr()));
  EXPECT_TRUE(gput::MessageNames("gpuopt_transpose", "A"));
  // In place, and overlapping by one element.
  gput::DeviceArray<float> buf(64 * 48 * 2);
  ASSERT_TRUE(buf.ok());
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_transpose(ctx_, stream_, &d, buf.data(), buf.data()));
  EXPECT_TRUE(gput::MessageNames("gpuopt_transpose", "A"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_transpose(ctx_, stream_, &d, buf.data(), buf.data() + 64 * 48 - 1));
  EXPECT_TRUE(gput::MessageNames("gpuopt_transpose", "B"));
  ASSERT_GPUOPT_OK(gpuopt_transpose(ctx_, stream_, &d, buf.data(), buf.data() + 64 * 48));
  // A pointer range running past its allocation.
  EXPECT_NE(GPUOPT_SUCCESS,
            gpuopt_transpose(ctx_, stream_, &d, buf.data() + 64 * 48 + 1, c.b_ptr()));
  EXPECT_TRUE(gput::MessageNames("gpuopt_transpose", "A"));
  // Unsupported dtype names it.
  gpuopt_transpose_desc_t h = d;
  h.dtype = GPUOPT_DTYPE_F16;
  EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED,
                gpuopt_transpose(ctx_, stream_, &h, c.a_ptr(), c.b_ptr()));
  EXPECT_TRUE(gput::MessageNames("gpuopt_transpose", "f16"));
  sync();
}

}  // namespace
