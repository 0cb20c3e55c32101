// The gemm variant table and its dispatch rule (see gemm.hpp).
#include <algorithm>
#include <cstdint>

#include "kernels/gemm/f64_tensorcore_build.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/variant_row.hpp"

namespace gpuopt {
namespace {

using Row = VariantRow<GemmProblem>;

constexpr unsigned kAllTypes = dtype_bit(GPUOPT_DTYPE_F64) | dtype_bit(GPUOPT_DTYPE_F32) |
                               dtype_bit(GPUOPT_DTYPE_BF16) | dtype_bit(GPUOPT_DTYPE_F16);

const char* naive_can(const GemmProblem& p, const DeviceDesc&) {
  if (p.n > 65535LL * 16) return "n exceeds the naive grid (65535 blocks of 16 columns)";
  return nullptr;
}

// Small single exact-f32 products: smem_tiled above the vendor rungs. There the call is all
// latency, and on the H100 (2000 back-to-back calls, lead's probe of 883c118) smem_tiled ran
// 64^3 in 3.87 us per call against cublasSgemm's 9.03 and 256^3 in 10.76 against 18.62 (GPU
// time; cuBLAS's own host cost alone is 9-19 us there). Measured at 64^3 and 256^3 only: the
// bound 2^24 = 256^3 keeps it where it was measured (at 512^3 its device time grows ~8x).
int smem_tiled_pref(const GemmProblem& p, const DeviceDesc&) {
  const bool exact_f32 = p.a_type == GPUOPT_DTYPE_F32 && p.c_type == GPUOPT_DTYPE_F32 &&
                         p.compute == GPUOPT_COMPUTE_F32;
  constexpr std::int64_t kSmall = std::int64_t{1} << 24;
  // Each factor bounded first, so the products cannot overflow.
  const bool small = p.batch <= 1 && p.m <= kSmall && p.n <= kSmall && p.k <= kSmall &&
                     p.m * p.n <= kSmall && p.m * p.n * p.k <= kSmall;
  return exact_f32 && small ? 105 : 10;
}
// The share of the last wave's multiprocessors a grid of 128 x 256 tiles over an m x n C keeps
// busy (1: the tiles fill whole waves of sm_count): how well the vendor's large tf32 kernels
// use the device at the cap.
double vendor_wave_fill(std::int64_t m, std::int64_t n, int sm_count) {
  if (sm_count < 1) return 1.0;
  const std::int64_t tiles = ((m + 127) / 128) * ((n + 255) / 256);
  const std::int64_t waves = (tiles + sm_count - 1) / sm_count;
  return static_cast<double>(tiles) / static_cast<double>(waves * sm_count);
}

// sm90_tma_wgmma above the vendor rungs where it was measured ahead (H100), three shape classes:
// - Large single 16-bit products with an f32 C and 1024 <= k <= 2048 (the ping-pong schedule).
//   With the staged epilogue (C in whole 128-byte lines, docs/notes/gemm-sm90.md), which weighs
//   most where k is short, the H100 bench of e4c8a03 ran bf16 8192 x 8192 x 1024 at 1.072x cuBLAS
//   re-timed interleaved (0.2113 against 0.2266 ms; the helpers' probes 1.096-1.137x); before it,
//   0.87x (H100) and 0.97x (H200). bf16 C there: 0.937x, so the vendor runs.
// - Large single products with m, n, k >= 8192 (the cooperative schedule with the stream-K tail
//   of the last partial wave): bf16 / f16 with an f32 or 16-bit C. H100 harness
//   (interleaved with cuBLAS and cuBLASLt's heuristic choice): own / best vendor 1.032-1.042 bf16
//   8192^3; the bench of 8af202a had the kernel without the tail at 1.005 (bf16) and 1.021
//   (bf16 C) of cuBLAS. Not measured on the H200 since the staged
//   epilogue and the tail (0.94x at 8192^3 before both); a tuning cache corrects a device where
//   the vendor is faster. 16-bit below 8192 (own / best vendor 0.98-1.00 at 4096-6144, 0.88 at
//   5120^3, 0.78 at 5000^3), tf32 in other layouts, batches: the vendor runs.
// - tf32 NN single products with m, n, k >= 4096 where cuBLAS's kernel is weak: its 128 x 256
//   tiles fill the last wave of the device's SMs poorly (below 95 %), or k < max(m, n) on a
//   non-square product. Measured at the board's power cap (H100, bench gemm re-timing with 100 ms
//   of warm-up per turn, own / best vendor): 4100^3 1.117 (wave fill 0.85), 5000^3 1.070 and
//   5120^3 1.067 (0.87); behind where the waves fill: 4096^3 0.975, 4608^3 0.970, 6144^3 0.976,
//   8192^3 0.970-0.991 (0.97-0.98). Without warm-up (each kernel timed at the clock the other
//   left, cycles alone) the rung had read 1.02-1.05 there too; at the cap its extra energy per
//   FLOP lowers its clock (docs/notes/gemm-f64.md, "At the power cap"). The non-square clause is
//   from that older protocol only, with margins the cap cannot close: 4096 x 8192 x 4096 1.219,
//   8192^2 x 4096 1.248 (4096^2 x 6000, 1.019, stays with the vendor). TT: only m, n, k >= 8192
//   (8192^3 1.136 then; 1.000-1.033 at other shapes, within the cap's 6-8 %). TN is mixed and NT
//   refused: the vendor keeps them.
int sm90_tma_wgmma_pref(const GemmProblem& p, const DeviceDesc& dev) {
  const bool half_in = p.a_type == GPUOPT_DTYPE_BF16 || p.a_type == GPUOPT_DTYPE_F16;
  const bool single = p.batch <= 1;
  const bool pingpong_class = half_in && p.c_type == GPUOPT_DTYPE_F32 && single && p.m >= 8192 &&
                              p.n >= 8192 && p.k >= 1024 && p.k <= 2048;
  const bool tf32 = p.a_type == GPUOPT_DTYPE_F32 && p.compute == GPUOPT_COMPUTE_TF32;
  const bool tf32_nn = tf32 && p.trans_a == GPUOPT_TRANS_N && p.trans_b == GPUOPT_TRANS_N;
  const bool tf32_tt = tf32 && p.trans_a == GPUOPT_TRANS_T && p.trans_b == GPUOPT_TRANS_T;
  const bool stream_k_class = half_in && single && p.m >= 8192 && p.n >= 8192 && p.k >= 8192;
  const bool tf32_large = single && p.m >= 4096 && p.n >= 4096 && p.k >= 4096;
  const bool vendor_weak =
      vendor_wave_fill(p.m, p.n, dev.sm_count) < 0.95 || (p.m != p.n && p.k < std::max(p.m, p.n));
  const bool tf32_class = (tf32_nn && tf32_large && vendor_weak) ||
                          (tf32_tt && single && p.m >= 8192 && p.n >= 8192 && p.k >= 8192);
  return pingpong_class || stream_k_class || tf32_class ? 101 : 80;
}
// f64_tensorcore above the vendor rungs for single NN f64 products with m, n, k >= 4096 on cc 9.0
// where the build holds the warp-specialized sm_90a kernel (the one-role kernel that runs
// otherwise read 0.93x of cuBLAS). Large f64 GEMMs run at the
// H100's 700 W power cap, where the clock follows energy per GEMM: the own kernel takes the same
// cycles as cuBLAS's and 3-4% less energy (4096^3: 1.76 against 1.84 J), so it holds a higher
// clock. H100, two boards, each kernel back to back with the first second dropped, own / cuBLAS:
// 1.036-1.037 at 4096^3, 1.024-1.029 at 8192^3; interleaved with >= 50 ms of warm-up per turn
// 1.03-1.055 (docs/notes/history/f64-power.md). The 2-call interleave and separate rows had
// read 0.94-1.09 (the clock of whatever ran before). Other layouts, smaller shapes, batches and
// sm_80 (the m8n8k4 kernel) are not measured that way: the vendor keeps them.
int f64_tensorcore_pref(const GemmProblem& p, const DeviceDesc& dev) {
  const bool nn = p.trans_a == GPUOPT_TRANS_N && p.trans_b == GPUOPT_TRANS_N;
  const bool large = p.m >= 4096 && p.n >= 4096 && p.k >= 4096;
  const bool ws = dev.cc == 90 && gemm_f64_tensorcore_ws_built();
  return ws && nn && large && p.batch <= 1 ? 101 : 70;
}
// cublaslt above every other rung where its own rule runs an algorithm other than the
// heuristic's first (gemm_cublaslt_rule_tile: bf16 m, n >= 8192, k = 1024, where the 128 x 160
// algorithm ran 1.08-1.19 x the heuristic's first on the H100, ahead of cuBLAS and of the sm90
// rung's ping-pong schedule, 0.211 against 0.193 ms in the helper's probe; bf16 batches of 256^3
// products, where the 128 x 64 one ran 1.028 x, 1.010 x with a bf16 C); elsewhere just below
// cuBLAS.
int cublaslt_pref(const GemmProblem& p, const DeviceDesc& dev) {
  return gemm_cublaslt_rule_tile(p, dev) != 0 ? 102 : 99;
}
constexpr unsigned kF64 = dtype_bit(GPUOPT_DTYPE_F64);
constexpr unsigned kSimtTypes = dtype_bit(GPUOPT_DTYPE_F32) | kF64;
constexpr unsigned kWgmmaTypes =
    dtype_bit(GPUOPT_DTYPE_BF16) | dtype_bit(GPUOPT_DTYPE_F16) | dtype_bit(GPUOPT_DTYPE_F32);

constexpr Variant<GemmProblem> kTable[] = {
    Row("naive", "one thread per element of C, operands from global memory", kAllTypes)
        .can(naive_can)
        .launch(gemm_launch_naive),
    Row("smem_tiled", "16x16 shared-memory tiles, one output per thread", kSimtTypes)
        .can(gemm_can_simt_exact)
        .rank(smem_tiled_pref)
        .launch(gemm_launch_smem_tiled),
    Row("smem_coalesced_padded",
        "32x32 shared-memory tiles, loads coalesced per operand layout, +1 padding (no bank "
        "conflicts)",
        kSimtTypes)
        .can(gemm_can_simt_exact)
        .rank<20>()
        .launch(gemm_launch_smem_coalesced_padded),
    Row("register_blocked",
        "128x128 (f64 64x64) block tiles, 8x8 (4x4) register tiles per thread, 16-byte vector "
        "loads when aligned",
        kSimtTypes)
        .can(gemm_can_simt_exact)
        .rank<30>()
        .launch(gemm_launch_register_blocked),
    Row("warptiled_cpasync",
        "warp tiles with 8x8 (f64 8x4) register tiles, 3-4 stage cp.async pipeline, padded "
        "shared tiles (needs 16-byte alignment)",
        kSimtTypes)
        .min_sm(80)
        .can(gemm_can_warptiled_cpasync)
        .rank<40>()
        .launch(gemm_launch_warptiled_cpasync),
    // Below cuBLAS except where f64_tensorcore_pref says (measured at the power cap, above).
    Row("f64_tensorcore",
        "f64 tensor cores: mma.sync m16n8k16 (sm_90; on sm_90a a cp.async producer warpgroup "
        "and mbarrier ring) / m8n8k4 (sm_80), 128x128 tiles, 3-stage cp.async, conflict-free "
        "padded/swizzled shared tiles (needs 16-byte alignment)",
        kF64)
        .min_sm(80)
        .can(gemm_can_f64_tensorcore)
        .rank(f64_tensorcore_pref)
        .launch(gemm_launch_f64_tensorcore),
    Row("sm90_tma_wgmma",
        "TMA 128B-swizzled 4-stage mbarrier ring, producer + 2 consumer warpgroups (setmaxnreg), "
        "wgmma m64n256, persistent grouped tile order",
        kWgmmaTypes)
        .sm90a()
        // no can_implement: its plan step checks the problem
        .plan(gemm_plan_sm90_tma_wgmma)
        .configs(kSm90TmaWgmmaConfigs)
        // Above the vendor rungs only in the two shape classes of sm90_tma_wgmma_pref (measured
        // ahead there); elsewhere below both, as the bench rows measured it. A tuning
        // cache (docs/tuning.md) still picks it where it times faster.
        .rank(sm90_tma_wgmma_pref)
        .launch(gemm_launch_sm90_tma_wgmma),
    // cuBLAS measured fastest for every type on the H200 (docs/notes/gemm.md), so auto ranks it
    // first; an own rung moves above it only after the bench shows it faster.
    Row("cublas", "cublasGemmEx_64 / cublasGemmStridedBatchedEx_64 (vendor)", kAllTypes)
        .vendor()
        .rank<100>()
        .launch(gemm_launch_cublas),
    // cuBLASLt just below cuBLAS for every type and shape but cublaslt_pref's: torch.matmul
    // calls cuBLAS for every dtype (cuBLASLt only with TORCH_BLAS_PREFER_CUBLASLT=1 or a bias
    // epilogue), and cublasGemmEx runs the heuristic's first choice as this rung's rule does
    // outside that class (the bench times both; a tuning cache picks the faster where they
    // differ). The rule's algorithm depends on the problem, so no configuration is its own.
    Row("cublaslt",
        "cublasLtMatmul, heuristic algorithm cached per problem class (a measured tile where the "
        "first ranked is slow), alignment hints, the stream's 32 MiB (Hopper) cuBLAS workspace "
        "(vendor)",
        kAllTypes)
        .vendor()
        .can(gemm_can_cublaslt)
        .configs(kCublasLtConfigs)
        .rank(cublaslt_pref)
        .launch(gemm_launch_cublaslt),
};

}  // namespace

const Variant<GemmProblem>* gemm_variants(int* count) { return table_entries(kTable, count); }

}  // namespace gpuopt
