// The plan a variant's check hands to its launch (Variant::plan, PlanStorage, Choice::planned):
// the dispatch rule over a synthetic table whose plan steps count their calls, so that every path
// (per call, forced, traced, nothing accepts) is seen to plan the chosen variant exactly once
// into the caller's storage; and the real GEMM table's sm90 rung, which plans instead of checking.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "kernels/gemm/gemm.hpp"
#include "runtime/device.hpp"
#include "runtime/registry.hpp"

namespace {

using gpuopt::Choice;
using gpuopt::DeviceDesc;
using gpuopt::PlanStorage;
using gpuopt::synthetic_device;
using gpuopt::Variant;

struct Toy {
  int size = 0;
};

constexpr unsigned kF32 = gpuopt::dtype_bit(GPUOPT_DTYPE_F32);

template <int N>
int pref(const Toy&, const DeviceDesc&) {
  return N;
}

// Plan steps that record which one wrote the storage last and how often each ran.
int g_calls[2];
template <int Id, int MaxSize>
const char* plan_toy(const Toy& p, const DeviceDesc&, int, PlanStorage* s) {
  ++g_calls[Id];
  std::memset(s->bytes, 0, sizeof s->bytes);
  s->bytes[0] = static_cast<unsigned char>(Id + 1);
  return p.size > MaxSize ? "too big for this plan" : nullptr;
}

const char* small_only(const Toy& p, const DeviceDesc&) {
  return p.size > 100 ? "size above 100" : nullptr;
}

// name, technique, min_cc, exact_cc, is_vendor, dtype_mask; can_implement, preference, launch,
// plan.
const Variant<Toy> kTable[] = {
    {{"checked", "", 0, 0, false, kF32}, small_only, pref<50>, nullptr},
    {{"planned_a", "", 0, 0, false, kF32}, nullptr, pref<10>, nullptr, plan_toy<0, 1000>},
    {{"planned_b", "", 0, 0, false, kF32}, nullptr, pref<5>, nullptr, plan_toy<1, 100000>},
};
constexpr int kCount = 3;

struct Outcome {
  Choice c;
  int owner = 0;  // which plan step wrote the storage last (1: a, 2: b)
};

Outcome choose(int size, int forced = -1, bool trace = false) {
  g_calls[0] = g_calls[1] = 0;
  PlanStorage s;
  s.bytes[0] = 0;
  Outcome r;
  r.c = gpuopt::choose_variant(kTable, kCount, Toy{size}, GPUOPT_DTYPE_F32,
                               synthetic_device(90, 132), forced, trace, &s);
  r.owner = s.bytes[0];
  return r;
}

TEST(PlanHandoff, CheckedVariantWinsWithoutPlanning) {
  const Outcome r = choose(10);
  EXPECT_EQ(r.c.index, 0);
  EXPECT_FALSE(r.c.planned);
  EXPECT_EQ(g_calls[0] + g_calls[1], 0) << "the preferred checked variant took the problem";
}

TEST(PlanHandoff, PerCallPathPlansTheWinnerOnce) {
  const Outcome r = choose(500);  // "checked" refuses; planned_a (preference 10) accepts
  EXPECT_EQ(r.c.index, 1);
  EXPECT_TRUE(r.c.planned);
  EXPECT_EQ(r.owner, 1);
  EXPECT_EQ(g_calls[0], 1);
  EXPECT_EQ(g_calls[1], 0) << "a lower preference is not planned once a higher one accepted";
}

TEST(PlanHandoff, PlanRefusalFallsThroughToTheNext) {
  const Outcome r = choose(5000);  // planned_a refuses after writing; planned_b accepts
  EXPECT_EQ(r.c.index, 2);
  EXPECT_TRUE(r.c.planned);
  EXPECT_EQ(r.owner, 2) << "the storage holds the winner's plan, not the refused one's";
}

TEST(PlanHandoff, ForcedPlansOnce) {
  const Outcome r = choose(10, /*forced=*/1);
  EXPECT_EQ(r.c.index, 1);
  EXPECT_TRUE(r.c.planned);
  EXPECT_EQ(r.owner, 1);
  EXPECT_EQ(g_calls[0], 1)
      << "a forced planning variant is planned once, not checked and replanned";
}

TEST(PlanHandoff, ForcedPlanRefusalSaysWhy) {
  const Outcome r = choose(5000, /*forced=*/1);
  EXPECT_EQ(r.c.index, -1);
  EXPECT_FALSE(r.c.planned);
  EXPECT_EQ(r.c.status, GPUOPT_ERROR_UNSUPPORTED);
  EXPECT_NE(r.c.reason.find("planned_a: too big for this plan"), std::string::npos) << r.c.reason;
}

TEST(PlanHandoff, TracedPathReplansTheWinnerWhenALaterEntryWroteLast) {
  // Every entry is examined: planned_b plans after planned_a, which wins on preference.
  const Outcome r = choose(500, -1, /*trace=*/true);
  EXPECT_EQ(r.c.index, 1);
  EXPECT_TRUE(r.c.planned);
  EXPECT_EQ(r.owner, 1) << "the winner's plan, made again after planned_b overwrote it";
  EXPECT_EQ(g_calls[0], 2);
  EXPECT_EQ(g_calls[1], 1);
  EXPECT_NE(r.c.trace.find("planned_b ok"), std::string::npos) << r.c.trace;
}

TEST(PlanHandoff, NoStorageStillChecksThroughThePlan) {
  g_calls[0] = g_calls[1] = 0;
  const Choice c = gpuopt::choose_variant(kTable, kCount, Toy{5000}, GPUOPT_DTYPE_F32,
                                          synthetic_device(90, 132), -1, false);
  EXPECT_EQ(c.index, 2);
  EXPECT_FALSE(c.planned) << "nothing to hand over without the caller's storage";
  EXPECT_EQ(g_calls[0], 1);
}

// The sm90 GEMM rung checks by planning; the dispatch test devices (no driver here) see its
// refusals through the plan step, and auto never plans it on a device it cannot run on.
TEST(PlanHandoff, Sm90GemmRungIsAPlanningVariant) {
  int count = 0;
  const Variant<gpuopt::GemmProblem>* t = gpuopt::gemm_variants(&count);
  int sm90 = -1;
  for (int i = 0; i < count; ++i)
    if (std::strcmp(t[i].meta.name, "sm90_tma_wgmma") == 0) sm90 = i;
  ASSERT_GE(sm90, 0);
  EXPECT_NE(t[sm90].plan, nullptr);
  EXPECT_EQ(t[sm90].can_implement, nullptr) << "one check: the plan step";
  gpuopt::GemmProblem p;
  p.m = p.n = p.k = 64;
  p.a_type = p.c_type = GPUOPT_DTYPE_F64;
  p.compute = GPUOPT_COMPUTE_F64;
  PlanStorage s;
  const char* why = t[sm90].plan(p, synthetic_device(90, 132), -1, &s);
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("dtype"), std::string::npos) << why;
  const Choice c = gpuopt::choose_variant(t, count, p, GPUOPT_DTYPE_F64, synthetic_device(80, 108),
                                          sm90, false, &s);
  EXPECT_EQ(c.index, -1);
  EXPECT_NE(c.reason.find("sm90_tma_wgmma"), std::string::npos) << c.reason;
}

}  // namespace
