// The dispatch rule itself (gpuopt::choose_variant) over a synthetic table, and the architecture
// rule (gpuopt::arch_reason): preference order, ties to the later entry, dtype/arch/problem
// filters, forced choices and their reasons, the trace.
#include <gtest/gtest.h>

#include <string>

#include "runtime/device.hpp"
#include "runtime/registry.hpp"

namespace {

using gpuopt::Choice;
using gpuopt::DeviceDesc;
using gpuopt::dtype_bit;
using gpuopt::synthetic_device;
using gpuopt::Variant;
using gpuopt::VariantMeta;

struct Toy {
  int size = 0;
};

const char* any_problem(const Toy&, const DeviceDesc&) { return nullptr; }
const char* small_only(const Toy& p, const DeviceDesc&) {
  return p.size > 100 ? "size above 100" : nullptr;
}
template <int N>
int pref(const Toy&, const DeviceDesc&) {
  return N;
}

constexpr unsigned kF32 = dtype_bit(GPUOPT_DTYPE_F32);
constexpr unsigned kF64 = dtype_bit(GPUOPT_DTYPE_F64);
constexpr unsigned kBoth = kF32 | kF64;

// name, technique, min_cc, exact_cc, is_vendor, dtype_mask
const Variant<Toy> kTable[] = {
    {{"low", "pref 1", 0, 0, false, kBoth}, any_problem, pref<1>, nullptr},
    {{"high_small", "pref 5, size <= 100", 0, 0, false, kBoth}, small_only, pref<5>, nullptr},
    {{"tie", "pref 5", 0, 0, false, kBoth}, any_problem, pref<5>, nullptr},
    {{"f64_only", "pref 10, f64", 0, 0, false, kF64}, any_problem, pref<10>, nullptr},
    {{"sm90a", "pref 20, exactly cc 90", 90, 90, false, kBoth}, any_problem, pref<20>, nullptr},
    {{"vendor", "pref 0", 0, 0, true, kBoth}, any_problem, pref<0>, nullptr},
};
constexpr int kCount = static_cast<int>(sizeof kTable / sizeof kTable[0]);

Choice choose(int size, gpuopt_dtype_t dtype, int cc, int forced = -1, bool trace = false) {
  return gpuopt::choose_variant(kTable, kCount, Toy{size}, dtype, synthetic_device(cc, 100), forced,
                                trace);
}

std::string name_of(const Choice& c) { return c.index < 0 ? "<none>" : kTable[c.index].meta.name; }

TEST(ChooseVariant, HighestPreferenceWinsAndTiesGoToTheLaterEntry) {
  const Choice c = choose(10, GPUOPT_DTYPE_F32, 80);
  EXPECT_EQ(name_of(c), "tie") << "high_small and tie both have preference 5; the later wins";
  EXPECT_EQ(c.status, GPUOPT_SUCCESS);
  EXPECT_TRUE(c.reason.empty()) << c.reason;
}

TEST(ChooseVariant, TieOrderIsByTablePositionNotName) {
  const Variant<Toy> ab[] = {
      {{"a", "", 0, 0, false, kBoth}, any_problem, pref<3>, nullptr},
      {{"b", "", 0, 0, false, kBoth}, any_problem, pref<3>, nullptr},
  };
  const Variant<Toy> ba[] = {ab[1], ab[0]};
  const DeviceDesc dev = synthetic_device(80, 10);
  EXPECT_EQ(gpuopt::choose_variant(ab, 2, Toy{}, GPUOPT_DTYPE_F32, dev, -1, false).index, 1);
  EXPECT_EQ(gpuopt::choose_variant(ba, 2, Toy{}, GPUOPT_DTYPE_F32, dev, -1, false).index, 1);
}

TEST(ChooseVariant, NegativePreferencesStillRank) {
  const Variant<Toy> t[] = {
      {{"worse", "", 0, 0, false, kBoth}, any_problem, pref<-5>, nullptr},
      {{"better", "", 0, 0, false, kBoth}, any_problem, pref<-1>, nullptr},
      {{"worst", "", 0, 0, false, kBoth}, any_problem, pref<-9>, nullptr},
  };
  const Choice c =
      gpuopt::choose_variant(t, 3, Toy{}, GPUOPT_DTYPE_F32, synthetic_device(80, 10), -1, false);
  EXPECT_EQ(c.index, 1);
}

TEST(ChooseVariant, CanImplementFilters) {
  EXPECT_EQ(name_of(choose(1000, GPUOPT_DTYPE_F32, 80)), "tie");
  const Variant<Toy> t[] = {
      {{"any", "", 0, 0, false, kBoth}, any_problem, pref<1>, nullptr},
      {{"small", "", 0, 0, false, kBoth}, small_only, pref<5>, nullptr},
  };
  const DeviceDesc dev = synthetic_device(80, 10);
  EXPECT_EQ(gpuopt::choose_variant(t, 2, Toy{10}, GPUOPT_DTYPE_F32, dev, -1, false).index, 1);
  EXPECT_EQ(gpuopt::choose_variant(t, 2, Toy{1000}, GPUOPT_DTYPE_F32, dev, -1, false).index, 0);
}

TEST(ChooseVariant, DtypeFilters) {
  EXPECT_EQ(name_of(choose(10, GPUOPT_DTYPE_F64, 80)), "f64_only");
  EXPECT_EQ(name_of(choose(10, GPUOPT_DTYPE_F32, 80)), "tie");
}

TEST(ChooseVariant, ArchFilters) {
  EXPECT_EQ(name_of(choose(10, GPUOPT_DTYPE_F32, 90)), "sm90a");
  EXPECT_EQ(name_of(choose(10, GPUOPT_DTYPE_F32, 89)), "tie");
  EXPECT_EQ(name_of(choose(10, GPUOPT_DTYPE_F32, 100)), "tie") << "sm_90a code is not forward";
}

TEST(ChooseVariant, ForcedTakesThatVariantEvenWhenWorse) {
  const Choice c = choose(10, GPUOPT_DTYPE_F32, 90, /*forced=*/0);
  EXPECT_EQ(name_of(c), "low");
  EXPECT_EQ(c.status, GPUOPT_SUCCESS);
  EXPECT_EQ(name_of(choose(10, GPUOPT_DTYPE_F32, 80, /*forced=*/5)), "vendor");
}

TEST(ChooseVariant, ForcedRefusalByProblemSaysWhy) {
  const Choice c = choose(1000, GPUOPT_DTYPE_F32, 80, /*forced=*/1);
  EXPECT_EQ(c.index, -1);
  EXPECT_EQ(c.status, GPUOPT_ERROR_UNSUPPORTED);
  EXPECT_NE(c.reason.find("high_small"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("size above 100"), std::string::npos) << c.reason;
}

TEST(ChooseVariant, ForcedRefusalByDtypeSaysWhy) {
  const Choice c = choose(10, GPUOPT_DTYPE_F32, 80, /*forced=*/3);
  EXPECT_EQ(c.status, GPUOPT_ERROR_UNSUPPORTED);
  EXPECT_NE(c.reason.find("f64_only"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("dtype"), std::string::npos) << c.reason;
}

TEST(ChooseVariant, ForcedRefusalByArchSaysWhy) {
  for (int cc : {80, 100}) {
    const Choice c = choose(10, GPUOPT_DTYPE_F32, cc, /*forced=*/4);
    EXPECT_EQ(c.status, GPUOPT_ERROR_UNSUPPORTED) << "cc " << cc;
    EXPECT_NE(c.reason.find("sm90a"), std::string::npos) << c.reason;
    EXPECT_GT(c.reason.size(), std::string("forced variant sm90a: ").size()) << c.reason;
  }
}

TEST(ChooseVariant, NothingCanRunIsUnsupportedWithReason) {
  const Choice c = choose(10, GPUOPT_DTYPE_F16, 90);
  EXPECT_EQ(c.index, -1);
  EXPECT_EQ(c.status, GPUOPT_ERROR_UNSUPPORTED);
  EXPECT_NE(c.reason.find("no variant"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("dtype"), std::string::npos) << c.reason;
}

TEST(ChooseVariant, EmptyTable) {
  const Choice c = gpuopt::choose_variant<Toy>(nullptr, 0, Toy{}, GPUOPT_DTYPE_F32,
                                               synthetic_device(90, 132), -1, true);
  EXPECT_EQ(c.index, -1);
  EXPECT_EQ(c.status, GPUOPT_ERROR_UNSUPPORTED);
  EXPECT_FALSE(c.reason.empty());
}

TEST(ChooseVariant, TraceOnlyWhenAsked) {
  const Choice with = choose(1000, GPUOPT_DTYPE_F32, 80, -1, /*trace=*/true);
  ASSERT_FALSE(with.trace.empty());
  for (const auto& v : kTable) {
    EXPECT_NE(with.trace.find(v.meta.name), std::string::npos) << v.meta.name << ": " << with.trace;
  }
  EXPECT_NE(with.trace.find("size above 100"), std::string::npos) << with.trace;
  const Choice without = choose(1000, GPUOPT_DTYPE_F32, 80, -1, /*trace=*/false);
  EXPECT_TRUE(without.trace.empty()) << without.trace;
  EXPECT_EQ(with.index, without.index);
}

TEST(ChooseVariant, NullCallbacksMeanCanImplementWithPreferenceZero) {
  const Variant<Toy> t[] = {
      {{"plain", "", 0, 0, false, kBoth}, nullptr, nullptr, nullptr},
      {{"negative", "", 0, 0, false, kBoth}, any_problem, pref<-1>, nullptr},
  };
  const Choice c =
      gpuopt::choose_variant(t, 2, Toy{}, GPUOPT_DTYPE_F32, synthetic_device(80, 10), -1, false);
  EXPECT_EQ(c.index, 0);
}

// can_implement that counts its calls (the per-call path should skip the ones that cannot win).
int g_costly_calls = 0;
const char* costly_any(const Toy&, const DeviceDesc&) {
  ++g_costly_calls;
  return nullptr;
}

TEST(ChooseVariant, CanImplementBelowTheWinnerIsNotCalled) {
  const Variant<Toy> t[] = {
      {{"costly_low", "", 0, 0, false, kBoth}, costly_any, pref<80>, nullptr},
      {{"vendor_high", "", 0, 0, false, kBoth}, small_only, pref<100>, nullptr},
  };
  g_costly_calls = 0;
  Choice c =
      gpuopt::choose_variant(t, 2, Toy{10}, GPUOPT_DTYPE_F32, synthetic_device(90, 132), -1, false);
  EXPECT_EQ(c.index, 1);
  EXPECT_EQ(g_costly_calls, 0) << "the preferred variant took the problem";
  // The preferred one refuses: the next in preference order is asked.
  c = gpuopt::choose_variant(t, 2, Toy{1000}, GPUOPT_DTYPE_F32, synthetic_device(90, 132), -1,
                             false);
  EXPECT_EQ(c.index, 0);
  EXPECT_EQ(g_costly_calls, 1);
  // With a trace every entry is examined, and the choice is the same.
  const Choice traced =
      gpuopt::choose_variant(t, 2, Toy{10}, GPUOPT_DTYPE_F32, synthetic_device(90, 132), -1, true);
  EXPECT_EQ(traced.index, 1);
  EXPECT_EQ(g_costly_calls, 2);
}

TEST(ChooseVariant, RankedPathAgreesWithTheTracedRule) {
  for (int size : {1, 100, 101, 5000})
    for (gpuopt_dtype_t dt : {GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F64})
      for (int cc : {75, 80, 90}) {
        const Choice fast = choose(size, dt, cc, -1, false);
        const Choice full = choose(size, dt, cc, -1, true);
        EXPECT_EQ(fast.index, full.index) << size << " " << dt << " " << cc << ": " << full.trace;
        EXPECT_EQ(fast.status, full.status);
        EXPECT_EQ(fast.reason, full.reason);
      }
}

TEST(SyntheticDevice, CarriesCcAndSmCount) {
  for (int cc : {75, 80, 86, 89, 90}) {
    const DeviceDesc d = synthetic_device(cc, 42);
    EXPECT_EQ(d.cc, cc);
    EXPECT_EQ(d.sm_count, 42);
  }
}

TEST(ArchReason, ExactCcRunsOnlyThere) {
  const VariantMeta sm90a{"sm90a", "", 90, 90, false, kBoth};
  EXPECT_TRUE(gpuopt::arch_reason(sm90a, synthetic_device(90, 132)).empty());
  EXPECT_FALSE(gpuopt::arch_reason(sm90a, synthetic_device(80, 108)).empty());
  EXPECT_FALSE(gpuopt::arch_reason(sm90a, synthetic_device(89, 128)).empty());
  EXPECT_FALSE(gpuopt::arch_reason(sm90a, synthetic_device(100, 148)).empty())
      << "arch-specific code is not forward-compatible";
}

TEST(ArchReason, MinCcIsALowerBound) {
  const VariantMeta sm80{"sm80", "", 80, 0, false, kBoth};
  EXPECT_FALSE(gpuopt::arch_reason(sm80, synthetic_device(75, 40)).empty());
  for (int cc : {80, 86, 89, 90, 100, 120}) {
    EXPECT_TRUE(gpuopt::arch_reason(sm80, synthetic_device(cc, 100)).empty()) << "cc " << cc;
  }
  const VariantMeta any{"any", "", 0, 0, false, kBoth};
  for (int cc : {75, 80, 86, 89, 90, 100}) {
    EXPECT_TRUE(gpuopt::arch_reason(any, synthetic_device(cc, 100)).empty()) << "cc " << cc;
  }
}

TEST(ArchReason, ReasonNamesTheCc) {
  const VariantMeta sm80{"sm80", "", 80, 0, false, kBoth};
  const std::string r = gpuopt::arch_reason(sm80, synthetic_device(75, 40));
  const bool names_cc = r.find("75") != std::string::npos || r.find("7.5") != std::string::npos ||
                        r.find("80") != std::string::npos || r.find("8.0") != std::string::npos;
  EXPECT_TRUE(names_cc) << "the reason should say which cc is needed or found: " << r;
}

}  // namespace
