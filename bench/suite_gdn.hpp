// The gdn rows (gpuopt_gdn_forward / gpuopt_gdn_backward) at the shape: N = 32 images,
// C = 256 channels, 64 x 64 pixels (N = 4 with --quick), for each pass x {f32, tf32}: composed
// (the cuBLAS-based baseline, this group's "vendor"), the fused variants and auto. One set of
// random inputs serves every row; each row checks one call against a host f64 reference computed
// once with all host cores (y, dx, dbeta, dgamma over every pixel), then times the call. Bars:
// composed ms / fused ms >= 2.5 for each pass and mode (issue 19).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "env.hpp"
#include "results.hpp"
#include "suite_axpy.hpp"  // VariantSpec

namespace bench {

struct GdnGroup {
  bool backward = false;
  bool tf32 = false;
  std::int64_t n = 32, c = 256, h = 64, w = 64;
  std::vector<VariantSpec> variants;  // composed, the fused variants, auto (as asked)
};

std::vector<GdnGroup> plan_gdn(const Options& opt, const std::vector<VariantSpec>& table);
int gdn_row_count(const std::vector<GdnGroup>& groups);

// Runs every group (they share inputs and the reference); appends one row per variant.
void run_gdn_groups(BenchEnv& env, const std::vector<GdnGroup>& groups, std::vector<Row>* rows);

void compute_gdn_bars(Results& r, const std::vector<GdnGroup>& groups);

}  // namespace bench
