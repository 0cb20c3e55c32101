// gdn sm90_wgmma_fused, backward pass (sm_90a): the dx GEMM U = gamma^T T on the sm90 TMA +
// wgmma GEMM kernel (kernels/gemm/sm90_tma_wgmma_kernel.cuh, register-P path with hooks), the
// other stages from `fused` (gdn_backward_stages.hpp):
//   (1) `fused`'s z/t GEMM (mma.sync): t = dy * x * ds/dz to the workspace, dx = dy * s, dbeta
//       partials;
//   (2) here: per image the NN GEMM (gpuopt column-major terms) U^T (P x C, ld P) = T^T (P x C
//       view of t_n) * gamma (B(k, i) = gamma[k][i]: the transposed gamma, K-major, in the
//       workspace), epilogue dx += 2 * x * u. t tiles come through TMA as the MN-major operand
//       the kernel reads into registers (the operand hook rounds them to TF32, or splits them
//       into 3xTF32 parts); x and dx are read in the epilogue (loads of a group of 4 j steps
//       before its stores, streaming cache hints);
//   (3) the dgamma split-K GEMM here on the same wgmma kernel (x rows K-major as the register
//       operand, squared there; t rows K-major through TMA; split-K over (image, 2048-pixel
//       chunk) through the hook's TMA coordinates; f32 mode 3xTF32 with its two corrections as
//       one bf16 wgmma, t's bf16 pairs (t, t - trunc t) formed in shared memory by the kernel),
//       `fused`'s mma.sync stage where a tensor map is refused;
//       then `fused`'s fixed-order sums of dgamma and dbeta.
//   The dx GEMM's f32 mode is 3xTF32 as in the forward pass: the workspace holds gamma^T split per
//   32-deep k block into [hi | lo | hi], each t block serves three k blocks (kPRepeat = 3) as t_lo,
//   t_hi, t_hi. tf32 mode: one part (gamma^T rounded to TF32), t rounded to nearest TF32.
// Figures: docs/notes/history/gdn-rounds.md (rounds 7, 9, 11, 12, 16 and 19).
#include <cstdint>

#include "common/launch.hpp"
#include "kernels/gdn/gdn_backward_stages.hpp"
#include "kernels/gdn/gdn_mma.cuh"
#include "kernels/gdn/gdn_sm90_mix.cuh"
#include "kernels/gdn/gdn_stream_pairs.cuh"
#include "runtime/error.hpp"

namespace gpuopt {
// (a named namespace: the hook's constants are used only by the sm_90a device pass)
namespace gdn_sm90_bwd {

using gdn_sm90::kKBlock;

// The dx GEMM's hooks (the Hook contract: kernels/gemm/sm90_tma_wgmma_hook.cuh). kSplit3: 3xTF32
// (f32 mode).
template <bool kSplit3>
struct GdnDxHook {
  static constexpr int kPRepeat = kSplit3 ? 3 : 1;
  static constexpr int kEpiGroup = 4;
  static constexpr bool kQShared = true;  // gamma^T: one matrix for every image
  static constexpr bool kPResident = false;
  const float* x;
  const float* dx;  // C's base: an element's offset from it is its offset in x
  // t -> TF32 (3xTF32 part kb % 3: 0 -> lo, 1 and 2 -> hi).
  __device__ __forceinline__ void operand(std::uint32_t (&a)[16], int kb) const {
    const bool lo = kSplit3 && kb % 3 == 0;
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      unsigned hi, low;
      gdn::split<kSplit3>(__uint_as_float(a[i]), hi, low);
      a[i] = lo ? low : hi;
    }
  }
  struct Pre {
    float2 x, d;
  };
  // x and dx at pixels r, r + 1 of channel col, read before the group's stores.
  template <class TOut>
  __device__ __forceinline__ Pre load(const TOut* ptr, int, int valid, bool pair) const {
    const long long i = ptr - dx;
    return {gdn::ld_cs_pair(x, i, valid, pair), gdn::ld_cs_pair(dx, i, valid, pair)};
  }
  // dx += 2 x u for pixels r, r + 1 of channel col.
  template <class TOut, bool kReadC>
  __device__ __forceinline__ void store(TOut* ptr, int, float u0, float u1, int valid, bool pair,
                                        const sm90::Params&, const Pre& pr) const {
    gdn::st_cs_pair(ptr, fmaf(2.f * pr.x.x, u0, pr.d.x), fmaf(2.f * pr.x.y, u1, pr.d.y), valid,
                    pair);
  }
};

// The dgamma GEMM's hooks: per split unit b = image * chunks + chunk the partial D(j, i) = sum
// over the chunk's pixels of x_j^2 t_i, i.e. dgamma(i, j) (kSwap: written at i * C + j of
// partial b). P = x rows (K-major, squared in registers), Q = t rows (K-major, truncated to TF32
// by the tensor cores). tf32 mode: x^2 rounded to TF32. f32 mode (kSplit3, 3xTF32 with its two
// corrections as one bf16 wgmma, kQSplitSmem): x^2 split in registers into TF32 hi and the bf16
// pairs (x2 - hi, hi), and the kernel forms the bf16 pairs (t, t - trunc t) in shared memory from
// each stage's t tile: per k step x2_hi t (TF32, issued before the pairs are formed) and one bf16
// wgmma x2_lo t + x2_hi t_lo (round 19, H100 at N = 32, C = 256, 64 x 64: this GEMM 152.7 ->
// 121.6 us (ncu; tf32 99 us), the f32 one-pass pass 0.669 -> 0.644 ms, dgamma's error x0.65: the
// tensor cores round the accumulator once per wgmma). (Round 11's three TF32 products were 0.158
// ms against 0.285 for `fused`'s mma.sync stage; round 9's version, t_lo written by the z/t stage
// as a third Q operand and each stage loaded three times, was 0.145 ms slower than that stage.)
template <bool kSplit3>
struct GdnDgammaHook : sm90::IdentityHook {
  static constexpr bool kSplitK = true;
  static constexpr bool kQSplitSmem = kSplit3;
  int chunks;   // units per image
  int chunk_k;  // pixels per chunk
  // x -> x^2 split into TF32 hi (in a) and the bf16 pairs (x2 - hi, hi) (f32 mode).
  __device__ __forceinline__ void operand_split(std::uint32_t (&a)[16], std::uint32_t (&pairs)[16],
                                                int) const {
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      const float v = __uint_as_float(a[i]);
      gdn::split_parts<true, true, true, true>(v * v, a[i], pairs[i]);
    }
  }
  // x -> x^2 rounded to TF32 (tf32 mode).
  __device__ __forceinline__ void operand(std::uint32_t (&a)[16], int) const {
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      const float v = __uint_as_float(a[i]);
      unsigned hi, lo;
      gdn::split<false>(v * v, hi, lo);
      a[i] = hi;
    }
  }
  __device__ __forceinline__ void coords(int b, int kb, int& pk, int& pb, int& qk, int& qb) const {
    pb = b / chunks;
    pk = (b - pb * chunks) * chunk_k + kb * kKBlock;
    qk = pk;
    qb = pb;
  }
};

}  // namespace gdn_sm90_bwd

namespace {

using gdn_sm90::kKBlock;
using gdn_sm90_bwd::GdnDgammaHook;
using gdn_sm90_bwd::GdnDxHook;

// The dgamma split-K GEMM on wgmma (both modes): partials [image * chunks + chunk][i][j] (as
// `fused`'s). *launched: false when the driver refused a tensor map (nothing launched).
gpuopt_status_t dgamma_wgmma(const GdnProblem& p, const float* t, const ExecEnv& env,
                             bool* launched) {
  const std::int64_t chunks = (p.p + kGdnDgammaChunk - 1) / kGdnDgammaChunk;
  const std::int64_t chunk_k = p.p < kGdnDgammaChunk ? p.p : kGdnDgammaChunk;
  // a cluster of 2 CTAs (the two 128-row halves of j) shares each t tile by multicast
  static_assert(sm90::kMaxCluster == 2, "the dgamma GEMM's cluster is the kernel's largest");
  const int cluster = p.c > sm90::kBlockM ? 2 : 1;
  sm90::Plan plan;
  sm90::Params& g = plan.params;
  g.m = static_cast<int>(p.c);  // D columns: t rows i
  g.n = static_cast<int>(p.c);  // D rows: x rows j
  g.k_blocks = static_cast<int>((chunk_k + kKBlock - 1) / kKBlock);
  const int tiles_x = static_cast<int>((p.c + sm90::kBlockM - 1) / sm90::kBlockM);
  g.units_x = (tiles_x + cluster - 1) / cluster;
  g.tiles_y = static_cast<int>((p.c + sm90::kBlockN - 1) / sm90::kBlockN);
  g.units_per_batch = g.units_x * g.tiles_y;
  g.total_units = static_cast<int>(g.units_per_batch * p.n * chunks);
  g.alpha = 1.f;
  g.beta = 0.f;
  const GdnWorkspaceLayout l = gdn_fused_layout(GPUOPT_GDN_BACKWARD, p.n, p.c, p.p);
  g.C = gdn_ws_floats(p, l.dgpart);
  g.ldc = p.c;
  g.stride_c = p.c * p.c;
  g.pair_store = p.c % 2 == 0 ? 1 : 0;
  plan.cluster = cluster;
  plan.grid = g.total_units * cluster;
  const int sms = env.device->sm_count;
  if (plan.grid > sms) plan.grid = sms / cluster * cluster;
  const std::int64_t img = p.c * p.p;
  *launched = false;
  if (!sm90::encode_tma_map(&plan.map_p, GPUOPT_DTYPE_F32, p.x, p.p, p.c, p.p, p.n, img, kKBlock,
                            sm90::kBlockM) ||
      !sm90::encode_tma_map(&plan.map_q, GPUOPT_DTYPE_F32, t, p.p, p.c, p.p, p.n, img, kKBlock,
                            sm90::kBlockN / cluster))
    return GPUOPT_SUCCESS;
  *launched = true;
  const int ch = static_cast<int>(chunks), ck = static_cast<int>(chunk_k);
  return p.tf32 ? gdn_sm90::launch_mix<true>(plan, env, GdnDgammaHook<false>{{}, ch, ck})
                : gdn_sm90::launch_mix<true>(plan, env, GdnDgammaHook<true>{{}, ch, ck});
}

// Whether the dgamma GEMM runs on wgmma: both modes (H100, whole backward pass: round 9, tf32
// 0.786 vs 0.816 ms on the mma.sync stage; round 11, f32 with t_lo formed in shared memory 0.986
// vs 1.108 ms; docs/notes/history/gdn-rounds.md), when its unit count fits an int.
bool dgamma_on_wgmma(const GdnProblem& p) {
  const std::int64_t chunks = (p.p + kGdnDgammaChunk - 1) / kGdnDgammaChunk;
  const std::int64_t tiles = (p.c + sm90::kBlockM - 1) / sm90::kBlockM;
  return tiles * tiles * 2 * chunks < 2147483647 / p.n;
}

}  // namespace

const char* gdn_can_sm90_wgmma_fused_backward(const GdnProblem& p) {
  if (p.n == 0 || p.p == 0) return nullptr;  // empty: launches nothing
  const std::int64_t tiles = (p.c + kGdnTile - 1) / kGdnTile;
  const std::int64_t ptiles = (p.p + kGdnTile - 1) / kGdnTile;
  const std::int64_t chunks = (p.p + kGdnDgammaChunk - 1) / kGdnDgammaChunk;
  if (tiles * ptiles > 2147483647 / p.n || tiles * tiles * chunks > 2147483647 / p.n)
    return "the backward pass's mma.sync stages need more than 2^31 - 1 blocks";
  return nullptr;
}

gpuopt_status_t gdn_launch_sm90_wgmma_fused_backward(const GdnProblem& p, const ExecEnv& env) {
  const GdnWorkspaceLayout l = gdn_fused_layout(GPUOPT_GDN_BACKWARD, p.n, p.c, p.p);
  // (1) t, dx = dy s, dbeta partials
  // (a wgmma version of this GEMM, the forward pass's L2 path with a gradient epilogue and a
  // row-sum kernel for dbeta, was 0.67 ms slower on the H100: run 10 of
  // docs/notes/history/gdn-rounds.md)
  float* t = gdn_ws_floats(p, l.t);
  GPUOPT_TRY(gdn_fused_backward_grad(p, env));
  // (2) U^T = T^T gamma per image (B(k, i) = gamma[k][i]: gamma^T's split rows), dx += 2 x u
  float* q = gdn_ws_floats(p, l.gsplit);
  gpuopt_status_t st = GPUOPT_SUCCESS;
  const std::int64_t pitch = gdn_split_gamma(p, true, q, env, &st);
  GPUOPT_TRY(st);
  sm90::Plan plan;
  GPUOPT_TRY(gdn_sm90::plan_mix(p, t, q, pitch, p.dx, env, &plan));
  GPUOPT_TRY(p.tf32 ? gdn_sm90::launch_mix(plan, env, GdnDxHook<false>{p.x, p.dx})
                    : gdn_sm90::launch_mix(plan, env, GdnDxHook<true>{p.x, p.dx}));
  // (3) dgamma partials, then dgamma and dbeta
  return gdn_sm90_backward_dgamma(p, env);
}

gpuopt_status_t gdn_sm90_backward_dgamma(const GdnProblem& p, const ExecEnv& env) {
  const GdnWorkspaceLayout l = gdn_fused_layout(GPUOPT_GDN_BACKWARD, p.n, p.c, p.p);
  bool launched = false;
  if (dgamma_on_wgmma(p)) GPUOPT_TRY(dgamma_wgmma(p, gdn_ws_floats(p, l.t), env, &launched));
  return launched ? gdn_fused_backward_sums(p, env) : gdn_fused_backward_dgamma(p, env);
}

}  // namespace gpuopt
