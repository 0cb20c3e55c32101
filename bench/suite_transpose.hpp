// The transpose rows (gpuopt_transpose), on device memory with random bits, one group per dtype:
// - f32 16384 x 16384 (8192 x 8192 with --quick): every variant, cublas (geam), auto;
// - f64 16384 x 8192 and bf16 32768 x 16384: the same byte size (1 GiB per operand), every
//   variant that takes the dtype (cublas: f64 only), auto.
// GB/s counts read + write (2 x the operand); share_of_roof divides by the copy roof of the same
// run; each group's vendor is cublas (bf16 has none). A row forces its variant, poisons B, checks
// one call bit for bit on the device, then times it (operands larger than the L2: no rotation).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "env.hpp"
#include "results.hpp"
#include "suite_axpy.hpp"  // VariantSpec, list_variants

namespace bench {

struct TransposeGroup {
  gpuopt_dtype_t dtype = GPUOPT_DTYPE_F32;
  std::int64_t rows = 0, cols = 0;    // A is rows x cols, tight leading dimensions
  std::vector<VariantSpec> variants;  // ladder order, the vendor included, "auto" last
  bool bar = false;                   // the bars are on this group
};

// The groups the options ask for (empty unless opt.wants_op("transpose")).
std::vector<TransposeGroup> plan_transpose(const Options& opt,
                                           const std::vector<VariantSpec>& table);

// Rows (progress steps) of the groups.
int transpose_row_count(const std::vector<TransposeGroup>& groups);

// Runs a group; appends one row per variant. Never throws for a failing variant.
void run_transpose_group(BenchEnv& env, const TransposeGroup& g, std::vector<Row>* rows);

// The bars on f32 16384 x 16384 (the auto row, else the best own row): GB/s (read +
// write) >= 0.85 of the copy roof, and >= 1.0 x cublas geam.
void compute_transpose_bars(Results& r, const std::vector<TransposeGroup>& groups);

}  // namespace bench
