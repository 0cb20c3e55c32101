// The stencil variant table and its dispatch rule (see stencil.hpp).
#include <climits>
#include <cstdint>

#include "kernels/stencil/stencil.hpp"
#include "kernels/variant_row.hpp"

namespace gpuopt {
namespace {

using Row = VariantRow<StencilProblem>;

constexpr unsigned kTypes = dtype_bit(GPUOPT_DTYPE_F32) | dtype_bit(GPUOPT_DTYPE_F64);

const char* need_2d(const StencilProblem& p) {
  return p.dims == 2 ? nullptr : "2D only (3D problems run on the zmarch rungs or naive)";
}
const char* need_3d(const StencilProblem& p) {
  return p.dims == 3 ? nullptr : "3D only (2D problems run on the 2D rungs or naive)";
}

const char* can_naive(const StencilProblem&, const DeviceDesc&) { return nullptr; }

const char* can_smem_sync(const StencilProblem& p, const DeviceDesc&) {
  if (const char* why = need_2d(p)) return why;
  if ((p.ny + 7) / 8 > 65535) return "ny above 524280 exceeds the grid's y dimension";
  return nullptr;
}

const char* can_cpasync(const StencilProblem& p, const DeviceDesc& dev) {
  if (const char* why = need_2d(p)) return why;
  // Both cp.async rungs launch one kernel whose shared-memory cap is the two-stage size.
  return stencil_smem_can(stencil_cpasync_smem(p, 2), dev);
}

const char* can_tma2d(const StencilProblem& p, const DeviceDesc& dev,
                      const stencil::Tma2dParams& c) {
  if (const char* why = need_2d(p)) return why;
  if (const char* why = stencil_tma_can(p)) return why;
  return stencil_smem_can(stencil_tma2d_smem(p, c), dev);
}
template <const stencil::Tma2dParams& C>
const char* can_tma2d_cfg(const StencilProblem& p, const DeviceDesc& dev) {
  return can_tma2d(p, dev, C);
}

const char* can_zmarch_blocks(const StencilProblem& p) {
  // Blocks = xy tiles x z-chunks (at most nz); keep the 1D grid within int32.
  const std::int64_t tiles = ((p.nx + 127) / 128 + 1) * ((p.ny + 7) / 8);
  if (p.nz > 0 && tiles > INT_MAX / p.nz) return "too many xy tiles times z-planes for the grid";
  return nullptr;
}

const char* can_zmarch_sync(const StencilProblem& p, const DeviceDesc&) {
  if (const char* why = need_3d(p)) return why;
  return can_zmarch_blocks(p);
}

const char* can_sm90_zmarch_tma(const StencilProblem& p, const DeviceDesc& dev) {
  if (const char* why = need_3d(p)) return why;
  if (const char* why = can_zmarch_blocks(p)) return why;
  if (const char* why = stencil_tma_can(p)) return why;
  return stencil_smem_can(stencil_tma3d_smem(p), dev);
}

const char* can_fwd(const StencilProblem& p, const DeviceDesc& dev, const stencil::FwdParams& c) {
  if (const char* why = need_3d(p)) return why;
  if (const char* why = can_zmarch_blocks(p)) return why;
  if (const char* why = stencil_tma_can(p)) return why;
  if (!stencil::fwd_config_supported(static_cast<int>(p.elem()), p.radius, c))
    return c.x_split ? "x-split stages take r <= 6 (above, registers spill): "
                       "sm90_zmarch_fwd_chunks takes the others"
                     : "clusters take r <= 4 whose halo boxes start 128-byte aligned in shared "
                       "memory (f32 r = 2, 4; f64 r = 2, 3, 4): sm90_zmarch_fwd_chunks takes "
                       "the others";
  return stencil_smem_can(stencil_tma3d_fwd_smem(p, c), dev);
}
template <const stencil::FwdParams& C>
const char* can_fwd_cfg(const StencilProblem& p, const DeviceDesc& dev) {
  return can_fwd(p, dev, C);
}

// The checks of the rungs that share a kernel and differ in its configuration.
constexpr auto can_sm90_tma = can_tma2d_cfg<stencil::kTma2dOneTile>;
constexpr auto can_sm90_tma_ring = can_tma2d_cfg<stencil::kTma2dRing>;
constexpr auto can_sm90_zmarch_fwd = can_fwd_cfg<stencil::kFwdTwoRows>;
constexpr auto can_sm90_zmarch_fwd_sweep = can_fwd_cfg<stencil::kFwdSweep>;
constexpr auto can_sm90_zmarch_fwd_chunks = can_fwd_cfg<stencil::kFwdChunks>;
constexpr auto can_sm90_zmarch_fwd_pairs = can_fwd_cfg<stencil::kFwdPairs>;
constexpr auto can_sm90_zmarch_fwd_xsplit = can_fwd_cfg<stencil::kFwdXsplit>;

// Ranks: ladder order within each dimensionality; naive (every problem) last. See
// docs/notes/stencil.md.
constexpr Variant<StencilProblem> kTable[] = {
    Row("naive", "one thread per output, every input read from global memory (2D and 3D)", kTypes)
        .can(can_naive)
        .rank<1>()
        .launch(stencil_launch_naive),
    Row("smem_sync",
        "2D: 32x8 tile plus halo through registers into shared memory, one output per thread",
        kTypes)
        .can(can_smem_sync)
        .rank<10>()
        .launch(stencil_launch_smem_sync),
    // The unstaged cp.async rung measured faster than the two-stage persistent one on the H200
    // (2D r=8 f32 16384^2: 2811 vs 2446 GB/s), so it ranks above it (clamp or unaligned 2D
    // problems).
    Row("sm80_cpasync_unstaged",
        "2D: cp.async tile plus halo, then 8 rows x 16 bytes per thread with register reuse "
        "along y; one tile per block, no overlap",
        kTypes)
        .min_sm(80)
        .can(can_cpasync)
        .rank<30>()
        .launch(stencil_launch_sm80_cpasync_unstaged),
    Row("sm80_cpasync",
        "2D: persistent blocks, two-stage cp.async ring (next tile in flight while computing)",
        kTypes)
        .min_sm(80)
        .can(can_cpasync)
        .rank<20>()
        .launch(stencil_launch_sm80_cpasync),
    // sm90_tma (one tile per block) measured 0.974 of copy on the H100 against the persistent
    // ring's 0.666 (docs/notes/history/stencil-rounds.md run 8); the ring ranks below it.
    Row("sm90_tma",
        "2D: one TMA tensor-map load per tile plus halo (zero fill by the copy engine), one tile "
        "per block",
        kTypes)
        .sm90a()
        .can(can_sm90_tma)
        .rank<40>()
        .launch(stencil_launch_sm90_tma),
    Row("sm90_tma_ring",
        "2D: the sm90_tma kernel with persistent blocks (grid stride) and an mbarrier ring of 2-4 "
        "stages",
        kTypes)
        .sm90a()
        .can(can_sm90_tma_ring)
        .rank<35>()
        .launch(stencil_launch_sm90_tma_ring),
    Row("zmarch_sync",
        "3D: z-marching, xy tile plus halo per plane through registers into shared memory, z "
        "neighbours in a register queue",
        kTypes)
        .can(can_zmarch_sync)
        .rank<30>()
        .launch(stencil_launch_zmarch_sync),
    Row("sm90_zmarch_tma",
        "3D: z-marching, each plane's xy tile plus halo by TMA into an mbarrier ring (r + 4 "
        "stages), z neighbours in a register queue",
        kTypes)
        .sm90a()
        .can(can_sm90_zmarch_tma)
        .rank<40>()
        .launch(stencil_launch_sm90_zmarch_tma),
    // Measured on the H200 (3D r=4 f32 512^3, docs/notes/history/stencil-rounds.md run 4):
    // fwd_sweep 3097 GB/s, fwd 2835, sm90_zmarch_tma 2669 (run 7: 3135, 2829, 2674).
    Row("sm90_zmarch_fwd",
        "3D: z-marching fed by TMA through an empty/full mbarrier ring (no block barrier), "
        "forward z partial sums in registers, 2 rows per thread (32 * W x 32 tiles)",
        kTypes)
        .sm90a()
        .can(can_sm90_zmarch_fwd)
        .rank<50>()
        .launch(stencil_launch_sm90_zmarch_fwd),
    Row("sm90_zmarch_fwd_sweep",
        "3D: forward z sums with 1 row per thread (32 * W x 16 tiles), one wave of blocks over "
        "whole z where the tiles fill the device: one read and one write sweep, no z-halo re-reads",
        kTypes)
        .sm90a()
        .can(can_sm90_zmarch_fwd_sweep)
        .rank<51>()
        .launch(stencil_launch_sm90_zmarch_fwd_sweep),
    // H100 (run 9): fwd_chunks 0.808 of copy, fwd_sweep 0.708, fwd 0.710 (DRAM re-reads of halos
    // by the drifting whole-z blocks); not measured on an H200.
    Row("sm90_zmarch_fwd_chunks",
        "3D: forward z sums with fwd_sweep's tiles on z-chunks of 64 planes dispatched xy-tile "
        "fastest: the resident blocks work on one z range, so shared halos stay in L2",
        kTypes)
        .sm90a()
        .can(can_sm90_zmarch_fwd_chunks)
        .rank<52>()
        .launch(stencil_launch_sm90_zmarch_fwd_chunks),
    // H100 (st3k probe, 2026-11-27): pairs 1.025x fwd_chunks (0.829 vs 0.809 of the copy roof).
    Row("sm90_zmarch_fwd_pairs",
        "3D: fwd_chunks in clusters of 2 tiles stacked in y; the halo rows between them are "
        "loaded once and multicast into both CTAs' rings (17% fewer L2 reads at r = 4)",
        kTypes)
        .sm90a()
        .can(can_sm90_zmarch_fwd_pairs)
        .rank<53>()
        .launch(stencil_launch_sm90_zmarch_fwd_pairs),
    // H100 (st3k2 probe, 2026-11-27): xsplit 1.069x pairs, 1.089x fwd_chunks (0.881 of copy).
    Row("sm90_zmarch_fwd_xsplit",
        "3D: fwd_chunks with each plane loaded as the tile's interior columns plus two x-halo "
        "boxes: whole 128-byte lines of L2 and half the L2 requests of the whole-tile box (r <= 6)",
        kTypes)
        .sm90a()
        .can(can_sm90_zmarch_fwd_xsplit)
        .rank<54>()
        .launch(stencil_launch_sm90_zmarch_fwd_xsplit),
};

}  // namespace

const Variant<StencilProblem>* stencil_variants(int* count) { return table_entries(kTable, count); }

}  // namespace gpuopt
