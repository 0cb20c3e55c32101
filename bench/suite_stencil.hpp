// The stencil rows (gpuopt_stencil), f32, zero boundary, one group per table:
// - 2D star r = 8 (16th order), 16384 x 16384 (4096^2 with --quick): naive, smem_sync,
//   sm80_cpasync_unstaged, sm80_cpasync, sm90_tma, auto;
// - 3D star r = 4 (8th order), 512^3 (256^3 with --quick): naive, zmarch_sync, sm90_zmarch_tma,
//   sm90_zmarch_fwd, sm90_zmarch_fwd_sweep, auto; random data on device memory;
// - the same 3D problem on a smooth field (piecewise constant: steps of 1/8 every 32 cells along
//   each axis), once on device memory and once on compressible buffers (gpuopt_buffer_create
//   with GPUOPT_MEMORY_COMPRESSIBLE): the gain is compressible GB/s over device GB/s.
// GB/s counts one read and one write of the grid; share_of_roof divides by the copy roof of the
// same run; the note carries MCells/s. A row forces its variant, checks one call at 20000 random
// points (and the corners) against a host f64 reference from the same generator, then times it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "env.hpp"
#include "results.hpp"
#include "suite_axpy.hpp"  // VariantSpec, list_variants

namespace bench {

struct StencilGroup {
  int dims = 2;
  int radius = 8;
  std::int64_t nx = 0, ny = 0, nz = 1;
  gpuopt_memory_kind_t memory = GPUOPT_MEMORY_DEVICE;
  bool smooth = false;                // smooth field instead of random data
  std::vector<VariantSpec> variants;  // ladder order, "auto" last
};

std::vector<StencilGroup> plan_stencil(const Options& opt, const std::vector<VariantSpec>& table);
int stencil_row_count(const std::vector<StencilGroup>& groups);
void run_stencil_group(BenchEnv& env, const StencilGroup& g, std::vector<Row>* rows);

// The bars: 2D r=8 auto >= 0.9 of the copy roof (issue 19) and sm90_tma >= 1.3 x smem_sync;
// 3D r=4 auto >= 0.85 of the copy roof (issue 19); the compressible gain (reported, no threshold).
void compute_stencil_bars(Results& r, const std::vector<StencilGroup>& groups);

}  // namespace bench
