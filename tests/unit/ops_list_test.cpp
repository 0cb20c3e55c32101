// The list of ops (src/ops/ops_list.cpp): every gpuopt_op_t value has its table, named as the
// public API and the environment variable name it, in the static archive the unit tests link
// (the same objects as gpuopt_static: an op whose table the linker dropped would show here).
#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>

#include "runtime/registry.hpp"

namespace {

TEST(OpsList, EveryOpHasItsTable) {
  struct Row {
    gpuopt_op_t op;
    const char* name;
  };
  const Row rows[] = {{GPUOPT_OP_AXPY, "axpy"},       {GPUOPT_OP_GEMM, "gemm"},
                      {GPUOPT_OP_REDUCE, "reduce"},   {GPUOPT_OP_SEGMENTED_SORT, "segmented_sort"},
                      {GPUOPT_OP_STENCIL, "stencil"}, {GPUOPT_OP_TRANSPOSE, "transpose"},
                      {GPUOPT_OP_GDN, "gdn"}};
  ASSERT_EQ(sizeof rows / sizeof rows[0], static_cast<std::size_t>(gpuopt::kOpCount));
  std::set<std::string> names;
  for (const Row& row : rows) {
    const gpuopt::OpTable* t = gpuopt::op_table(row.op);
    ASSERT_NE(t, nullptr) << row.name;
    EXPECT_STREQ(t->op_name, row.name);
    std::string env = "GPUOPT_VARIANT_";
    for (const char* c = t->op_name; *c; ++c)
      env += static_cast<char>(std::toupper(static_cast<unsigned char>(*c)));
    EXPECT_EQ(env, t->env_name);
    EXPECT_GT(t->count, 0) << t->op_name;
    std::set<std::string> variants;
    for (int i = 0; i < t->count; ++i) {
      const gpuopt::VariantMeta& m = t->meta(i);
      EXPECT_TRUE(variants.insert(m.name).second) << t->op_name << ": " << m.name << " twice";
      EXPECT_EQ(gpuopt::find_variant(*t, m.name), i) << t->op_name << ": " << m.name;
    }
    EXPECT_EQ(gpuopt::find_variant(*t, "no_such_variant"), -1);
    EXPECT_EQ(gpuopt::find_variant(*t, nullptr), -1);
    EXPECT_TRUE(names.insert(t->op_name).second) << t->op_name << " listed twice";
  }
}

TEST(OpsList, UnknownOpsHaveNone) {
  EXPECT_EQ(gpuopt::op_table(static_cast<gpuopt_op_t>(gpuopt::kOpCount)), nullptr);
  EXPECT_EQ(gpuopt::op_table(static_cast<gpuopt_op_t>(-1)), nullptr);
}

}  // namespace
