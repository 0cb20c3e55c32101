// AXPY dispatch decisions for synthetic devices (cc 7.5, 8.0, 8.6, 8.9, 9.0) through the real
// variant table. Pointers are fake addresses: dispatch only looks at their values.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "kernels/axpy/axpy.hpp"
#include "runtime/device.hpp"
#include "runtime/registry.hpp"
#include "test_support.hpp"

namespace {

using gpuopt::AxpyProblem;
using gpuopt::Choice;
using gpuopt::DeviceDesc;

const void* const kAlignedX = reinterpret_cast<const void*>(0x7f0000100000);
void* const kAlignedY = reinterpret_cast<void*>(0x7f0000900000);

const gpuopt::Variant<AxpyProblem>* table(int* count) { return gpuopt::axpy_variants(count); }

int index_of(const char* name) {
  int count = 0;
  const auto* t = table(&count);
  for (int i = 0; i < count; ++i) {
    if (std::string(t[i].meta.name) == name) return i;
  }
  return -1;
}

std::string name_of(const Choice& c) {
  int count = 0;
  const auto* t = table(&count);
  return c.index < 0 || c.index >= count ? "<none>" : t[c.index].meta.name;
}

AxpyProblem contiguous(gpuopt_dtype_t dtype) {
  AxpyProblem p;
  p.dtype = dtype;
  p.n = (1 << 20) + 5;
  p.alpha = 1.5;
  p.x = kAlignedX;
  p.y = kAlignedY;
  return p;
}

// SM counts of real parts of each cc, for realism only.
int sm_count_of(int cc) {
  switch (cc) {
    case 75:
      return 40;
    case 80:
      return 108;
    case 86:
      return 84;
    case 89:
      return 128;
    default:
      return 132;
  }
}

class AxpyDispatch : public ::testing::TestWithParam<int> {
 protected:
  DeviceDesc dev() const { return gpuopt::synthetic_device(GetParam(), sm_count_of(GetParam())); }

  Choice choose(const AxpyProblem& p, int forced = -1) const {
    int count = 0;
    const auto* t = table(&count);
    return gpuopt::choose_variant(t, count, p, p.dtype, dev(), forced, /*want_trace=*/true);
  }

  // True when the named variant's code runs on this synthetic device.
  bool runs_here(const char* name) const {
    int count = 0;
    const auto* t = table(&count);
    const int i = index_of(name);
    return i >= 0 && gpuopt::arch_reason(t[i].meta, dev()).empty();
  }

  // Expects auto dispatch of p to pick `want`, or, where want's code cannot run on this cc, a
  // variant whose code can (or UNSUPPORTED when none can).
  void expect_auto(const AxpyProblem& p, const char* want) const {
    const Choice c = choose(p);
    if (runs_here(want)) {
      EXPECT_EQ(name_of(c), want) << "cc " << GetParam() << "; trace: " << c.trace;
      EXPECT_EQ(c.status, GPUOPT_SUCCESS);
      return;
    }
    if (c.index < 0) {
      EXPECT_EQ(c.status, GPUOPT_ERROR_UNSUPPORTED);
      return;
    }
    int count = 0;
    const auto* t = table(&count);
    EXPECT_TRUE(gpuopt::arch_reason(t[c.index].meta, dev()).empty())
        << "picked " << name_of(c) << ", which cannot run on cc " << GetParam();
  }

  // Expects forcing `name` on p to be refused with a reason containing one of the words.
  void expect_forced_refusal(const AxpyProblem& p, const char* name,
                             std::initializer_list<const char*> words) const {
    const int i = index_of(name);
    ASSERT_GE(i, 0) << name;
    const Choice c = choose(p, i);
    EXPECT_EQ(c.index, -1) << name;
    EXPECT_EQ(c.status, GPUOPT_ERROR_UNSUPPORTED) << name;
    EXPECT_NE(c.reason.find(name), std::string::npos) << c.reason;
    if (!runs_here(name)) return;  // refused for the arch, which is a reason too
    const std::string r = unit::lower(c.reason);
    bool found = false;
    for (const char* w : words) found = found || r.find(w) != std::string::npos;
    EXPECT_TRUE(found) << "reason does not say why: " << c.reason;
  }
};

// The block tile measured fastest on plain memory too (docs/notes/axpy.md).
TEST_P(AxpyDispatch, ContiguousAlignedF32PicksVec4Blocktile) {
  expect_auto(contiguous(GPUOPT_DTYPE_F32), "vec4_blocktile");
}

TEST_P(AxpyDispatch, ContiguousAlignedF64PicksVec4Blocktile) {
  expect_auto(contiguous(GPUOPT_DTYPE_F64), "vec4_blocktile");
}

TEST_P(AxpyDispatch, CompressiblePicksVec4Blocktile) {
  for (gpuopt_dtype_t dt : {GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F64}) {
    AxpyProblem p = contiguous(dt);
    p.compressible = true;
    expect_auto(p, "vec4_blocktile");
  }
}

TEST_P(AxpyDispatch, StridedPicksNaive) {
  for (gpuopt_dtype_t dt : {GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F64}) {
    AxpyProblem p = contiguous(dt);
    p.incx = 2;
    expect_auto(p, "naive");
    p.incx = 1;
    p.incy = 3;
    expect_auto(p, "naive");
    p.compressible = true;
    expect_auto(p, "naive");
  }
}

TEST_P(AxpyDispatch, MisalignedPicksNaive) {
  AxpyProblem p = contiguous(GPUOPT_DTYPE_F32);
  p.x = reinterpret_cast<const void*>(0x1004);
  expect_auto(p, "naive");
  p = contiguous(GPUOPT_DTYPE_F32);
  p.y = reinterpret_cast<void*>(0x1004);
  expect_auto(p, "naive");
  p = contiguous(GPUOPT_DTYPE_F64);
  p.x = reinterpret_cast<const void*>(0x1008);
  p.y = reinterpret_cast<void*>(0x2008);
  expect_auto(p, "naive");
}

TEST_P(AxpyDispatch, ForcedVec4OnStridedIsRefusedWithReason) {
  for (const char* name : {"vec4_gridstride", "vec4_blocktile"}) {
    AxpyProblem p = contiguous(GPUOPT_DTYPE_F32);
    p.incx = 2;
    expect_forced_refusal(p, name, {"stride", "inc", "contiguous", "align"});
    p.incx = 1;
    p.incy = 2;
    expect_forced_refusal(p, name, {"stride", "inc", "contiguous", "align"});
  }
}

TEST_P(AxpyDispatch, ForcedVec4OnMisalignedIsRefusedWithReason) {
  for (const char* name : {"vec4_gridstride", "vec4_blocktile"}) {
    AxpyProblem p = contiguous(GPUOPT_DTYPE_F32);
    p.x = reinterpret_cast<const void*>(0x1004);
    expect_forced_refusal(p, name, {"align"});
  }
}

TEST_P(AxpyDispatch, ForcedNaiveAndCublasTakeAnyLayout) {
  for (const char* name : {"naive", "cublas"}) {
    if (!runs_here(name)) continue;
    AxpyProblem p = contiguous(GPUOPT_DTYPE_F64);
    p.incx = 3;
    p.incy = 2;
    p.x = reinterpret_cast<const void*>(0x1008);
    const Choice c = choose(p, index_of(name));
    EXPECT_EQ(name_of(c), name) << c.reason;
  }
}

TEST_P(AxpyDispatch, UnsupportedDtypes) {
  for (gpuopt_dtype_t dt : {GPUOPT_DTYPE_F16, GPUOPT_DTYPE_BF16, GPUOPT_DTYPE_I32}) {
    const Choice c = choose(contiguous(dt));
    EXPECT_EQ(c.index, -1) << gpuopt_dtype_name(dt);
    EXPECT_EQ(c.status, GPUOPT_ERROR_UNSUPPORTED) << gpuopt_dtype_name(dt);
    EXPECT_FALSE(c.reason.empty());
  }
}

TEST_P(AxpyDispatch, TraceListsEveryVariant) {
  const Choice c = choose(contiguous(GPUOPT_DTYPE_F32));
  int count = 0;
  const auto* t = table(&count);
  for (int i = 0; i < count; ++i) {
    EXPECT_NE(c.trace.find(t[i].meta.name), std::string::npos) << c.trace;
  }
}

INSTANTIATE_TEST_SUITE_P(SyntheticDevices, AxpyDispatch, ::testing::Values(75, 80, 86, 89, 90),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "cc" + std::to_string(info.param);
                         });

TEST(AxpyTable, LadderShape) {
  int count = 0;
  const auto* t = gpuopt::axpy_variants(&count);
  ASSERT_NE(t, nullptr);
  ASSERT_GE(count, 4);
  for (const char* name : {"naive", "vec4_gridstride", "vec4_blocktile", "cublas"}) {
    EXPECT_GE(index_of(name), 0) << name;
  }
  EXPECT_STREQ(t[0].meta.name, "naive") << "the textbook rung comes first";
  EXPECT_TRUE(t[count - 1].meta.is_vendor) << "the vendor routine comes last";
  for (int i = 0; i < count; ++i) {
    const auto& m = t[i].meta;
    SCOPED_TRACE(m.name);
    EXPECT_EQ(m.is_vendor, std::string(m.name) == "cublas");
    EXPECT_NE(m.dtype_mask & gpuopt::dtype_bit(GPUOPT_DTYPE_F32), 0u);
    EXPECT_NE(m.dtype_mask & gpuopt::dtype_bit(GPUOPT_DTYPE_F64), 0u);
    ASSERT_NE(m.technique, nullptr);
    EXPECT_GT(std::string(m.technique).size(), 0u);
    EXPECT_NE(t[i].launch, nullptr);
    for (int j = 0; j < i; ++j) {
      EXPECT_STRNE(t[j].meta.name, m.name) << "names are unique";
    }
  }
}

TEST(AxpyTable, NaiveRunsOnEveryTestedCc) {
  int count = 0;
  const auto* t = gpuopt::axpy_variants(&count);
  const int naive = index_of("naive");
  ASSERT_GE(naive, 0);
  for (int cc : {80, 86, 89, 90, 100}) {
    EXPECT_TRUE(gpuopt::arch_reason(t[naive].meta, gpuopt::synthetic_device(cc, 100)).empty())
        << "cc " << cc;
  }
}

}  // namespace
