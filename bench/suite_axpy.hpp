// The axpy rows: every variant plus "auto" over plain device memory (f32, f64), and the
// compressible-memory comparison (f32: device vs compressible buffers, patterned vs random data).
#pragma once
#include <string>
#include <vector>

#include "data_gen.hpp"
#include "env.hpp"
#include "results.hpp"

namespace bench {

// A variant of a table, as the bench runs it.
struct VariantSpec {
  std::string name;  // table name, or "auto"
  bool is_auto = false;
  bool is_vendor = false;
  bool available = true;  // gpuopt_variant_info().available
  unsigned dtype_mask = 0;
};

// Appends the "auto" row when the options ask for it (and then sets *any).
void append_auto(const Options& opt, std::vector<VariantSpec>* out, bool* any);

// The variants of op in ladder order (throws BenchError when listing fails).
std::vector<VariantSpec> list_variants(gpuopt_context_t ctx, gpuopt_op_t op);

// One ladder: rows that share dtype, size, memory and data (and so one vendor row).
struct AxpyGroup {
  gpuopt_dtype_t dtype = GPUOPT_DTYPE_F32;
  std::int64_t n = 0;
  gpuopt_memory_kind_t memory = GPUOPT_MEMORY_DEVICE;
  DataKind data = DataKind::kRandom;
  std::vector<VariantSpec> variants;
};

// The groups the options ask for, in run order (for each size: f32 device ladder, f32
// compressible comparison; then f64).
std::vector<AxpyGroup> plan_axpy(const Options& opt, const std::vector<VariantSpec>& table);

// Largest number of bytes one group copies back at once (to size the staging buffer).
std::size_t axpy_copy_back_bytes(const std::vector<AxpyGroup>& groups);

// Runs a group; appends one row per variant. Never throws for a failing variant: the row
// records it.
void run_axpy_group(BenchEnv& env, const AxpyGroup& g, std::vector<Row>* rows);

// Settings shared with the graph suite.
constexpr double kAxpyAlpha = 0.8125;  // exact in f32 and f64
std::string memory_name(gpuopt_memory_kind_t kind);
// "0.812 ms, 4283 GB/s, correct" or "FAILED: ..." for the progress line.
std::string progress_summary(const Row& r);

}  // namespace bench
