// gdn sm90_wgmma_fused (sm_90a): the fused GDN forward pass on the sm90 TMA + wgmma GEMM kernel
// (kernels/gemm/sm90_tma_wgmma_kernel.cuh, its register-P path with hooks), i.e. the `fused`
// design on Hopper's asynchronous tensor cores instead of mma.sync.
//   The mix of image n is the batched NN GEMM (gpuopt column-major terms) Z^T (P x C, ld P) =
//   X^T (P x C view of x_n) * gamma^T (B(j, i) = gamma[i][j], ld C): m = pixels, n = out
//   channels, k = in channels. x tiles come through TMA as the MN-major operand that the kernel
//   reads into registers; the operand hook squares them (and rounds to TF32) there, so no x^2
//   tensor exists; the epilogue hook writes y = x * s(beta + z). For C <= 256 the kernel's
//   resident-P schedule keeps the x tile in shared memory (loaded once per tile, also for the
//   three k passes of f32) for the epilogue, which then reads no L2 and releases each x block as
//   it finishes, so the next tile's loads overlap the rest of the epilogue; larger C re-reads x
//   through L2.
//   f32 mode is 3xTF32: gamma is split once (gdn_split_gamma) into a workspace matrix whose
//   rows hold, per 32-deep k block, [gamma_hi | gamma_lo | gamma_hi]; each x block serves three
//   consecutive k blocks (kPRepeat = 3) as x2_lo, x2_hi, x2_hi: z = x2_lo g_hi + x2_hi g_lo +
//   x2_hi g_hi, f32 accumulation (the small terms first).
//   tf32 mode: gamma straight from the caller when TMA can read it (C % 4 == 0, 16-byte base;
//   the tensor cores then truncate it to TF32), else a TF32-rounded padded copy.
// H200, N = 32, C = 256, 64 x 64: L2 re-read (run 8, 049fb40): f32 0.304 ms (1.95x composed),
// tf32 0.227 ms; resident x (run 9, eb4ff89): f32 0.283 ms (2.10x composed; `fused` 0.349),
// tf32 0.1955 ms (`fused` 0.1939 stays the tf32 path). docs/notes/history/gdn-rounds.md.
#include <cstdint>

#include "arch/sm80/mma_sync.cuh"
#include "common/launch.hpp"
#include "kernels/gdn/gdn.hpp"
#include "kernels/gdn/gdn_backward_stages.hpp"
#include "kernels/gdn/gdn_math.cuh"
#include "kernels/gdn/gdn_sm90_mix.cuh"
#include "kernels/gdn/gdn_stream_pairs.cuh"
#include "runtime/error.hpp"

namespace gpuopt {
// (a named namespace: the hook's constants are used only by the sm_90a device pass)
namespace gdn_sm90 {

// The forward pass's hooks (the Hook contract: kernels/gemm/sm90_tma_wgmma_hook.cuh). kSplit3:
// 3xTF32 (f32 mode). kResident (C <= 256): the resident-P schedule: the x tile (128 pixels x C)
// stays in shared memory from its TMA load to the epilogue, which reads x there instead of L2
// (load() unused), and each x k block is loaded once per tile (not kPRepeat times). Epilogue
// otherwise: the x loads of 4 j steps (8 pixel pairs per thread) go before their stores (a serial
// load-use-store chain per column cost the first build 2.4x, run 6; 4 steps: no spills; 8: 12 bytes
// of spills and slower, run 7); x loads and y stores with the streaming (evict-first) cache hints,
// so the y stream does not push the x tiles later epilogues re-read out of L2 (-11% tf32, -7% f32,
// run 8).
template <bool kSplit3, bool kResident>
struct GdnForwardHook {
  static constexpr int kPRepeat = kSplit3 ? 3 : 1;
  static constexpr int kEpiGroup = 4;     // (resident: one x k block of 32 channels per group)
  static constexpr bool kQShared = true;  // gamma: one matrix for every image
  static constexpr bool kPResident = kResident;
  const float* x;
  const float* beta;
  const float* y;  // C's base: an element's offset from it is its offset in x
  int inverse;
  // x -> x^2 as TF32; 3xTF32 part kb % 3: 0 -> lo, 1 and 2 -> hi.
  __device__ __forceinline__ void operand(std::uint32_t (&a)[16], int kb) const {
    const bool lo = kSplit3 && kb % 3 == 0;
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      const float v = __uint_as_float(a[i]);
      const float sq = v * v;
      const std::uint32_t hi = sm80::tf32_rna_bits(sq);
      a[i] = lo ? sm80::tf32_rna_bits(sq - __uint_as_float(hi)) : hi;
    }
  }
  // x at pixels r, r + 1 of channel col, read before the group's stores (beta: an L1 hit).
  using Pre = float2;
  template <class TOut>
  __device__ __forceinline__ Pre load(const TOut* ptr, int, int valid, bool pair) const {
    return gdn::ld_cs_pair(x, ptr - y, valid, pair);
  }
  // y = x * s(beta_col + z) for pixels r, r + 1 of channel col.
  template <class TOut, bool kReadC>
  __device__ __forceinline__ void store(TOut* ptr, int col, float v0, float v1, int valid,
                                        bool pair, const sm90::Params&, const Pre& xv) const {
    const bool inv = inverse != 0;
    const float b = __ldg(beta + col);
    const float y0 = xv.x * gdn_scale(b + v0, inv), y1 = xv.y * gdn_scale(b + v1, inv);
    gdn::st_cs_pair(ptr, y0, y1, valid, pair);
  }
};

}  // namespace gdn_sm90

namespace {

using gdn_sm90::GdnForwardHook;
using gdn_sm90::kKBlock;
using sm80::tf32_rna_bits;

// out (C rows of parts * cp floats): per 32-deep k block of row i, `parts` copies of the block
// of gamma's row i (transposed: gamma's column i) as TF32: 1 part: the rounded value; 3 parts:
// [hi, lo, hi] with hi + lo ~ gamma to f32 accuracy, or with `pairs` [hi, pair, hi] where each
// pair float holds the bf16 pair (gamma, gamma - hi) (low half first: a bf16 wgmma's k 2j, 2j + 1;
// sm90_onepass_fused's corrections). Zero beyond column C (the padded k).
__global__ void gdn_split_gamma_kernel(const float* gamma, int c, int cp, int parts, bool pairs,
                                       bool transposed, float* out) {
  const long long pitch = static_cast<long long>(parts) * cp;
  const long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (e >= pitch * c) return;
  const int i = static_cast<int>(e / pitch);
  const int r = static_cast<int>(e - i * pitch);
  const int blk = r / (parts * kKBlock), part = (r / kKBlock) % parts;
  const int j = blk * kKBlock + r % kKBlock;
  const long long at =
      transposed ? static_cast<long long>(j) * c + i : static_cast<long long>(i) * c + j;
  const float g = j < c ? gamma[at] : 0.f;
  const std::uint32_t hi = tf32_rna_bits(g);
  const float h = __uint_as_float(hi), rest = g - h;
  std::uint32_t v = hi;
  if (part == 1 && pairs) {
    v = sm80::bf16_correction_pair<false>(g, h);
  } else if (part == 1) {
    v = tf32_rna_bits(rest);
  }
  out[e] = __uint_as_float(v);
}

template <bool kSplit3, bool kResident>
gpuopt_status_t launch_forward(const sm90::Plan& plan, const GdnProblem& p, const ExecEnv& env) {
  return gdn_sm90::launch_mix(
      plan, env, GdnForwardHook<kSplit3, kResident>{p.x, p.beta, p.y, p.inverse ? 1 : 0});
}

}  // namespace

const char* gdn_can_sm90_wgmma_fused(const GdnProblem& p, const DeviceDesc& dev) {
  if (p.pass == GPUOPT_GDN_BACKWARD) {
    if (const char* why = gdn_can_sm90_wgmma_fused_backward(p)) return why;
  }
  if (dev.smem_optin < static_cast<std::size_t>(sm90::kSmemBytes))
    return "needs 193 KiB of shared memory per block";
  if (p.p % 4 != 0) return "TMA needs H * W to be a multiple of 4 (16-byte pixel rows)";
  if (!gdn_aligned(p.x, 16)) return "TMA needs x aligned to 16 bytes";
  if (p.p > 2147483647 || p.c > 2147483647 / 3 || p.n > 2147483647)
    return "extents must fit the kernel's int32 scheduler";
  return nullptr;
}

namespace {

std::int64_t split_gamma(const GdnProblem& p, bool transposed, bool pairs, float* out,
                         const ExecEnv& env, gpuopt_status_t* st) {
  const int parts = p.tf32 ? 1 : 3;
  const std::int64_t cp = (p.c + kKBlock - 1) / kKBlock * kKBlock;
  const std::int64_t pitch = parts * cp;
  const long long count = pitch * p.c;
  gdn_split_gamma_kernel<<<static_cast<unsigned>((count + 255) / 256), 256, 0, env.stream>>>(
      p.gamma, static_cast<int>(p.c), static_cast<int>(cp), parts, pairs, transposed, out);
  *st = check_launch(env.fn, transposed ? "gdn sm90_wgmma_fused transposed gamma split kernel"
                                        : "gdn sm90_wgmma_fused gamma split kernel");
  return pitch;
}

}  // namespace

std::int64_t gdn_split_gamma(const GdnProblem& p, bool transposed, float* out, const ExecEnv& env,
                             gpuopt_status_t* st) {
  return split_gamma(p, transposed, false, out, env, st);
}

std::int64_t gdn_split_gamma_pairs(const GdnProblem& p, bool transposed, float* out,
                                   const ExecEnv& env, gpuopt_status_t* st) {
  return split_gamma(p, transposed, true, out, env, st);
}

gpuopt_status_t gdn_launch_sm90_wgmma_fused(const GdnProblem& p, const ExecEnv& env) {
  if (const char* why = gdn_can_sm90_wgmma_fused(p, *env.device))
    return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn, "gdn sm90_wgmma_fused: %s", why);
  if (p.pass == GPUOPT_GDN_BACKWARD) return gdn_launch_sm90_wgmma_fused_backward(p, env);
  const float* q = p.gamma;
  std::int64_t pitch = p.c;  // Q's k extent and row pitch
  if (!gdn_sm90::gamma_direct(p)) {
    const GdnWorkspaceLayout l = gdn_fused_layout(GPUOPT_GDN_FORWARD, p.n, p.c, p.p);
    float* split = gdn_ws_floats(p, l.gsplit);
    gpuopt_status_t st = GPUOPT_SUCCESS;
    pitch = gdn_split_gamma(p, false, split, env, &st);
    GPUOPT_TRY(st);
    q = split;
  }
  // Z^T = X^T gamma^T per image: A = x, B(j, i) = gamma[i][j] (Q: gamma or its split for every
  // image, k extent = its pitch, 3 parts per k block in f32).
  sm90::Plan plan;
  GPUOPT_TRY(gdn_sm90::plan_mix(p, p.x, q, pitch, p.y, env, &plan));
  // The resident-x schedule holds the whole x tile (C <= 256 channels: 8 k blocks) in shared
  // memory.
  if (p.c <= sm90::kResXBlocks * kKBlock &&
      env.device->smem_optin >= static_cast<std::size_t>(sm90::kResSmemBytes))
    return p.tf32 ? launch_forward<false, true>(plan, p, env)
                  : launch_forward<true, true>(plan, p, env);
  return p.tf32 ? launch_forward<false, false>(plan, p, env)
                : launch_forward<true, false>(plan, p, env);
}

}  // namespace gpuopt
