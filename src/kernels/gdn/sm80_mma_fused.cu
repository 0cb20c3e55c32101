// gdn sm80_mma_fused (named `fused` before issue 18): the channel mixes on gpuopt's own mma.sync
// (sm_80+) tensor-core GEMMs with the GDN arithmetic folded
// in, so no x^2 / z / u tensor is written:
//   forward  : z = gamma * x^2 (x squared as its fragments are read), epilogue y = x * s(beta + z),
//              on the resident-x kernel (gdn_fwd_resident.cuh: x read from DRAM once, epilogue
//              x from smem) when C <= 256 fits the device's smem, else on the generic GEMM
//              (gdn_mma.cuh). H200, N = 32, C = 256, 64 x 64 (run 4, 670da46): 0.1945 ms tf32
//              (1.54x composed), 0.3497 ms f32 (1.70x). H100 (run 14, tf32 operands truncated
//              by the mma): 0.1875 ms tf32 (1.93x); round 11 (8-byte y stores, whole-tile loader
//              and epilogue; f32: copies after the first k step): 0.163 ms tf32 (2.21x),
//              0.301 ms f32 (auto keeps sm90_wgmma_fused for f32: 0.291). Issue 19: whole
//              problems (C = 256, H * W % 128 == 0) on the persistent form of the resident
//              kernel: 0.1428 ms tf32 (2.54x), 0.2784 ms f32 (2.25x; auto runs it for f32 too),
//              0.2444-0.2456 ms f32 (2.57x) with the 3xTF32 corrections as one bf16 mma; with a
//              swizzled gamma ring and the epilogue m tile by m tile (issue 19, third round):
//              0.1343 ms tf32 (2.70x), 0.2255 ms f32 (2.77x).
//   backward : (1) the generic GEMM z, epilogue t = dy * x * ds/dz (to the workspace), dx = dy * s
//              and per-block dbeta partials; (2) one launch of two GEMMs interleaved per image:
//              dgamma partials = t x^2^T over (image, 2048-pixel chunk) (split-K) and
//              u = gamma^T t with epilogue dx += 2 x u, so t and x come from DRAM once;
//              (3) a fixed-order (deterministic) f64 sum of the dgamma and dbeta partials
//              (gdn_partial_sums.cu, shared with the sm_90a rungs).
//              H200 (run 3, 0fd945d): 1.303 ms f32 (1.22x composed), 0.804 ms tf32 (0.93x).
//              H100 (round 12, partial sums batched, whole-tile GEMM paths): 1.085 ms f32
//              (1.59x), 0.648-0.657 ms tf32 (1.42-1.45x). Stage (1) also serves
//              sm90_wgmma_fused's backward pass (gdn_backward_stages.hpp).
// f32 mode uses 3xTF32 (f32-level accuracy on tensor cores; the resident forward kernels form its
// two correction terms in one bf16 mma, issue 19: 0.2784 -> 0.2444 ms, 2.57x), tf32 mode 1xTF32.
// Epilogues load a fragment row's inputs before storing and move two adjacent pixels as one float2
// (first H200 run, serial load-use-store epilogue: tf32 forward 0.272 ms, only 1.09x composed). All
// figures: docs/notes/history/gdn-rounds.md.
#include <cstdint>

#include "common/launch.hpp"
#include "kernels/gdn/gdn.hpp"
#include "kernels/gdn/gdn_backward_stages.hpp"
#include "kernels/gdn/gdn_fwd_resident.cuh"
#include "kernels/gdn/gdn_math.cuh"
#include "kernels/gdn/gdn_mma.cuh"
#include "runtime/smem_limit.hpp"

namespace gpuopt {
namespace {

using gdn::ld_pair;
using gdn::MmaArgs;
using gdn::st_pair;
using gdn::Two;
static_assert(gdn::kSmemBytes == kGdnFusedSmemBytes, "gdn.hpp and gdn_mma.cuh disagree");

// The epilogues: load(z, m, n, two) reads the inputs of element (m, n) (and (m, n + 1) when two),
// apply(z, m, n, two, acc0, acc1, pre) combines them with the GEMM results and stores (the kernel
// issues a fragment row's loads before its stores). `pair`: every even element index is 8-byte
// aligned (even pixel count, aligned pointers), so two elements move as one float2.
// Pointers are __restrict__: the outputs never alias the inputs (validated by the API).

// y = x * s(beta + z)
struct ForwardEpi {
  static constexpr bool kRowSum = false;
  struct Pre {
    Two x;
    float b;
  };
  const float* __restrict__ x;
  const float* __restrict__ beta;
  float* __restrict__ y;
  long long img, p;  // elements per image, pixels
  bool inverse, pair;
  __device__ Pre load(int z, int m, int n, bool two) const {
    return {ld_pair(x + z * img + m * p + n, two, pair), __ldg(beta + m)};
  }
  __device__ float apply(int z, int m, int n, bool two, float a0, float a1, const Pre& pr) const {
    st_pair(y + z * img + m * p + n, two, pair, pr.x.a * gdn_scale(pr.b + a0, inverse),
            pr.x.b * gdn_scale(pr.b + a1, inverse));
    return 0.f;
  }
  __device__ void row_sum(int, int, int, float) const {}
};

// t = dy * x * ds/dz, dx = dy * s; row sums of t per block -> dbeta partials. The form is a
// template parameter (as ResForwardEpi's: one form's code per element, no branch).
template <bool Inverse>
struct GradEpi {
  static constexpr bool kRowSum = true;
  struct Pre {
    Two x, dy;
    float b;
  };
  const float* __restrict__ x;
  const float* __restrict__ beta;
  const float* __restrict__ dy;
  float* __restrict__ t;
  float* __restrict__ dx;
  float* __restrict__ bpart;  // [image * ntiles + ntile][C]
  long long img, p;
  int c, ntiles;
  bool pair;
  __device__ Pre load(int z, int m, int n, bool two) const {
    const long long i = z * img + m * p + n;
    return {ld_pair(x + i, two, pair), ld_pair(dy + i, two, pair), __ldg(beta + m)};
  }
  __device__ float apply(int z, int m, int n, bool two, float a0, float a1, const Pre& pr) const {
    const long long i = z * img + m * p + n;
    const float z0 = pr.b + a0, z1 = pr.b + a1;
    const float s0 = gdn_scale(z0, Inverse), s1 = gdn_scale(z1, Inverse);
    const float t0 = pr.dy.a * pr.x.a * gdn_dscale(z0, s0, Inverse);
    const float t1 = two ? pr.dy.b * pr.x.b * gdn_dscale(z1, s1, Inverse) : 0.f;
    st_pair(t + i, two, pair, t0, t1);
    st_pair(dx + i, two, pair, pr.dy.a * s0, pr.dy.b * s1);
    return t0 + t1;
  }
  __device__ void row_sum(int z, int nt, int m, float v) const {
    bpart[(static_cast<long long>(z) * ntiles + nt) * c + m] = v;
  }
};

// Epilogues of the resident-x kernel (gdn_fwd_resident.cuh): z and x come from the kernel.
// y = x * s(z); the form is a template parameter (a runtime flag left both forms' code, with
// branches, in every element of the epilogue). apply4: 4 elements from i, i 16-byte aligned, as
// one 16-byte PTX store; apply: element i (and i + 1 when two).
template <bool Inverse>
struct ResForwardEpi {
  float* __restrict__ y;
  bool pair, quad;  // every even / every multiple-of-4 element index is 8 / 16-byte aligned
  __device__ void apply4(long long i, const float (&z)[4], float4 x) const {
    gdn::st_four(y + i, x.x * gdn_scale(z[0], Inverse), x.y * gdn_scale(z[1], Inverse),
                 x.z * gdn_scale(z[2], Inverse), x.w * gdn_scale(z[3], Inverse));
  }
  __device__ void apply(long long i, bool two, float z0, float z1, Two x) const {
    st_pair<true>(y + i, two, pair, x.a * gdn_scale(z0, Inverse), x.b * gdn_scale(z1, Inverse));
  }
};

// dx += 2 x u
struct DxEpi {
  static constexpr bool kRowSum = false;
  struct Pre {
    Two x, dx;
  };
  const float* __restrict__ x;
  float* __restrict__ dx;
  long long img, p;
  bool pair;
  __device__ Pre load(int z, int m, int n, bool two) const {
    const long long i = z * img + m * p + n;
    const float* d = dx + i;  // read then written by this thread only
    Two v;
    if (two && pair) {
      const float2 w = *reinterpret_cast<const float2*>(d);
      v = {w.x, w.y};
    } else {
      v = {d[0], two ? d[1] : 0.f};
    }
    return {ld_pair(x + i, two, pair), v};
  }
  __device__ float apply(int z, int m, int n, bool two, float a0, float a1, const Pre& pr) const {
    st_pair(dx + z * img + m * p + n, two, pair, pr.dx.a + 2.f * pr.x.a * a0,
            pr.dx.b + 2.f * pr.x.b * a1);
    return 0.f;
  }
  __device__ void row_sum(int, int, int, float) const {}
};

// dgamma partial of split z
struct DgammaEpi {
  static constexpr bool kRowSum = false;
  struct Pre {};
  float* __restrict__ part;
  long long c;
  bool pair;
  __device__ Pre load(int, int, int, bool) const { return {}; }
  __device__ float apply(int z, int m, int n, bool two, float a0, float a1, const Pre&) const {
    st_pair(part + (z * c + m) * c + n, two, pair, a0, a1);
    return 0.f;
  }
  __device__ void row_sum(int, int, int, float) const {}
};

// Tile counts, and whether each operand can move in 16-byte copies (every tile row starts
// 16-byte aligned: aligned base, leading dimension and image stride multiples of 4).
void set_tiles(MmaArgs* a) {
  a->mtiles = static_cast<int>(ceil_div(a->m, gdn::kBM));
  a->ntiles = static_cast<int>(ceil_div(a->n, gdn::kBM));
  a->vec_a = gdn_aligned(a->a, 16) && a->lda % 4 == 0 && a->a_img % 4 == 0;
  a->vec_b = gdn_aligned(a->b, 16) && a->ldb % 4 == 0 && a->b_img % 4 == 0;
}

// Two adjacent pixels of a row move as one float2: even pixel count, 8-byte aligned tensors.
bool pairs(const GdnProblem& p, const float* extra) {
  return p.p % 2 == 0 && gdn_aligned(p.x, 8) && gdn_aligned(p.y, 8) && gdn_aligned(p.dy, 8) &&
         gdn_aligned(p.dx, 8) && gdn_aligned(extra, 8);
}

// Sets the kernel's shared memory limit to smem bytes and launches `blocks` blocks of `threads`.
template <class Kernel, class... Args>
gpuopt_status_t launch_sized(Kernel kernel, long long blocks, int threads, int smem,
                             const ExecEnv& env, const char* what, const Args&... args) {
  GPUOPT_TRY(raise_smem_limit(kernel, smem, env.fn, what));
  kernel<<<static_cast<unsigned>(blocks), threads, smem, env.stream>>>(args...);
  return check_launch(env.fn, what);
}

// The generic GEMM kernels' launch: `blocks` blocks of gdn::kThreads, gdn::kSmemBytes each.
template <class Kernel, class... Args>
gpuopt_status_t launch_blocks(Kernel kernel, long long blocks, const ExecEnv& env, const char* what,
                              const Args&... args) {
  return launch_sized(kernel, blocks, gdn::kThreads, gdn::kSmemBytes, env, what, args...);
}

template <bool AK, bool ASq, bool BK, bool BSq, class Epi>
gpuopt_status_t launch_mma(const GdnProblem& p, MmaArgs args, long long batches, const Epi& epi,
                           const ExecEnv& env, const char* what) {
  set_tiles(&args);
  const long long blocks = static_cast<long long>(args.mtiles) * args.ntiles * batches;
  return p.tf32 ? launch_blocks(gdn::gdn_mma_kernel<AK, ASq, BK, BSq, false, Epi>, blocks, env,
                                what, args, epi)
                : launch_blocks(gdn::gdn_mma_kernel<AK, ASq, BK, BSq, true, Epi>, blocks, env, what,
                                args, epi);
}

// z = gamma * x^2 per image: A = gamma (k-contiguous), B = x (pixel-contiguous, squared).
MmaArgs mix_args(const GdnProblem& p) {
  MmaArgs a;
  a.a = p.gamma;
  a.lda = p.c;
  a.b = p.x;
  a.ldb = p.p;
  a.b_img = p.c * p.p;
  a.m = static_cast<int>(p.c);
  a.n = static_cast<int>(p.p);
  a.k = a.chunk_k = p.c;
  return a;
}

// Whether the resident-x mix kernel (gdn_fwd_resident.cuh) runs: C <= 256 and C's x tile fits
// the device's opt-in shared memory (208 KiB at C = 256; C <= 160 on sm_80).
bool resident_fits(const GdnProblem& p, const ExecEnv& env) {
  return p.c <= gdn::kResRows && env.device != nullptr &&
         static_cast<std::size_t>(gdn::resident_smem_bytes(p.c)) <= env.device->smem_optin;
}

static_assert(gdn::kPersistSmemBytes == static_cast<long long>(kGdnPersistSmemBytes) &&
                  gdn::kResRows == 2 * kGdnTile && gdn::kBM == kGdnTile,
              "gdn_persist_fits (gdn_table.cpp) describes the persistent resident kernel");

// f32 in the resident kernels: hi*hi on TF32 and the two corrections as one bf16 mma
// (mma_ktile's BfCorr; issue 19, H100, N = 32, C = 256, 64 x 64, two runs, one process each:
// persistent 0.2796 / 0.2779 -> 0.2456 / 0.2444 ms = 2.57x composed, per-tile 0.2954 / 0.2941 ->
// 0.2495 / 0.2482; smaller errors against f64 than 3xTF32's in every probe case). The persistent
// kernel's own steps (copy order, swizzled gamma, m-tile epilogue) are at
// gdn_resident_persist_kernel.
template <class Epi>
gpuopt_status_t launch_resident(const GdnProblem& p, const Epi& epi, const ExecEnv& env,
                                const char* what) {
  gdn::ResidentArgs a;
  a.x = p.x;
  a.beta = p.beta;
  a.gamma = p.gamma;
  a.c = static_cast<int>(p.c);
  a.p = p.p;
  a.ptiles = static_cast<int>(ceil_div(p.p, gdn::kBM));
  a.vec_gamma = gdn_aligned(p.gamma, 16) && p.c % 4 == 0;
  a.vec_x = gdn_aligned(p.x, 16) && p.p % 4 == 0;
  const long long tiles = p.n * a.ptiles;
  // Whole problems (the bar's shape): the persistent kernel, one block per SM (issue 19, H100,
  // N = 32, C = 256, 64 x 64, one process: tf32 0.1604 -> 0.1343 ms, f32 0.2952 -> 0.2255).
  if (env.device != nullptr && gdn_persist_fits(p, *env.device) && tiles <= 2147483647) {
    const long long blocks = tiles < env.device->sm_count ? tiles : env.device->sm_count;
    const int smem = static_cast<int>(gdn::kPersistSmemBytes);
    const int n = static_cast<int>(tiles);
    return p.tf32 ? launch_sized(gdn::gdn_resident_persist_kernel<false, Epi, false>, blocks,
                                 gdn::kResThreads, smem, env, what, a, epi, n)
                  : launch_sized(gdn::gdn_resident_persist_kernel<true, Epi, true, true>, blocks,
                                 gdn::kResThreads, smem, env, what, a, epi, n);
  }
  const int smem = static_cast<int>(gdn::resident_smem_bytes(p.c));
  // tf32: operands truncated to TF32 by the mma, not rounded (round 9b: 0.1995 -> 0.1875 ms,
  // H100, N = 32, C = 256, 64 x 64); f32 (3xTF32) keeps its rounded hi parts.
  return p.tf32 ? launch_sized(gdn::gdn_resident_mix_kernel<false, Epi, false>, tiles,
                               gdn::kResThreads, smem, env, what, a, epi)
                : launch_sized(gdn::gdn_resident_mix_kernel<true, Epi, true, true>, tiles,
                               gdn::kResThreads, smem, env, what, a, epi);
}

// u = gamma^T t: A(m, k) = gamma[k * C + m] (m-contiguous), B = t
MmaArgs dx_args(const GdnProblem& p, const float* t) {
  MmaArgs u;
  u.a = p.gamma;
  u.lda = p.c;
  u.b = t;
  u.ldb = p.p;
  u.b_img = p.c * p.p;
  u.m = static_cast<int>(p.c);
  u.n = static_cast<int>(p.p);
  u.k = u.chunk_k = p.c;
  set_tiles(&u);
  return u;
}

// dgamma = sum t x^2^T: A(i, pix) = t, B(pix, j) = x^2, both pixel-contiguous; split-K over
// (image, kGdnDgammaChunk-pixel chunk)
MmaArgs dgamma_args(const GdnProblem& p, const float* t) {
  MmaArgs d;
  d.a = t;
  d.lda = p.p;
  d.a_img = p.c * p.p;
  d.b = p.x;
  d.ldb = p.p;
  d.b_img = p.c * p.p;
  d.m = d.n = static_cast<int>(p.c);
  d.k = p.p;
  d.chunk_k = kGdnDgammaChunk;
  d.chunks = static_cast<int>(ceil_div(p.p, kGdnDgammaChunk));
  set_tiles(&d);
  return d;
}

gpuopt_status_t backward(const GdnProblem& p, const ExecEnv& env) {
  const GdnWorkspaceLayout l = gdn_fused_layout(GPUOPT_GDN_BACKWARD, p.n, p.c, p.p);
  float* t = gdn_ws_floats(p, l.t);
  GPUOPT_TRY(gdn_fused_backward_grad(p, env));
  const MmaArgs u = dx_args(p, t);
  const MmaArgs d = dgamma_args(p, t);
  // dgamma and dx GEMMs in one launch, interleaved per image (t and x read once from DRAM)
  const DgammaEpi de{gdn_ws_floats(p, l.dgpart), p.c, p.c % 2 == 0};
  const DxEpi xe{p.x, p.dx, p.c * p.p, p.p, pairs(p, t)};
  const long long blocks = p.n * (static_cast<long long>(d.mtiles) * d.ntiles * d.chunks +
                                  static_cast<long long>(u.mtiles) * u.ntiles);
  constexpr const char* kWhat = "gdn fused backward dgamma + dx kernel";
  GPUOPT_TRY(p.tf32
                 ? launch_blocks(gdn::gdn_mma_pair_kernel<true, false, true, true, DgammaEpi, false,
                                                          false, false, false, DxEpi, false>,
                                 blocks, env, kWhat, d, de, u, xe)
                 : launch_blocks(gdn::gdn_mma_pair_kernel<true, false, true, true, DgammaEpi, false,
                                                          false, false, false, DxEpi, true>,
                                 blocks, env, kWhat, d, de, u, xe));
  return gdn_fused_backward_sums(p, env);
}

}  // namespace

gpuopt_status_t gdn_launch_sm80_mma_fused(const GdnProblem& p, const ExecEnv& env) {
  if (p.pass == GPUOPT_GDN_BACKWARD) return backward(p, env);
  if (resident_fits(p, env)) {
    constexpr const char* kWhat = "gdn fused forward (resident x) kernel";
    const bool pair = pairs(p, p.y), quad = p.p % 4 == 0 && gdn_aligned(p.y, 16);
    return p.inverse ? launch_resident(p, ResForwardEpi<true>{p.y, pair, quad}, env, kWhat)
                     : launch_resident(p, ResForwardEpi<false>{p.y, pair, quad}, env, kWhat);
  }
  ForwardEpi fe{p.x, p.beta, p.y, p.c * p.p, p.p, p.inverse, pairs(p, p.y)};
  return launch_mma<true, false, false, true>(p, mix_args(p), p.n, fe, env,
                                              "gdn fused forward kernel");
}

// (1) of the backward pass: the generic GEMM z, epilogue t = dy * x * ds/dz (workspace), dx = dy
// * s, per-block dbeta partials. (The resident-x mix kernel as this GEMM was slower in run 4:
// 1.38 vs 1.30 ms f32 in total.)
gpuopt_status_t gdn_fused_backward_grad(const GdnProblem& p, const ExecEnv& env) {
  const GdnWorkspaceLayout l = gdn_fused_layout(GPUOPT_GDN_BACKWARD, p.n, p.c, p.p);
  float* t = gdn_ws_floats(p, l.t);
  const auto launch = [&](auto epi) {
    epi.x = p.x;
    epi.beta = p.beta;
    epi.dy = p.dy;
    epi.t = t;
    epi.dx = p.dx;
    epi.bpart = gdn_ws_floats(p, l.bpart);
    epi.img = p.c * p.p;
    epi.p = p.p;
    epi.c = static_cast<int>(p.c);
    epi.ntiles = static_cast<int>(ceil_div(p.p, gdn::kBM));
    epi.pair = pairs(p, t);
    return launch_mma<true, false, false, true>(p, mix_args(p), p.n, epi, env,
                                                "gdn fused backward z/t kernel");
  };
  return p.inverse ? launch(GradEpi<true>{}) : launch(GradEpi<false>{});
}

// The dgamma GEMM alone (split-K partials), then (3): the fixed-order sums of the dgamma and
// dbeta partials.
gpuopt_status_t gdn_fused_backward_dgamma(const GdnProblem& p, const ExecEnv& env) {
  const GdnWorkspaceLayout l = gdn_fused_layout(GPUOPT_GDN_BACKWARD, p.n, p.c, p.p);
  const MmaArgs d = dgamma_args(p, gdn_ws_floats(p, l.t));
  const DgammaEpi de{gdn_ws_floats(p, l.dgpart), p.c, p.c % 2 == 0};
  GPUOPT_TRY((launch_mma<true, false, true, true>(p, d, p.n * d.chunks, de, env,
                                                  "gdn fused backward dgamma kernel")));
  return gdn_fused_backward_sums(p, env);
}

}  // namespace gpuopt
