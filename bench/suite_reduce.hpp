// The reduce rows (gpuopt_reduce), all on device memory with random data, one group per table:
// - sum i32, n = 2^28 (the largest --sizes; 2^24 with --quick): every variant, the reduction
//   ladder, then auto;
// - sum f32 and f64, min, max and argmax f32 at the same n: the non-textbook variants and auto;
// - row-wise sum of an 8192 x 8192 f32 matrix (4096 x 4096 with --quick): the same;
// - row-wise sum of 512 x 131072 f32 (256 x 131072 with --quick), few long rows that each need
//   several CTAs: sm90_cluster against warp_shuffle_vec's split with partials (no bar).
// The sum i32 group also times cub::DeviceReduce::Sum(int32 -> int32), the anchor's case (its
// result wraps, so it is checked modulo 2^32 and is not gpuopt's vendor row).
// Each group's vendor is cub. GB/s counts the bytes read (the input once); share_of_roof divides
// by the copy roof of the same run. A row forces its variant, checks one call against a host
// reference computed from the same generator (all host cores), then times it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "env.hpp"
#include "results.hpp"
#include "suite_axpy.hpp"  // VariantSpec, list_variants

namespace bench {

struct ReduceGroup {
  gpuopt_reduce_op_t op = GPUOPT_REDUCE_SUM;
  gpuopt_dtype_t type = GPUOPT_DTYPE_F32;
  std::int64_t n = 0;                 // elements per segment
  std::int64_t rows = 0;              // 0: one reduction over n; else rows x n, row pitch n
  std::vector<VariantSpec> variants;  // ladder order, the vendor included, "auto" last
  bool cub_i32_row = false;    // also time cub::DeviceReduce::Sum(int32 -> int32) (the anchor)
  bool informational = false;  // no bar (the few-long-rows group that compares the split rungs)
};

// The groups the options ask for (empty unless opt.wants_op("reduce")).
std::vector<ReduceGroup> plan_reduce(const Options& opt, const std::vector<VariantSpec>& table);

// Rows (progress steps) of the groups.
int reduce_row_count(const std::vector<ReduceGroup>& groups);

// "sum n=268435456", "sum 8192 rows x 8192".
std::string reduce_shape_name(const ReduceGroup& g);

// Runs a group; appends one row per variant. Never throws for a failing variant.
void run_reduce_group(BenchEnv& env, const ReduceGroup& g, std::vector<Row>* rows);

// The bars: sum f32/f64 >= 1.0 x cub, sum i32 >= 1.1 x cub and >= 0.9 of the copy roof,
// min/max/argmax f32 >= 0.9 and the row-wise sum >= 0.85 of the copy roof (auto rows); and sum
// i32 >= 1.1 x cub::DeviceReduce::Sum(int32 -> int32).
void compute_reduce_bars(Results& r, const std::vector<ReduceGroup>& groups);

}  // namespace bench
