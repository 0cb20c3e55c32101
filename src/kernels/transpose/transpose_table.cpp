// The transpose variant table and its dispatch rule (see transpose.hpp).
#include "common/launch.hpp"
#include "kernels/transpose/transpose.hpp"
#include "kernels/variant_row.hpp"

namespace gpuopt {
namespace {

using Row = VariantRow<TransposeProblem>;

constexpr unsigned kAll =
    dtype_bit(GPUOPT_DTYPE_F32) | dtype_bit(GPUOPT_DTYPE_F64) | dtype_bit(GPUOPT_DTYPE_BF16);
constexpr unsigned kF32 = dtype_bit(GPUOPT_DTYPE_F32);
constexpr unsigned kBlas = dtype_bit(GPUOPT_DTYPE_F32) | dtype_bit(GPUOPT_DTYPE_F64);

// One thread per element, 32 x 32 or 64 x 64 tiles: grid.x covers rows.
const char* can_grid_x(const TransposeProblem& p, const DeviceDesc&) {
  if (p.rows > kMaxGridX * 32) return "rows exceed one grid row of 32-wide blocks";
  return nullptr;
}

// Ranks (higher wins among the variants that can run the problem; the fixed ones in the table:
// naive 1, smem_padded 2, smem_swizzled 30, cublas 0), from the H200 runs
// (sm80_vec_tile and sm90_tma_onetile: the H100 run of pass 4, below)
// (docs/notes/history/transpose-rounds.md): f32 16384^2 (501114a) sm90_tma (two-box tiles, .cs
// stores) 3876 GB/s > sm90_tma_store 3727 > smem_padded 3148 > smem_swizzled 2872; f64 16384 x 8192
// (d90ef43, 501114a) smem_swizzled 3943 / 3941 > sm90_tma 3750 / 3694; bf16 32768 x 16384 (d90ef43)
// smem_swizzled 3367 > sm90_tma 2827. Textbook rungs at the bottom. cublas (f32 3971 GB/s, the
// fastest there) is never chosen automatically: geam is arithmetic and does not return NaN
// payloads bit for bit (signaling NaNs come back quiet), while every own variant copies bits;
// force it by name.
int pref_tma(const TransposeProblem& p, const DeviceDesc&) {
  return p.dtype == GPUOPT_DTYPE_F32 ? 40 : 20;
}
int pref_tma_store(const TransposeProblem& p, const DeviceDesc&) {
  return p.dtype == GPUOPT_DTYPE_F32 ? 35 : 10;
}
// Pass 4 (H100, 044bf0f, docs/notes/history/transpose-rounds.md): sm80_vec_tile f32 16384^2 0.7408
// ms, the fastest row (cublas 0.7433, sm90_tma_onetile 0.7481, sm90_tma 0.7636), bf16 2769 GB/s >
// smem_swizzled 2710 > sm90_tma_onetile 2509 > sm90_tma 2325; f64 vec_tile 2885 = smem_swizzled
// 2884 > onetile 2851 > sm90_tma 2706. vec_tile ranks first for f32 and bf16 where its pair path
// runs (pair-aligned operands and pitches); elsewhere it copies element by element, below
// smem_swizzled's vector path.
int pref_vec_tile(const TransposeProblem& p, const DeviceDesc&) {
  if (!transpose_vec_tile_pairs(p) || p.dtype == GPUOPT_DTYPE_F64) return 15;
  return p.dtype == GPUOPT_DTYPE_F32 ? 45 : 35;
}
int pref_tma_onetile(const TransposeProblem& p, const DeviceDesc&) {
  return p.dtype == GPUOPT_DTYPE_F32 ? 42 : 22;
}

constexpr Variant<TransposeProblem> kTable[] = {
    Row("naive", "one thread per element: coalesced reads, strided writes", kAll)
        .can(can_grid_x)
        .rank<1>()
        .launch(transpose_launch_naive),
    Row("smem_padded", "32x32 shared tile padded to 33 columns, 4 elements per thread", kAll)
        .can(can_grid_x)
        .rank<2>()
        .launch(transpose_launch_smem_padded),
    Row("smem_swizzled",
        "16x16-chunk XOR-swizzled shared tile, 16-byte vector loads and stores where aligned", kAll)
        .rank<30>()
        .launch(transpose_launch_smem_swizzled),
    Row("sm90_tma",
        "persistent CTAs, TMA tile loads (128B swizzle, f32 two boxes) through an mbarrier ring, "
        "vector stores (f32 st.global.cs)",
        kAll)
        .sm90a()
        .can(transpose_can_sm90_tma)
        .rank(pref_tma)
        .launch(transpose_launch_sm90_tma),
    Row("sm90_tma_store",
        "sm90_tma with TMA stores of the transposed tile from a shared output tile", kF32)
        .sm90a()
        .can(transpose_can_sm90_tma)
        .rank(pref_tma_store)
        .launch(transpose_launch_sm90_tma_store),
    Row("sm80_vec_tile",
        "one 64x64 tile per CTA, 8-byte f32 pairs (256-byte runs per warp on both sides), "
        "streaming loads and .cs stores",
        kAll)
        .min_sm(80)
        .can(can_grid_x)
        .rank(pref_vec_tile)
        .launch(transpose_launch_sm80_vec_tile),
    Row("sm90_tma_onetile",
        "sm90_tma's TMA tiles and stores with one CTA per tile (no persistence)", kAll)
        .sm90a()
        .can(transpose_can_sm90_tma)
        .rank(pref_tma_onetile)
        .launch(transpose_launch_sm90_tma_onetile),
    Row("cublas", "cublasSgeam_64 / cublasDgeam_64 (vendor)", kBlas)
        .vendor()
        .launch(transpose_launch_cublas),
};

}  // namespace

const Variant<TransposeProblem>* transpose_variants(int* count) {
  return table_entries(kTable, count);
}

}  // namespace gpuopt
