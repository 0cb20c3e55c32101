// Every axpy variant, forced by name, against the CPU reference: odd sizes, strides,
// misalignment, alpha = 0, x == y, NaN/Inf; auto dispatch and its introspection; forcing through
// GPUOPT_VARIANT_AXPY.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <string>

#include "axpy_harness.hpp"
#include "gpu_fixture.hpp"

namespace {

using gput::AxpyHarness;
using gput::AxpyLayout;

const std::int64_t kOddSizes[] = {0, 1, 3, 17, 1000003, (1 << 20) + 5};

template <class T>
class AxpyVariants : public gput::GpuTest {
 protected:
  // Runs layout l with the currently forced (or auto) variant: success and a correct result.
  void expect_correct(const AxpyLayout& l, double alpha) {
    SCOPED_TRACE(gput::describe(l));
    AxpyHarness<T> h(l, alpha, rng_);
    ASSERT_GPUOPT_OK(h.run(ctx_, stream_));
    sync();
    EXPECT_TRUE(h.check_result());
  }

  // Runs layout l with the currently forced variant: UNSUPPORTED, the reason given, y untouched.
  void expect_refused(const AxpyLayout& l, std::initializer_list<const char*> why_words) {
    SCOPED_TRACE(gput::describe(l));
    AxpyHarness<T> h(l, rng_.alpha(), rng_);
    ASSERT_STATUS(GPUOPT_ERROR_UNSUPPORTED, h.run(ctx_, stream_));
    const std::string msg = gput::last_message();
    EXPECT_NE(msg.find("gpuopt_axpy"), std::string::npos) << msg;
    bool says_why = false;
    for (const char* w : why_words) says_why = says_why || msg.find(w) != std::string::npos;
    EXPECT_TRUE(says_why) << "the reason does not say why: " << msg;
    sync();
    EXPECT_TRUE(h.check_unchanged());
  }
};

// Default type names: gtest_discover_tests turns them into "AxpyVariants.Test<float>".
using Dtypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(AxpyVariants, Dtypes);

TYPED_TEST(AxpyVariants, EveryVariantOddSizes) {
  this->for_each_variant([&](const std::string& name) {
    for (std::int64_t n : kOddSizes) {
      AxpyLayout l;
      l.n = n;
      this->expect_correct(l, this->rng_.alpha());
      if (n > 0) {
        EXPECT_EQ(this->last_variant(), name);
      }
    }
  });
}

TYPED_TEST(AxpyVariants, EveryVariantStrided) {
  this->for_each_variant([&](const std::string& name) {
    for (auto inc : {std::pair<int, int>{2, 1}, {1, 3}, {3, 2}}) {
      AxpyLayout l;
      l.n = 100003;
      l.incx = inc.first;
      l.incy = inc.second;
      if (this->needs_contiguous_aligned(name)) {
        this->expect_refused(l, {"inc", "stride", "contiguous"});
      } else {
        this->expect_correct(l, this->rng_.alpha());
      }
    }
  });
}

TYPED_TEST(AxpyVariants, AutoStridedRunsNaive) {
  AxpyLayout l;
  l.n = 1000003;
  l.incx = 2;
  l.incy = 3;
  this->expect_correct(l, this->rng_.alpha());
  EXPECT_EQ(this->last_variant(), "naive");
}

TYPED_TEST(AxpyVariants, MisalignedByOneElement) {
  const AxpyLayout both = [] {
    AxpyLayout l;
    l.n = 1000003;
    l.x_offset = 1;
    l.y_offset = 1;
    return l;
  }();
  AxpyLayout only_y = both;
  only_y.x_offset = 0;
  AxpyLayout only_x = both;
  only_x.y_offset = 0;

  for (const AxpyLayout& l : {both, only_x, only_y}) {
    this->expect_correct(l, this->rng_.alpha());
    EXPECT_EQ(this->last_variant(), "naive") << gput::describe(l);
  }
  this->for_each_variant([&](const std::string& name) {
    for (const AxpyLayout& l : {both, only_x, only_y}) {
      if (this->needs_contiguous_aligned(name)) {
        this->expect_refused(l, {"align"});
      } else {
        this->expect_correct(l, this->rng_.alpha());
      }
    }
  });
}

TYPED_TEST(AxpyVariants, AlphaZeroLeavesYUnchanged) {
  this->for_each_variant([&](const std::string&) {
    AxpyLayout l;
    l.n = 100003;
    AxpyHarness<TypeParam> h(l, 0.0, this->rng_);
    ASSERT_GPUOPT_OK(h.run(this->ctx_, this->stream_));
    this->sync();
    EXPECT_TRUE(h.check_unchanged());
  });
}

TYPED_TEST(AxpyVariants, XAliasesY) {
  this->for_each_variant([&](const std::string&) {
    for (std::int64_t n : {std::int64_t{17}, std::int64_t{1000003}}) {
      AxpyLayout l;
      l.n = n;
      l.alias = true;
      this->expect_correct(l, this->rng_.alpha());
    }
  });
}

TYPED_TEST(AxpyVariants, NanAndInfPropagate) {
  using T = TypeParam;
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  // (x, y) pairs; with alpha = 2: NaN, Inf, -Inf, NaN, Inf, NaN (Inf - Inf), -Inf.
  const T xs[] = {nan, inf, -inf, 1, 1, inf, -inf};
  const T ys[] = {1, 1, 1, nan, inf, -inf, 5};
  this->for_each_variant([&](const std::string&) {
    AxpyLayout l;
    l.n = 1031;
    AxpyHarness<T> h(l, 2.0, this->rng_);
    // Specials at the start, in the middle (inside vector loads) and in the scalar tail.
    for (std::int64_t base : {std::int64_t{0}, std::int64_t{500}, l.n - 7}) {
      for (int k = 0; k < 7; ++k) {
        h.x_at(base + k) = xs[k];
        h.y_at(base + k) = ys[k];
      }
    }
    h.upload();
    ASSERT_GPUOPT_OK(h.run(this->ctx_, this->stream_));
    this->sync();
    EXPECT_TRUE(h.check_result());
  });
}

TYPED_TEST(AxpyVariants, AutoPicksVec4BlocktileAndReportsIt) {
  EXPECT_EQ(this->last_variant(), "<none>") << "no axpy ran on this context yet";
  AxpyLayout l;
  l.n = (1 << 20) + 5;
  this->expect_correct(l, this->rng_.alpha());
  EXPECT_EQ(this->last_variant(), "vec4_blocktile");
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(this->ctx_, GPUOPT_OP_AXPY, "naive"));
  this->expect_correct(l, this->rng_.alpha());
  EXPECT_EQ(this->last_variant(), "naive");
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(this->ctx_, GPUOPT_OP_AXPY, "auto"));
  this->expect_correct(l, this->rng_.alpha());
  EXPECT_EQ(this->last_variant(), "vec4_blocktile");
}

class AxpyEnv : public gput::GpuTest {};

TEST_F(AxpyEnv, VariantForcedThroughEnvironment) {
  ASSERT_EQ(setenv("GPUOPT_VARIANT_AXPY", "naive", 1), 0);
  gpuopt_context_t raw = nullptr;
  const gpuopt_status_t st = gpuopt_context_create(0, &raw);
  unsetenv("GPUOPT_VARIANT_AXPY");
  ASSERT_STATUS(GPUOPT_SUCCESS, st);
  gput::Context ctx(raw);
  gput::Stream stream = gput::make_stream(ctx.get());
  ASSERT_TRUE(stream);

  const char* forced = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_context_get_variant(ctx.get(), GPUOPT_OP_AXPY, &forced));
  ASSERT_NE(forced, nullptr);
  EXPECT_STREQ(forced, "naive");
  EXPECT_EQ(forced_variant(), "auto") << "a context created before the variable is unaffected";

  AxpyLayout l;
  l.n = 65541;
  AxpyHarness<float> h(l, rng_.alpha(), rng_);
  ASSERT_GPUOPT_OK(h.run(ctx.get(), stream.get()));
  ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(stream.get()));
  EXPECT_TRUE(h.check_result());
  const char* last = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_last_variant(ctx.get(), GPUOPT_OP_AXPY, &last));
  ASSERT_NE(last, nullptr);
  EXPECT_STREQ(last, "naive");
}

}  // namespace
