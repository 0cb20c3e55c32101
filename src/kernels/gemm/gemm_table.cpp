// The gemm variant table and its dispatch rule (see gemm.hpp).
#include <cstdint>

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
// - tf32 NN and TT single products with m, n, k >= 4096: cuBLAS's tf32 kernels fall well short of
//   8192^3's rate at other sizes. The lead's H100 probe (interleaved with cublasGemmEx and
//   cuBLASLt's heuristic choice, 11 rounds of 10 calls, own / best vendor): 4096^3 1.023,
//   4608^3 1.019, 5000^3 1.105, 4100^3 1.140, 5120^3 1.115, 6144^3 1.038, 4096^2 x 6000 1.019,
//   4096 x 8192 x 4096 1.219, 8192^2 x 4096 1.248; 8192^3 1.053 (helper harness), 1.026 (bench).
//   TT (register-P path), same probe: 4096^3 1.021-1.027, 5000^3 1.000, 6144^3 1.033, 8192^3
//   1.136, 4096 x 8192 x 4096 1.016, 8192^2 x 4096 1.032: also above. TN is mixed (1.022-1.032
//   at 4096^3, 6144^3, 8192^3 and 8192^2 x 4096, but 0.948 at 5000^3 and 0.984 at 4096 x 8192 x
//   4096), so the vendor keeps it; NT is refused. At 4096^3 itself (and below it in work) the
//   vendor keeps the product: three of four timing methods had cuBLAS ahead there (H100, 457b81c:
//   gpuopt_tune's head-to-head chose cublaslt over this rung by more than its 1 % rule margin,
//   torch.matmul / auto 0.984 in the torch helper, separate rows 0.975), only the 4 ms interleave
//   the rung (1.020); 4100^3, 4608^3 and every larger shape measured stay with the rung.
int sm90_tma_wgmma_pref(const GemmProblem& p, const DeviceDesc&) {
  const bool half_in = p.a_type == GPUOPT_DTYPE_BF16 || p.a_type == GPUOPT_DTYPE_F16;
  const bool single = p.batch <= 1;
  const bool pingpong_class = half_in && p.c_type == GPUOPT_DTYPE_F32 && single && p.m >= 8192 &&
                              p.n >= 8192 && p.k >= 1024 && p.k <= 2048;
  const bool tf32 = p.a_type == GPUOPT_DTYPE_F32 && p.compute == GPUOPT_COMPUTE_TF32;
  const bool tf32_nn = tf32 && p.trans_a == GPUOPT_TRANS_N && p.trans_b == GPUOPT_TRANS_N;
  const bool tf32_tt = tf32 && p.trans_a == GPUOPT_TRANS_T && p.trans_b == GPUOPT_TRANS_T;
  const bool stream_k_class = half_in && single && p.m >= 8192 && p.n >= 8192 && p.k >= 8192;
  const bool tf32_class = (tf32_nn || tf32_tt) && single && p.m >= 4096 && p.n >= 4096 &&
                          p.k >= 4096 && p.m * p.n * p.k > 4096LL * 4096 * 4096;
  return pingpong_class || stream_k_class || tf32_class ? 101 : 80;
}
// f64_tensorcore above the vendor rungs for single NN f64 products with m, n, k >= 4096 on
// cc 9.x (the sm_90 m16n8k16 kernel; warp-specialized on sm_90a). Large f64 GEMMs run at the
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
  return dev.cc >= 90 && dev.cc < 100 && nn && large && p.batch <= 1 ? 101 : 70;
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
    // cuBLASLt just below cuBLAS for every type and shape: torch.matmul calls cuBLAS for every
    // dtype (cuBLASLt only with TORCH_BLAS_PREFER_CUBLASLT=1 or a bias epilogue), and
    // cublasGemmEx runs the heuristic's first choice as this rung does. To be confirmed per dtype
    // by a GPU run (the bench times both; a tuning cache picks the faster where they differ).
    Row("cublaslt",
        "cublasLtMatmul, heuristic algorithm cached per problem class, alignment hints, the "
        "stream's 32 MiB (Hopper) cuBLAS workspace (vendor)",
        kAllTypes)
        .vendor()
        .can(gemm_can_cublaslt)
        .configs(kCublasLtConfigs, /*rule=*/0)
        .rank<99>()
        .launch(gemm_launch_cublaslt),
};

}  // namespace

const Variant<GemmProblem>* gemm_variants(int* count) { return table_entries(kTable, count); }

}  // namespace gpuopt
