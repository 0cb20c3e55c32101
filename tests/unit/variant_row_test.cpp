// The table-row builder (gpuopt::VariantRow, src/kernels/variant_row.hpp): its defaults, each
// step, that a built table is a compile-time constant, and table_entries.
#include "kernels/variant_row.hpp"

#include <gtest/gtest.h>

namespace {

using gpuopt::DeviceDesc;
using gpuopt::dtype_bit;
using gpuopt::ExecEnv;
using gpuopt::PlanStorage;
using gpuopt::Variant;
using Row = gpuopt::VariantRow<int>;

const char* needs_positive(const int& p, const DeviceDesc&) {
  return p > 0 ? nullptr : "needs a positive problem";
}
int twice(const int& p, const DeviceDesc&) { return 2 * p; }
gpuopt_status_t run(const int&, const ExecEnv&) { return GPUOPT_SUCCESS; }
const char* plan_step(const int&, const DeviceDesc&, int, PlanStorage*) { return nullptr; }

constexpr unsigned kF32 = dtype_bit(GPUOPT_DTYPE_F32);
constexpr const char* kShapes[] = {"small", "large"};

constexpr Variant<int> kTable[] = {
    Row("plain", "defaults only", kF32).launch(run),
    Row("full", "every step", kF32 | dtype_bit(GPUOPT_DTYPE_F64))
        .min_sm(80)
        .vendor()
        .can(needs_positive)
        .rank<7>()
        .launch(run),
    Row("sm90a", "arch-specific", kF32).sm90a().plan(plan_step).rank(twice).launch(run),
    Row("exact", "exact cc only", kF32).exact_sm(90).launch(run),
    Row("configured", "run-time configurations", kF32).configs(kShapes, 1).launch(run),
};

// The rows are constants: the table is built at compile time.
static_assert(kTable[1].meta.min_cc == 80 && kTable[1].meta.is_vendor, "built at compile time");

TEST(VariantRow, DefaultsAreAnyDeviceOwnCodeNoCheckRankZero) {
  const Variant<int>& v = kTable[0];
  EXPECT_STREQ(v.meta.name, "plain");
  EXPECT_STREQ(v.meta.technique, "defaults only");
  EXPECT_EQ(v.meta.min_cc, 0);
  EXPECT_EQ(v.meta.exact_cc, 0);
  EXPECT_FALSE(v.meta.is_vendor);
  EXPECT_EQ(v.meta.dtype_mask, kF32);
  EXPECT_EQ(v.can_implement, nullptr);
  EXPECT_EQ(v.preference, nullptr) << "choose_variant ranks a null preference 0";
  EXPECT_EQ(v.plan, nullptr);
  EXPECT_EQ(v.launch, &run);
  EXPECT_EQ(v.meta.configs.count, 0) << "no run-time configurations";
  EXPECT_EQ(v.meta.configs.names, nullptr);
}

TEST(VariantRow, ConfigsListsTheNamesAndTheOneTheRuleAlwaysPicks) {
  const gpuopt::VariantConfigs& c = kTable[4].meta.configs;
  ASSERT_EQ(c.count, 2);
  EXPECT_STREQ(c.names[0], "small");
  EXPECT_STREQ(c.names[1], "large");
  EXPECT_EQ(c.rule, 1);
  EXPECT_EQ(gpuopt::find_config(kTable[4].meta, "large"), 1);
  EXPECT_EQ(gpuopt::find_config(kTable[4].meta, "largest"), -1);
  EXPECT_EQ(gpuopt::find_config(kTable[4].meta, "larg"), -1) << "whole names only";
  EXPECT_EQ(gpuopt::find_config(kTable[0].meta, "small"), -1);
}

TEST(VariantRow, PackedChoiceKeepsVariantAndConfiguration) {
  using gpuopt::choice_config;
  using gpuopt::choice_variant;
  using gpuopt::pack_choice;
  static_assert(pack_choice(5, -1) == 5, "a variant under its own rule packs to its index");
  static_assert(pack_choice(-1, 3) == -1, "no variant: auto");
  for (int v : {0, 1, 8, 300})
    for (int c : {-1, 0, 1, 7}) {
      EXPECT_EQ(choice_variant(pack_choice(v, c)), v);
      EXPECT_EQ(choice_config(pack_choice(v, c)), c);
    }
  EXPECT_EQ(choice_variant(-1), -1);
  EXPECT_EQ(choice_config(-1), -1);
}

TEST(VariantRow, EachStepSetsItsField) {
  const DeviceDesc dev{};
  const Variant<int>& v = kTable[1];
  EXPECT_EQ(v.meta.min_cc, 80);
  EXPECT_EQ(v.meta.exact_cc, 0);
  EXPECT_TRUE(v.meta.is_vendor);
  EXPECT_EQ(v.meta.dtype_mask, kF32 | dtype_bit(GPUOPT_DTYPE_F64));
  EXPECT_EQ(v.can_implement, &needs_positive);
  ASSERT_NE(v.preference, nullptr);
  EXPECT_EQ(v.preference(3, dev), 7);
  EXPECT_EQ(v.preference(-3, dev), 7) << "a fixed rank does not depend on the problem";
  EXPECT_EQ(v.plan, nullptr);
}

TEST(VariantRow, Sm90aIsMinAndExactCc90) {
  const DeviceDesc dev{};
  const Variant<int>& v = kTable[2];
  EXPECT_EQ(v.meta.min_cc, 90);
  EXPECT_EQ(v.meta.exact_cc, 90);
  EXPECT_EQ(v.plan, &plan_step);
  EXPECT_EQ(v.can_implement, nullptr);
  EXPECT_EQ(v.preference, &twice);
  EXPECT_EQ(v.preference(5, dev), 10);
  EXPECT_EQ(kTable[3].meta.min_cc, 0) << "exact_sm leaves min_cc alone";
  EXPECT_EQ(kTable[3].meta.exact_cc, 90);
}

TEST(VariantRow, TableEntriesGivesTheFirstEntryAndTheCount) {
  int count = -1;
  const Variant<int>* first = gpuopt::table_entries(kTable, &count);
  EXPECT_EQ(first, &kTable[0]);
  EXPECT_EQ(count, 5);
}

}  // namespace
