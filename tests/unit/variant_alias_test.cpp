// Retired variant names (runtime/variant_alias.hpp): every alias names a rung that exists under
// its current name, is accepted by find_variant, gpuopt_context_set_variant and
// GPUOPT_VARIANT_<OP> (device-less contexts: no GPU needed), and the context then answers the
// current name.
#include "runtime/variant_alias.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "gpuopt.h"
#include "runtime/deviceless.hpp"
#include "runtime/registry.hpp"
#include "test_support.hpp"

namespace {

// The op whose table op_name is `name`, or nullptr.
const gpuopt::OpTable* table_named(const char* name, gpuopt_op_t* op) {
  for (int i = 0; i < gpuopt::kOpCount; ++i) {
    const gpuopt::OpTable* t = gpuopt::op_table(static_cast<gpuopt_op_t>(i));
    if (t && std::string(t->op_name) == name) {
      *op = static_cast<gpuopt_op_t>(i);
      return t;
    }
  }
  return nullptr;
}

class VariantAliases : public ::testing::Test {
 protected:
  void SetUp() override {
    const gpuopt_device_info_t devices[] = {gpuopt::deviceless_h200(), gpuopt::deviceless_a100()};
    gpuopt::deviceless_enable(devices, 2);
    aliases_ = gpuopt::variant_aliases(&count_);
  }
  void TearDown() override { gpuopt::deviceless_disable(); }

  const gpuopt::VariantAlias* aliases_ = nullptr;
  int count_ = 0;
};

TEST_F(VariantAliases, EveryAliasNamesAnExistingRungAndNoCurrentName) {
  ASSERT_GT(count_, 0);
  for (int i = 0; i < count_; ++i) {
    const gpuopt::VariantAlias& a = aliases_[i];
    gpuopt_op_t op{};
    const gpuopt::OpTable* t = table_named(a.op_name, &op);
    ASSERT_NE(t, nullptr) << a.op_name << " is no op";
    bool current = false, retired = false;
    for (int v = 0; v < t->count; ++v) {
      current = current || std::string(t->meta(v).name) == a.name;
      retired = retired || std::string(t->meta(v).name) == a.old_name;
    }
    EXPECT_TRUE(current) << a.op_name << ": " << a.name << " is no rung";
    EXPECT_FALSE(retired) << a.op_name << ": " << a.old_name << " is a rung's name again";
    EXPECT_EQ(gpuopt::find_variant(*t, a.old_name), gpuopt::find_variant(*t, a.name));
  }
}

TEST_F(VariantAliases, SetVariantAcceptsTheOldNameAndAnswersTheNewOne) {
  gpuopt_context_t ctx = nullptr;
  ASSERT_EQ(gpuopt_context_create(0, &ctx), GPUOPT_SUCCESS) << unit::last_message();
  for (int i = 0; i < count_; ++i) {
    gpuopt_op_t op{};
    ASSERT_NE(table_named(aliases_[i].op_name, &op), nullptr);
    EXPECT_EQ(gpuopt_context_set_variant(ctx, op, aliases_[i].old_name), GPUOPT_SUCCESS)
        << unit::last_message();
    const char* name = nullptr;
    ASSERT_EQ(gpuopt_context_get_variant(ctx, op, &name), GPUOPT_SUCCESS);
    EXPECT_STREQ(name, aliases_[i].name);
    EXPECT_EQ(gpuopt_context_set_variant(ctx, op, "auto"), GPUOPT_SUCCESS);
  }
  EXPECT_EQ(gpuopt_context_destroy(ctx), GPUOPT_SUCCESS);
}

TEST_F(VariantAliases, EnvironmentAcceptsTheOldName) {
  for (int i = 0; i < count_; ++i) {
    gpuopt_op_t op{};
    const gpuopt::OpTable* t = table_named(aliases_[i].op_name, &op);
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(setenv(t->env_name, aliases_[i].old_name, 1), 0);
    gpuopt_context_t ctx = nullptr;
    const gpuopt_status_t st = gpuopt_context_create(0, &ctx);
    unsetenv(t->env_name);
    ASSERT_EQ(st, GPUOPT_SUCCESS) << unit::last_message();
    const char* name = nullptr;
    ASSERT_EQ(gpuopt_context_get_variant(ctx, op, &name), GPUOPT_SUCCESS);
    EXPECT_STREQ(name, aliases_[i].name);
    EXPECT_EQ(gpuopt_context_destroy(ctx), GPUOPT_SUCCESS);
  }
}

TEST_F(VariantAliases, UnknownNamesStayUnknown) {
  gpuopt_op_t op{};
  const gpuopt::OpTable* t = table_named("gdn", &op);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(gpuopt::find_variant(*t, "no_such_rung"), -1);
  EXPECT_STREQ(gpuopt::current_variant_name("gemm", "fused"), "fused");  // aliases are per op
}

}  // namespace
