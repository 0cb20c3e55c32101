// The gdn variant table and its dispatch rule (see gdn.hpp).
#include "kernels/gdn/gdn.hpp"
#include "kernels/variant_row.hpp"
#include "runtime/error.hpp"

namespace gpuopt {
namespace {

using Row = VariantRow<GdnProblem>;

constexpr unsigned kF32 = dtype_bit(GPUOPT_DTYPE_F32);

// The fused kernels index tiles with 32-bit grid.x: refuse what does not fit (never in practice).
const char* sm80_mma_fused_can(const GdnProblem& p, const DeviceDesc& dev) {
  if (dev.smem_optin < kGdnFusedSmemBytes)
    return "needs 108 KiB of shared memory per block (sm_80, sm_90)";
  if (p.n == 0 || p.p == 0) return nullptr;  // empty: launches nothing (N or H * W may be huge)
  const std::int64_t tiles = (p.c + kGdnTile - 1) / kGdnTile;
  const std::int64_t ptiles = (p.p + kGdnTile - 1) / kGdnTile;
  const std::int64_t chunks = (p.p + kGdnDgammaChunk - 1) / kGdnDgammaChunk;
  if ((tiles * ptiles + tiles * tiles * chunks) * p.n > 2147483647)
    return "the problem needs more than 2^31 - 1 tiles";
  return nullptr;
}

// The elementwise kernels run one block per (image, channel) row.
const char* composed_can(const GdnProblem& p, const DeviceDesc&) {
  if (p.n == 0 || p.p == 0) return nullptr;  // empty: launches nothing (N or H * W may be huge)
  if (p.n > 2147483647 / p.c) return "more than 2^31 - 1 (image, channel) rows";
  return nullptr;
}

// Measured on the H200 at N = 32, C = 256, 64 x 64 (docs/notes/history/gdn-rounds.md):
// sm80_mma_fused wins the forward pass (run 4, 670da46: 0.350 vs 0.594 ms f32, 0.195 vs 0.299 ms
// tf32) and the f32 backward pass (run 3, 0fd945d: 1.303 vs 1.589 ms), composed the tf32 backward
// pass (0.747 vs 0.804 ms). composed ranks 10 (in the table).
// f32 forward where the persistent resident kernel runs: 35, above sm90_wgmma_fused (H100,
// issue 19: bench 8feaa5b had the per-tile kernel and sm90_wgmma_fused tied, 0.2974 vs 0.2962
// ms; the persistent kernel measured 0.2784 vs the per-tile kernel's 0.2952 in one process, and
// 0.2444-0.2456 ms = 2.57x composed with its 3xTF32 corrections as one bf16 mma, two runs).
int sm80_mma_fused_pref(const GdnProblem& p, const DeviceDesc& dev) {
  if (p.pass == GPUOPT_GDN_BACKWARD) return p.tf32 ? 5 : 20;
  return !p.tf32 && gdn_persist_fits(p, dev) ? 35 : 20;
}
// Forward, H200, N = 32, C = 256, 64 x 64 (run 9, eb4ff89, resident x): f32 0.283 ms vs fused
// 0.349 (above fused), tf32 0.1955 vs 0.1939 (below: a tie, fused kept). Backward, H100 (run 10,
// ebe4d88): f32 1.109 ms vs fused 1.307, tf32 0.816 vs composed 0.926 (above both, both modes).
int sm90_wgmma_fused_pref(const GdnProblem& p, const DeviceDesc&) {
  if (p.pass == GPUOPT_GDN_BACKWARD) return 40;
  return p.tf32 ? 15 : 30;
}

}  // namespace

bool gdn_persist_fits(const GdnProblem& p, const DeviceDesc& dev) {
  // (N * C must fit the kernel's 32-bit image offset arithmetic)
  return p.c == 2 * kGdnTile && p.p % kGdnTile == 0 && p.n <= 2147483647 / p.c &&
         gdn_aligned(p.x, 16) && gdn_aligned(p.gamma, 16) &&
         dev.smem_optin >= kGdnPersistSmemBytes && dev.sm_count > 0;
}

namespace {

// No pixels: dbeta and dgamma (c and c * c floats) set to zero on env's stream.
gpuopt_status_t gdn_zero_gradients(std::int64_t c, float* dbeta, float* dgamma,
                                   const ExecEnv& env) {
  const std::size_t n = static_cast<std::size_t>(c);
  GPUOPT_TRY_CUDA(cudaMemsetAsync(dbeta, 0, n * sizeof(float), env.stream), env.fn,
                  "cudaMemsetAsync(dbeta)");
  GPUOPT_TRY_CUDA(cudaMemsetAsync(dgamma, 0, n * n * sizeof(float), env.stream), env.fn,
                  "cudaMemsetAsync(dgamma)");
  return GPUOPT_SUCCESS;
}

// Every variant's launch: a pass over no pixels launches nothing but the backward pass's zero
// dbeta and dgamma, after dispatch has chosen (and recorded) the variant.
template <gpuopt_status_t (*Launch)(const GdnProblem&, const ExecEnv&)>
gpuopt_status_t launch_nonempty(const GdnProblem& p, const ExecEnv& env) {
  if (p.n * p.p == 0)
    return p.pass == GPUOPT_GDN_BACKWARD ? gdn_zero_gradients(p.c, p.dbeta, p.dgamma, env)
                                         : GPUOPT_SUCCESS;
  return Launch(p, env);
}

constexpr Variant<GdnProblem> kTable[] = {
    Row("composed",
        "elementwise kernels (square, rsqrt epilogue, gradient terms) around cuBLAS GEMMs/GEMVs "
        "(SGEMM for f32, TF32 tensor cores for tf32)",
        kF32)
        .can(composed_can)
        .rank<10>()
        .launch(launch_nonempty<gdn_launch_composed>),
    Row("sm80_mma_fused",
        "mma.sync tensor-core GEMMs (3xTF32 error-compensated for f32, its two corrections as one "
        "bf16 mma in the resident forward kernels; 1xTF32 for tf32), forward "
        "with the x tile resident in smem (x read once), cp.async pipelines, squaring in the "
        "operand load, rsqrt/gradient epilogue; split-K dgamma with a fixed-order reduction",
        kF32)
        .min_sm(80)
        .can(sm80_mma_fused_can)
        .rank(sm80_mma_fused_pref)
        .launch(launch_nonempty<gdn_launch_sm80_mma_fused>),
    Row("sm90_wgmma_fused",
        "the fused forward pass on the sm90 TMA + wgmma GEMM kernel (persistent, "
        "warp-specialized): "
        "x squared as the register operand is built, y = x s(beta + z) in the epilogue, 3xTF32 "
        "(pre-split gamma, three k blocks per x block) for f32, 1xTF32 for tf32; backward: the dx "
        "GEMM gamma^T t (dx += 2 x u epilogue) and the split-K dgamma GEMM on it (f32: t's low "
        "TF32 "
        "part formed in shared memory), the z/t GEMM from sm80_mma_fused",
        kF32)
        .exact_sm(90)
        .can(gdn_can_sm90_wgmma_fused)
        .rank(sm90_wgmma_fused_pref)
        .launch(launch_nonempty<gdn_launch_sm90_wgmma_fused>),
    // The backward pass on sm_90 (C <= 256): above sm90_wgmma_fused (H100, N = 32, C = 256,
    // 64 x 64; docs/notes/history/gdn-rounds.md): tf32 round 13, 0.455 vs 0.622 ms; f32 round 15,
    // 0.708 vs 0.833 ms (two runs, interleaved with composed at 1.74 ms); round 18 (corrections
    // as one bf16 wgmma): 0.671 ms = 2.58x composed.
    Row("sm90_onepass_fused",
        "the backward pass (C <= 256) in one persistent TMA + wgmma kernel per 64-pixel tile: "
        "z = gamma x^2 (x^2 the register operand), t = dy x ds/dz and dx0 = dy s in the epilogue, "
        "t over x in shared memory as the operand of u = gamma^T t, dx = dx0 + 2 x u; x and dy by "
        "TMA into two alternating slots, gamma through a ring kept in L2 (evict-last); f32 as "
        "3xTF32 with its two corrections as one bf16 wgmma (x^2 and t as (lo, hi) bf16 pairs in "
        "registers, gamma hi and (g, g_lo) bf16-pair fills); t "
        "written once, then sm90_wgmma_fused's dgamma GEMM",
        kF32)
        .exact_sm(90)
        .can(gdn_can_sm90_onepass_fused)
        .rank<50>()
        .launch(launch_nonempty<gdn_launch_sm90_onepass_fused>),
};

}  // namespace

const Variant<GdnProblem>* gdn_variants(int* count) { return table_entries(kTable, count); }

}  // namespace gpuopt
