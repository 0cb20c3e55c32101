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
  EXPECT_EQ(count, 4);
}

}  // namespace
