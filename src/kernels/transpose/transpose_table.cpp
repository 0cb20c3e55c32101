// The transpose variant table and its dispatch rule (see transpose.hpp).
#include "common/launch.hpp"
#include "kernels/transpose/transpose.hpp"

namespace gpuopt {
namespace {

constexpr unsigned kAll =
    dtype_bit(GPUOPT_DTYPE_F32) | dtype_bit(GPUOPT_DTYPE_F64) | dtype_bit(GPUOPT_DTYPE_BF16);
constexpr unsigned kF32 = dtype_bit(GPUOPT_DTYPE_F32);
constexpr unsigned kBlas = dtype_bit(GPUOPT_DTYPE_F32) | dtype_bit(GPUOPT_DTYPE_F64);

// One thread per element, 32 x 32 or 64 x 64 tiles: grid.x covers rows.
const char* can_grid_x(const TransposeProblem& p, const DeviceDesc&) {
  if (p.rows > kMaxGridX * 32) return "rows exceed one grid row of 32-wide blocks";
  return nullptr;
}

// Ranks (higher wins among the variants that can run the problem), from the H200 runs
// (sm80_vec_tile and sm90_tma_onetile: the H100 run of pass 4, below)
// (docs/notes/history/transpose-rounds.md): f32 16384^2 (501114a) sm90_tma (two-box tiles, .cs
// stores) 3876 GB/s > sm90_tma_store 3727 > smem_padded 3148 > smem_swizzled 2872; f64 16384 x 8192
// (d90ef43, 501114a) smem_swizzled 3943 / 3941 > sm90_tma 3750 / 3694; bf16 32768 x 16384 (d90ef43)
// smem_swizzled 3367 > sm90_tma 2827. Textbook rungs at the bottom. cublas (f32 3971 GB/s, the
// fastest there) is never chosen automatically: geam is arithmetic and does not return NaN
// payloads bit for bit (signaling NaNs come back quiet), while every own variant copies bits;
// force it by name.
int pref_naive(const TransposeProblem&, const DeviceDesc&) { return 1; }
int pref_padded(const TransposeProblem&, const DeviceDesc&) { return 2; }
int pref_swizzled(const TransposeProblem&, const DeviceDesc&) { return 30; }
int pref_tma(const TransposeProblem& p, const DeviceDesc&) {
  return p.dtype == GPUOPT_DTYPE_F32 ? 40 : 20;
}
int pref_tma_store(const TransposeProblem& p, const DeviceDesc&) {
  return p.dtype == GPUOPT_DTYPE_F32 ? 35 : 10;
}
int pref_cublas(const TransposeProblem&, const DeviceDesc&) { return 0; }
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

const Variant<TransposeProblem> kTable[] = {
    {{"naive", "one thread per element: coalesced reads, strided writes", 0, 0, false, kAll},
     can_grid_x,
     pref_naive,
     transpose_launch_naive},
    {{"smem_padded", "32x32 shared tile padded to 33 columns, 4 elements per thread", 0, 0, false,
      kAll},
     can_grid_x,
     pref_padded,
     transpose_launch_smem_padded},
    {{"smem_swizzled",
      "16x16-chunk XOR-swizzled shared tile, 16-byte vector loads and stores where aligned", 0, 0,
      false, kAll},
     nullptr,
     pref_swizzled,
     transpose_launch_smem_swizzled},
    {{"sm90_tma",
      "persistent CTAs, TMA tile loads (128B swizzle, f32 two boxes) through an mbarrier ring, "
      "vector stores (f32 st.global.cs)",
      90, 90, false, kAll},
     transpose_can_sm90_tma,
     pref_tma,
     transpose_launch_sm90_tma},
    {{"sm90_tma_store", "sm90_tma with TMA stores of the transposed tile from a shared output tile",
      90, 90, false, kF32},
     transpose_can_sm90_tma,
     pref_tma_store,
     transpose_launch_sm90_tma_store},
    {{"sm80_vec_tile",
      "one 64x64 tile per CTA, 8-byte f32 pairs (256-byte runs per warp on both sides), "
      "streaming loads and .cs stores",
      80, 0, false, kAll},
     can_grid_x,
     pref_vec_tile,
     transpose_launch_sm80_vec_tile},
    {{"sm90_tma_onetile", "sm90_tma's TMA tiles and stores with one CTA per tile (no persistence)",
      90, 90, false, kAll},
     transpose_can_sm90_tma,
     pref_tma_onetile,
     transpose_launch_sm90_tma_onetile},
    {{"cublas", "cublasSgeam_64 / cublasDgeam_64 (vendor)", 0, 0, true, kBlas},
     nullptr,
     pref_cublas,
     transpose_launch_cublas},
};

}  // namespace

const Variant<TransposeProblem>* transpose_variants(int* count) {
  *count = static_cast<int>(sizeof kTable / sizeof kTable[0]);
  return kTable;
}

}  // namespace gpuopt
