// The gemm rows (m = n = k unless said, NN, column-major, alpha = 1, beta = 0 on NaN-poisoned C):
// - square n = 4096 and 8192 (--sizes with --op gemm; 1024 and 2048 with --quick) for f64,
//   f32 exact, tf32 (f32 in and out, TF32 compute), bf16 in, f32 out ("bf16") and bf16 in and
//   out ("bf16_bf16", torch's bf16 matmul): every variant of the table that has the input dtype,
//   except that the textbook rungs (naive, smem_tiled, smem_coalesced_padded, register_blocked)
//   run only up to n = 4096 (the ladder);
// - rectangular 8192 x 8192 x 1024 and strided-batched 512 x (256 x 256 x 256), f32, bf16 and
//   bf16_bf16: the non-textbook variants;
// each with the vendor rows ("cublas" and "cublaslt": the faster is the yardstick of
// ratio_to_vendor and of the "best vendor" bars) and "auto"; and, when torch imports on the
// machine, a "torch.matmul" peer row per table (suite_torch.cpp, bench/torch_matmul.py).
// A row forces its variant, checks one call on fresh inputs against cuBLAS f64 on the same
// (upcast) inputs, then times it. A variant that refuses the problem (GPUOPT_ERROR_UNSUPPORTED)
// is a skipped row with the reason, not a failure. After the rows, what the bars compare is
// re-timed in alternation (the best own variant with the vendors; auto with the fastest row's
// variant when auto ran another): rows minutes apart drift with the GPU's clocks.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "env.hpp"
#include "results.hpp"
#include "suite_axpy.hpp"  // VariantSpec, list_variants

namespace bench {

// A type configuration of the gemm rows.
struct GemmConfig {
  std::string name;  // "f64", "f32", "tf32", "bf16", "bf16_bf16" (the rows' dtype)
  gpuopt_dtype_t a_type = GPUOPT_DTYPE_F32;
  gpuopt_dtype_t c_type = GPUOPT_DTYPE_F32;
  gpuopt_compute_t compute = GPUOPT_COMPUTE_F32;
};

enum class GemmShapeKind { kSquare, kRect, kBatched };

// One table: rows of one config and shape, sharing a vendor row.
struct GemmGroup {
  GemmConfig cfg;
  GemmShapeKind kind = GemmShapeKind::kSquare;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::vector<VariantSpec> variants;  // in ladder order, the vendor included, "auto" last
  std::string reference;              // the vendor variant that computes the f64 reference
  double bar_min = 0.0;               // floor of best own / cublas and best own / best vendor
  bool auto_bar = false;  // every variant and auto are measured: the "auto ran the fastest" bar
};

// "textbook" rungs: run only on square problems up to n = 4096 unless named by --variants.
bool is_textbook_gemm(const std::string& variant);

// The groups the options ask for, in run order (empty unless opt.wants_op("gemm")).
std::vector<GemmGroup> plan_gemm(const Options& opt, const std::vector<VariantSpec>& table);

// Rows (progress steps) of the groups.
int gemm_row_count(const std::vector<GemmGroup>& groups);

// "4096x4096x4096", "8192x8192x1024", "512x(256x256x256)".
std::string gemm_shape_name(const GemmGroup& g);

// The fields every row of the group shares (op, dtype, shape, sizes, types, flops ...).
Row gemm_row_base(const GemmGroup& g);

// Runs a group; appends one row per variant. Never throws for a failing variant: the row
// records it.
void run_gemm_group(BenchEnv& env, const GemmGroup& g, std::vector<Row>* rows);

// Appends the gemm bars (gemm_bars.hpp): per group, best own / cublas and best own / best
// vendor >= bar_min, and (g.auto_bar) auto ran the fastest correct variant within 3% (2% with a
// tuning cache).
void compute_gemm_bars(Results& r, const std::vector<GemmGroup>& groups);

}  // namespace bench
