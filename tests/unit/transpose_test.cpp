// Host-side transpose: descriptor validation (struct_size, dtype, sizes, leading dimensions,
// extents), the overlap check, the entry point's answers without a device, and dispatch
// decisions for synthetic devices through the real variant table (fake pointer values: dispatch
// only looks at them).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "api/transpose_desc.hpp"
#include "runtime/device.hpp"
#include "runtime/registry.hpp"
#include "test_support.hpp"

namespace {

using gpuopt::Choice;
using gpuopt::TransposeProblem;

constexpr const char* kFn = "gpuopt_transpose";

gpuopt_transpose_desc_t good() {
  gpuopt_transpose_desc_t d{};
  d.struct_size = sizeof d;
  d.dtype = GPUOPT_DTYPE_F32;
  d.rows = 100;
  d.cols = 60;
  d.lda = 100;
  d.ldb = 60;
  return d;
}

// read_desc answers `want` and the message names the argument.
void expect_refused(const gpuopt_transpose_desc_t& d, gpuopt_status_t want, const char* arg) {
  TransposeProblem p;
  EXPECT_EQ(gpuopt::transpose_read_desc(kFn, &d, &p), want);
  const std::string msg = unit::last_message();
  EXPECT_NE(msg.find(kFn), std::string::npos) << msg;
  EXPECT_TRUE(unit::has_word(msg, arg)) << "'" << arg << "' not in: " << msg;
}

TEST(TransposeDesc, AcceptsGoodAndCopiesFields) {
  const gpuopt_transpose_desc_t d = good();
  TransposeProblem p;
  ASSERT_EQ(gpuopt::transpose_read_desc(kFn, &d, &p), GPUOPT_SUCCESS);
  EXPECT_EQ(p.rows, 100);
  EXPECT_EQ(p.cols, 60);
  EXPECT_EQ(p.lda, 100);
  EXPECT_EQ(p.ldb, 60);
  EXPECT_EQ(p.dtype, GPUOPT_DTYPE_F32);
}

TEST(TransposeDesc, NullAndStructSize) {
  TransposeProblem p;
  EXPECT_EQ(gpuopt::transpose_read_desc(kFn, nullptr, &p), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "desc"));
  gpuopt_transpose_desc_t d = good();
  d.struct_size = 8;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "struct_size");
  d.struct_size = 0;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "struct_size");
}

TEST(TransposeDesc, DtypeUnsupportedNamesIt) {
  gpuopt_transpose_desc_t d = good();
  for (gpuopt_dtype_t t :
       {GPUOPT_DTYPE_F16, GPUOPT_DTYPE_I32, GPUOPT_DTYPE_I64, GPUOPT_DTYPE_U32, GPUOPT_DTYPE_U64}) {
    d.dtype = t;
    expect_refused(d, GPUOPT_ERROR_UNSUPPORTED, gpuopt_dtype_name(t));
  }
  d.dtype = static_cast<gpuopt_dtype_t>(77);
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "dtype");
  for (gpuopt_dtype_t t : {GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F64, GPUOPT_DTYPE_BF16}) {
    d.dtype = t;
    TransposeProblem p;
    EXPECT_EQ(gpuopt::transpose_read_desc(kFn, &d, &p), GPUOPT_SUCCESS);
  }
}

TEST(TransposeDesc, SizesAndLeadingDimensions) {
  gpuopt_transpose_desc_t d = good();
  d.rows = -1;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "rows");
  d = good();
  d.cols = -5;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "cols");
  d = good();
  d.lda = 99;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "lda");
  d = good();
  d.ldb = 59;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "ldb");
  // Empty problems still need leading dimensions >= 1.
  d = good();
  d.rows = 0;
  d.lda = 0;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "lda");
  d.lda = 1;
  TransposeProblem p;
  EXPECT_EQ(gpuopt::transpose_read_desc(kFn, &d, &p), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt::transpose_a_span(p), 0u);
  EXPECT_EQ(gpuopt::transpose_b_span(p), 0u);
  // Extents past the address space.
  d = good();
  d.lda = INT64_MAX / 2;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "lda");
  d = good();
  d.ldb = INT64_MAX / 4;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "ldb");
}

TEST(TransposeDesc, SpansAndOverlap) {
  const gpuopt_transpose_desc_t d = good();
  TransposeProblem p;
  ASSERT_EQ(gpuopt::transpose_read_desc(kFn, &d, &p), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt::transpose_a_span(p), std::size_t{100 * 60 * 4});
  p.lda = 128;
  EXPECT_EQ(gpuopt::transpose_a_span(p), std::size_t{(59 * 128 + 100) * 4});
  EXPECT_EQ(gpuopt::transpose_b_span(p), std::size_t{(99 * 60 + 60) * 4});
  const std::uintptr_t base = 0x7f0000100000;
  p.A = reinterpret_cast<const void*>(base);
  p.B = reinterpret_cast<void*>(base + gpuopt::transpose_a_span(p));
  EXPECT_EQ(gpuopt::transpose_check_overlap(kFn, p), GPUOPT_SUCCESS);
  p.B = reinterpret_cast<void*>(base + gpuopt::transpose_a_span(p) - 4);
  EXPECT_EQ(gpuopt::transpose_check_overlap(kFn, p), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "A"));
  EXPECT_TRUE(unit::has_word(unit::last_message(), "B"));
  p.B = reinterpret_cast<void*>(base - gpuopt::transpose_b_span(p));
  EXPECT_EQ(gpuopt::transpose_check_overlap(kFn, p), GPUOPT_SUCCESS);
  p.B = reinterpret_cast<void*>(base);
  EXPECT_EQ(gpuopt::transpose_check_overlap(kFn, p), GPUOPT_ERROR_INVALID_ARGUMENT);
}

TEST(TransposeEntry, NoDeviceOrNullContextAnswersCleanly) {
  const gpuopt_transpose_desc_t d = good();
  int x = 0;
  EXPECT_EQ(gpuopt_transpose(nullptr, nullptr, &d, &x, &x), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "ctx"));
}

// ---- dispatch ------------------------------------------------------------------------------

const gpuopt::Variant<TransposeProblem>* table(int* count) {
  return gpuopt::transpose_variants(count);
}

int index_of(const char* name) {
  int count = 0;
  const auto* t = table(&count);
  for (int i = 0; i < count; ++i)
    if (std::string(t[i].meta.name) == name) return i;
  return -1;
}

std::string name_of(const Choice& c) {
  int count = 0;
  const auto* t = table(&count);
  return c.index < 0 || c.index >= count ? "<none>" : t[c.index].meta.name;
}

TransposeProblem problem(gpuopt_dtype_t t, std::int64_t rows, std::int64_t cols,
                         std::uintptr_t a_off = 0) {
  TransposeProblem p;
  p.dtype = t;
  p.rows = rows;
  p.cols = cols;
  p.lda = rows;
  p.ldb = cols;
  p.A = reinterpret_cast<const void*>(0x7f0000100000 + a_off);
  p.B = reinterpret_cast<void*>(0x7f4000000000);
  return p;
}

Choice choose(const TransposeProblem& p, int cc, int forced = -1) {
  int count = 0;
  const auto* t = table(&count);
  return gpuopt::choose_variant(t, count, p, p.dtype, gpuopt::synthetic_device(cc, 132), forced,
                                /*want_trace=*/true);
}

TEST(TransposeTable, NamesOrderAndMeta) {
  int count = 0;
  const auto* t = table(&count);
  const char* const names[] = {"naive",          "smem_padded",   "smem_swizzled",    "sm90_tma",
                               "sm90_tma_store", "sm80_vec_tile", "sm90_tma_onetile", "cublas"};
  ASSERT_EQ(count, 8);
  for (int i = 0; i < count; ++i) EXPECT_STREQ(t[i].meta.name, names[i]);
  EXPECT_TRUE(t[7].meta.is_vendor);
  EXPECT_EQ(t[3].meta.exact_cc, 90);
  EXPECT_EQ(t[4].meta.exact_cc, 90);
  EXPECT_EQ(t[4].meta.dtype_mask, gpuopt::dtype_bit(GPUOPT_DTYPE_F32));
  EXPECT_EQ(t[5].meta.exact_cc, 0);
  EXPECT_EQ(t[6].meta.exact_cc, 90);
  EXPECT_EQ(t[7].meta.dtype_mask & gpuopt::dtype_bit(GPUOPT_DTYPE_BF16), 0u);
  const gpuopt::OpTable* op = gpuopt::op_table(GPUOPT_OP_TRANSPOSE);
  ASSERT_NE(op, nullptr);
  EXPECT_STREQ(op->op_name, "transpose");
  EXPECT_STREQ(op->env_name, "GPUOPT_VARIANT_TRANSPOSE");
  EXPECT_EQ(op->count, count);
}

TEST(TransposeDispatch, EveryCcHasAFastRungForEveryType) {
  for (int cc : {75, 80, 86, 89, 90}) {
    for (gpuopt_dtype_t t : {GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F64, GPUOPT_DTYPE_BF16}) {
      const Choice c = choose(problem(t, 16384, 16384), cc);
      const std::string n = name_of(c);
      EXPECT_TRUE(n != "naive" && n != "smem_padded" && n != "<none>") << cc << ": " << c.trace;
      if (cc != 90) {
        EXPECT_NE(n, "sm90_tma") << c.trace;
      }
    }
  }
}

TEST(TransposeDispatch, MeasuredRuleVecTileF32Bf16SwizzledF64CublasNeverAuto) {
  for (int cc : {75, 80, 86, 89, 90}) {
    const char* vec = cc >= 80 ? "sm80_vec_tile" : "smem_swizzled";
    const Choice d = choose(problem(GPUOPT_DTYPE_F64, 16384, 8192), cc);
    EXPECT_EQ(name_of(d), "smem_swizzled") << cc << ": " << d.trace;
    const Choice h = choose(problem(GPUOPT_DTYPE_BF16, 32768, 16384), cc);
    EXPECT_EQ(name_of(h), vec) << cc << ": " << h.trace;
    const Choice f = choose(problem(GPUOPT_DTYPE_F32, 16384, 16384), cc);
    EXPECT_EQ(name_of(f), vec) << cc << ": " << f.trace;
    // Operands off pair alignment: vec_tile would copy element by element.
    const Choice u = choose(problem(GPUOPT_DTYPE_F32, 16384, 16384, 4), cc);
    EXPECT_EQ(name_of(u), "smem_swizzled") << cc << ": " << u.trace;
  }
}

TEST(TransposeDispatch, UnalignedNeverPicksTma) {
  const Choice c = choose(problem(GPUOPT_DTYPE_F32, 4096, 4096, 4), 90);
  EXPECT_NE(name_of(c), "sm90_tma") << c.trace;
  EXPECT_GE(c.index, 0);
  const Choice forced = choose(problem(GPUOPT_DTYPE_F32, 4096, 4096, 4), 90, index_of("sm90_tma"));
  EXPECT_EQ(forced.index, -1);
  EXPECT_NE(forced.reason.find("16 bytes"), std::string::npos) << forced.reason;
  TransposeProblem odd = problem(GPUOPT_DTYPE_F32, 4095, 4096);  // lda * 4 not a multiple of 16
  const Choice c2 = choose(odd, 90, index_of("sm90_tma"));
  EXPECT_EQ(c2.index, -1);
  TransposeProblem narrow = problem(GPUOPT_DTYPE_F32, 4096, 4098);  // cols not a multiple of 4
  narrow.ldb = 4100;
  const Choice c3 = choose(narrow, 90, index_of("sm90_tma"));
  EXPECT_EQ(c3.index, -1);
}

TEST(TransposeDispatch, OneTileTmaHasTheTmaConditionsVecTileNeedsSm80) {
  const Choice u =
      choose(problem(GPUOPT_DTYPE_F32, 4096, 4096, 4), 90, index_of("sm90_tma_onetile"));
  EXPECT_EQ(u.index, -1);
  EXPECT_NE(u.reason.find("16 bytes"), std::string::npos) << u.reason;
  EXPECT_EQ(choose(problem(GPUOPT_DTYPE_F32, 4096, 4096), 80, index_of("sm90_tma_onetile")).index,
            -1);
  // sm80_vec_tile takes any alignment (element path) on cc >= 8.0.
  const Choice v = choose(problem(GPUOPT_DTYPE_BF16, 4095, 33, 2), 80, index_of("sm80_vec_tile"));
  EXPECT_EQ(name_of(v), "sm80_vec_tile") << v.trace;
  EXPECT_EQ(choose(problem(GPUOPT_DTYPE_F32, 64, 64), 75, index_of("sm80_vec_tile")).index, -1);
}

TEST(TransposeDispatch, CublasRefusesBf16) {
  const Choice c = choose(problem(GPUOPT_DTYPE_BF16, 64, 64), 90, index_of("cublas"));
  EXPECT_EQ(c.index, -1);
  EXPECT_EQ(c.status, GPUOPT_ERROR_UNSUPPORTED);
}

}  // namespace
