// Reduce dispatch decisions for synthetic devices (cc 7.5, 8.0, 8.6, 8.9, 9.0) through the real
// variant table, and the launch plans (functions of the problem only; within the workspace).
// Pointers are fake addresses: dispatch only looks at their values.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "kernels/reduce/reduce.hpp"
#include "runtime/device.hpp"
#include "runtime/registry.hpp"
#include "test_support.hpp"

namespace {

using gpuopt::Choice;
using gpuopt::DeviceDesc;
using gpuopt::ReduceProblem;

const std::int64_t* const kOffsets = reinterpret_cast<const std::int64_t*>(0x7f0000200000);

const gpuopt::Variant<ReduceProblem>* table(int* count) { return gpuopt::reduce_variants(count); }

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

ReduceProblem whole(gpuopt_reduce_op_t op, gpuopt_dtype_t t, std::int64_t n) {
  ReduceProblem p;
  p.op = op;
  p.in_type = t;
  p.n = n;
  p.num_segments = 1;
  p.in = reinterpret_cast<const void*>(0x7f0000100000);
  p.out = reinterpret_cast<void*>(0x7f0000900000);
  return p;
}

ReduceProblem rows(gpuopt_dtype_t t, std::int64_t count, std::int64_t n, std::int64_t stride) {
  ReduceProblem p = whole(GPUOPT_REDUCE_SUM, t, n);
  p.num_segments = count;
  p.stride = stride;
  return p;
}

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

const char* const kAllVariants[] = {
    "neighbored",      "interleaved",      "unroll8",      "unroll8_warp",
    "complete_unroll", "warp_shuffle_vec", "sm90_cluster", "cub"};

class ReduceDispatch : public ::testing::TestWithParam<int> {
 protected:
  DeviceDesc dev() const { return gpuopt::synthetic_device(GetParam(), sm_count_of(GetParam())); }
  Choice choose(const ReduceProblem& p, int forced = -1) const {
    int count = 0;
    const auto* t = table(&count);
    return gpuopt::choose_variant(t, count, p, p.in_type, dev(), forced, /*want_trace=*/true);
  }
  bool cluster_runs() const { return GetParam() >= 90; }
};

TEST(ReduceTable, NamesAndOrder) {
  int count = 0;
  const auto* t = table(&count);
  ASSERT_EQ(count, 8);
  for (int i = 0; i < count; ++i) EXPECT_STREQ(t[i].meta.name, kAllVariants[i]);
  EXPECT_TRUE(t[count - 1].meta.is_vendor);
  EXPECT_EQ(t[index_of("sm90_cluster")].meta.min_cc, 90);
  const gpuopt::OpTable* op = gpuopt::op_table(GPUOPT_OP_REDUCE);
  ASSERT_NE(op, nullptr);
  EXPECT_STREQ(op->op_name, "reduce");
  EXPECT_STREQ(op->env_name, "GPUOPT_VARIANT_REDUCE");
  EXPECT_EQ(op->count, count);
  EXPECT_STREQ(gpuopt_op_name(GPUOPT_OP_REDUCE), "reduce");
}

TEST_P(ReduceDispatch, WholeArrayPicksWarpShuffleVecForEveryOpAndType) {
  for (gpuopt_reduce_op_t op : {GPUOPT_REDUCE_SUM, GPUOPT_REDUCE_MIN, GPUOPT_REDUCE_MAX,
                                GPUOPT_REDUCE_ARGMIN, GPUOPT_REDUCE_ARGMAX}) {
    for (gpuopt_dtype_t t : {GPUOPT_DTYPE_I32, GPUOPT_DTYPE_I64, GPUOPT_DTYPE_U32, GPUOPT_DTYPE_F32,
                             GPUOPT_DTYPE_F64, GPUOPT_DTYPE_BF16, GPUOPT_DTYPE_F16}) {
      const Choice c = choose(whole(op, t, std::int64_t{1} << 28));
      EXPECT_EQ(name_of(c), "warp_shuffle_vec")
          << gpuopt::reduce_op_name(op) << " " << gpuopt_dtype_name(t) << ": " << c.trace;
    }
  }
}

TEST_P(ReduceDispatch, Sm90ClusterOnlyFromCc90) {
  const int i = index_of("sm90_cluster");
  ASSERT_GE(i, 0);
  const Choice c = choose(rows(GPUOPT_DTYPE_F32, 256, 1 << 16, 1 << 16), i);
  if (cluster_runs()) {
    EXPECT_EQ(name_of(c), "sm90_cluster") << c.reason;
  } else {
    EXPECT_EQ(c.index, -1);
    EXPECT_EQ(c.status, GPUOPT_ERROR_UNSUPPORTED);
    EXPECT_NE(c.reason.find("9.0"), std::string::npos) << c.reason;
  }
}

TEST_P(ReduceDispatch, FewLongRowsStayOnWarpShuffleVec) {
  // 256 rows of 64K f32: warp_shuffle_vec splits each row in 8 pieces; sm90_cluster could take
  // them (cc >= 9.0) but measured slower (docs/notes/reduce.md).
  const ReduceProblem p = rows(GPUOPT_DTYPE_F32, 256, 1 << 16, 1 << 16);
  EXPECT_EQ(gpuopt::reduce_plan(p).splits, 8);
  const Choice c = choose(p);
  EXPECT_EQ(name_of(c), "warp_shuffle_vec") << c.trace;
  if (cluster_runs()) {
    EXPECT_NE(c.trace.find("sm90_cluster ok"), std::string::npos) << c.trace;
  }
}

TEST_P(ReduceDispatch, ManyRowsStayOnWarpShuffleVec) {
  const Choice c = choose(rows(GPUOPT_DTYPE_F32, 8192, 8192, 8192));
  EXPECT_EQ(name_of(c), "warp_shuffle_vec") << c.trace;
  const Choice s = choose(rows(GPUOPT_DTYPE_F32, 1000, 777, 800));
  EXPECT_EQ(name_of(s), "warp_shuffle_vec") << s.trace;
}

TEST_P(ReduceDispatch, TextbookRungsRefuseWhatTheyCannotDo) {
  for (const char* name :
       {"neighbored", "interleaved", "unroll8", "unroll8_warp", "complete_unroll"}) {
    SCOPED_TRACE(name);
    const int i = index_of(name);
    ASSERT_GE(i, 0);
    EXPECT_EQ(name_of(choose(whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_I32, 1 << 20), i)), name);
    EXPECT_EQ(name_of(choose(whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_I32, std::int64_t{1} << 28), i)),
              name)
        << "the ladder row (2^28 i32) must run on every rung";
    Choice c = choose(whole(GPUOPT_REDUCE_MAX, GPUOPT_DTYPE_F32, 1000), i);
    EXPECT_EQ(c.index, -1);
    EXPECT_NE(unit::lower(c.reason).find("sum"), std::string::npos) << c.reason;
    c = choose(whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_BF16, 1000), i);
    EXPECT_EQ(c.index, -1);
    EXPECT_NE(c.reason.find("dtype"), std::string::npos) << c.reason;
    c = choose(rows(GPUOPT_DTYPE_F32, 4, 100, 100), i);
    EXPECT_EQ(c.index, -1);
    EXPECT_NE(unit::lower(c.reason).find("segment"), std::string::npos) << c.reason;
    ReduceProblem off = whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, 1000);
    off.offsets = kOffsets;
    EXPECT_EQ(choose(off, i).index, -1);
  }
  // One pass per 512 elements: 2^19 partials fit, more do not.
  const Choice big = choose(whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, (std::int64_t{1} << 28) + 1),
                            index_of("neighbored"));
  EXPECT_EQ(big.index, -1);
  EXPECT_NE(big.reason.find("partial"), std::string::npos) << big.reason;
  EXPECT_EQ(name_of(choose(whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, std::int64_t{1} << 31),
                           index_of("unroll8"))),
            "unroll8");
}

TEST_P(ReduceDispatch, CubTakesEveryOpTypeAndLayout) {
  const int i = index_of("cub");
  ReduceProblem off = whole(GPUOPT_REDUCE_ARGMAX, GPUOPT_DTYPE_BF16, 5000);
  off.offsets = kOffsets;
  off.num_segments = 77;
  EXPECT_EQ(name_of(choose(off, i)), "cub");
  EXPECT_EQ(name_of(choose(rows(GPUOPT_DTYPE_F16, 10, 10, 12), i)), "cub");
  off.num_segments = std::int64_t{1} << 20;  // pairs would not fit the workspace
  const Choice c = choose(off, i);
  EXPECT_EQ(c.index, -1);
  EXPECT_NE(c.reason.find("workspace"), std::string::npos) << c.reason;
}

INSTANTIATE_TEST_SUITE_P(Devices, ReduceDispatch, ::testing::Values(75, 80, 86, 89, 90),
                         [](const ::testing::TestParamInfo<int>& i) {
                           return "cc" + std::to_string(i.param);
                         });

// ---- plans ----------------------------------------------------------------------------------

TEST(ReducePlan, WholeArraySplitsByBytesUpTo2048Pieces) {
  EXPECT_EQ(gpuopt::reduce_plan(whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, 0)).splits, 1);
  EXPECT_EQ(gpuopt::reduce_plan(whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, 4096)).splits, 1);
  EXPECT_EQ(gpuopt::reduce_plan(whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, 4097)).splits, 2);
  EXPECT_EQ(gpuopt::reduce_plan(whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, 1 << 20)).splits, 256);
  // SUM/MIN/MAX of one array: the deep kernel, 2048 pieces of at least 16 KiB.
  for (gpuopt_reduce_op_t op : {GPUOPT_REDUCE_SUM, GPUOPT_REDUCE_MIN, GPUOPT_REDUCE_MAX}) {
    for (gpuopt_dtype_t t : {GPUOPT_DTYPE_I32, GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F64}) {
      for (std::int64_t n : {std::int64_t{1} << 26, std::int64_t{1} << 28, std::int64_t{300000007},
                             std::int64_t{1} << 34}) {
        const gpuopt::ReducePlan plan = gpuopt::reduce_plan(whole(op, t, n));
        EXPECT_TRUE(plan.deep) << op << " " << t << " " << n;
        EXPECT_EQ(plan.splits, 2048) << op << " " << t << " " << n;
      }
    }
  }
  EXPECT_TRUE(gpuopt::reduce_plan(whole(GPUOPT_REDUCE_MAX, GPUOPT_DTYPE_F32, 7)).deep);
  // ARGMIN/ARGMAX (the deep kernel lost there): 1 MiB pieces, 1024 to 2048 of them.
  for (gpuopt_reduce_op_t op : {GPUOPT_REDUCE_ARGMIN, GPUOPT_REDUCE_ARGMAX}) {
    EXPECT_FALSE(gpuopt::reduce_plan(whole(op, GPUOPT_DTYPE_F32, std::int64_t{1} << 28)).deep);
    EXPECT_EQ(gpuopt::reduce_plan(whole(op, GPUOPT_DTYPE_I32, std::int64_t{1} << 26)).splits, 1024);
    EXPECT_EQ(gpuopt::reduce_plan(whole(op, GPUOPT_DTYPE_F32, std::int64_t{1} << 28)).splits, 1024);
    EXPECT_EQ(gpuopt::reduce_plan(whole(op, GPUOPT_DTYPE_F32, 300000007)).splits, 1145);
    EXPECT_EQ(gpuopt::reduce_plan(whole(op, GPUOPT_DTYPE_F64, std::int64_t{1} << 28)).splits, 2048);
    EXPECT_EQ(gpuopt::reduce_plan(whole(op, GPUOPT_DTYPE_F32, std::int64_t{1} << 34)).splits, 2048);
  }
  // Segments keep the 4-load kernel: one segment of offsets like ARGMIN/ARGMAX, rows spread
  // kReduceTargetBlocks blocks.
  ReduceProblem one = whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, std::int64_t{1} << 28);
  one.offsets = kOffsets;
  EXPECT_FALSE(gpuopt::reduce_plan(one).deep);
  EXPECT_EQ(gpuopt::reduce_plan(one).splits, 1024);
  const gpuopt::ReducePlan r = gpuopt::reduce_plan(rows(GPUOPT_DTYPE_F32, 512, 131072, 131072));
  EXPECT_FALSE(r.deep);
  EXPECT_EQ(r.splits, 4);
  EXPECT_FALSE(gpuopt::reduce_plan(whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, 7)).warp_per_segment)
      << "one short array is one block";
}

TEST(ReducePlan, ShortSegmentsGetAWarpEach) {
  EXPECT_TRUE(gpuopt::reduce_plan(rows(GPUOPT_DTYPE_F32, 100000, 32, 32)).warp_per_segment);
  EXPECT_FALSE(gpuopt::reduce_plan(rows(GPUOPT_DTYPE_F32, 1000, 777, 800)).warp_per_segment);
  ReduceProblem off = whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, 1000000);
  off.offsets = kOffsets;
  off.num_segments = 10000;  // 100 on average
  EXPECT_TRUE(gpuopt::reduce_plan(off).warp_per_segment);
}

TEST(ReducePlan, PartialsAndCountersAlwaysFitTheWorkspace) {
  for (std::int64_t segs : {1, 2, 3, 100, 1000, 2047, 2048, 5000}) {
    for (std::int64_t n :
         {std::int64_t{513}, std::int64_t{1} << 16, std::int64_t{1} << 24, std::int64_t{1} << 34}) {
      ReduceProblem p = rows(GPUOPT_DTYPE_BF16, segs, n, n);
      const gpuopt::ReducePlan plan = gpuopt::reduce_plan(p);
      if (plan.splits > 1) {
        EXPECT_LE(static_cast<std::size_t>(segs * plan.splits) * 16,
                  gpuopt::reduce_ws::kPartialABytes)
            << segs << " x " << n;
        EXPECT_LE(static_cast<std::size_t>(segs), gpuopt::reduce_ws::kCounters);
      }
      const gpuopt::ClusterPlan c = gpuopt::reduce_cluster_plan(p);
      EXPECT_GE(c.cluster, 2);
      EXPECT_LE(c.cluster, 8);
      if (c.needs_partials()) {
        EXPECT_LE(static_cast<std::size_t>(segs * c.clusters_per_segment) * 16,
                  gpuopt::reduce_ws::kPartialABytes);
        EXPECT_LE(static_cast<std::size_t>(segs), gpuopt::reduce_ws::kCounters);
      }
    }
  }
  static_assert(gpuopt::reduce_ws::kTotal <= gpuopt::kOpWorkspaceBytes, "layout");
}

TEST(ReducePlan, ClusterShapes) {
  const gpuopt::ClusterPlan w = gpuopt::reduce_cluster_plan(
      whole(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32, std::int64_t{1} << 28));
  EXPECT_EQ(w.cluster, 8);
  EXPECT_EQ(w.clusters_per_segment, 256);  // 2048 CTAs
  const gpuopt::ClusterPlan r =
      gpuopt::reduce_cluster_plan(rows(GPUOPT_DTYPE_F32, 256, 1 << 16, 1 << 16));
  EXPECT_EQ(r.cluster, 8);
  EXPECT_EQ(r.clusters_per_segment, 1);
  const gpuopt::ClusterPlan m =
      gpuopt::reduce_cluster_plan(rows(GPUOPT_DTYPE_F32, 8192, 8192, 8192));
  EXPECT_EQ(m.cluster, 2);
  EXPECT_EQ(m.clusters_per_segment, 1);
}

TEST(ReduceTypes, ResultSizes) {
  using gpuopt::reduce_out_size;
  EXPECT_EQ(reduce_out_size(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_I32), 8u);
  EXPECT_EQ(reduce_out_size(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_U32), 8u);
  EXPECT_EQ(reduce_out_size(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_I64), 8u);
  EXPECT_EQ(reduce_out_size(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_F32), 4u);
  EXPECT_EQ(reduce_out_size(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_BF16), 4u);
  EXPECT_EQ(reduce_out_size(GPUOPT_REDUCE_MIN, GPUOPT_DTYPE_I32), 4u);
  EXPECT_EQ(reduce_out_size(GPUOPT_REDUCE_MAX, GPUOPT_DTYPE_F16), 4u);
  EXPECT_EQ(reduce_out_size(GPUOPT_REDUCE_MAX, GPUOPT_DTYPE_F64), 8u);
  EXPECT_EQ(reduce_out_size(GPUOPT_REDUCE_ARGMIN, GPUOPT_DTYPE_BF16), 8u);
  EXPECT_EQ(reduce_out_size(GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_U64), 0u);
  EXPECT_EQ(gpuopt::reduce_in_size(GPUOPT_DTYPE_U64), 0u);
}

}  // namespace
