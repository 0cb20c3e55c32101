// gdn fused: the channel mixes on gpuopt's own tensor-core GEMM (gdn_mma.cuh) with the GDN
// arithmetic folded in, so no x^2 / z / u tensor is written:
//   forward  : one GEMM z = gamma * x^2 (x squared as its fragments are read), epilogue
//              y = x * s(beta + z). Streams x once and writes y once.
//   backward : (1) the same GEMM, epilogue t = dy * x * ds/dz (to the workspace), dx = dy * s and
//              per-block dbeta partials; (2) one launch of two GEMMs interleaved per image:
//              dgamma partials = t x^2^T over (image, 2048-pixel chunk) (split-K) and
//              u = gamma^T t with epilogue dx += 2 x u, so t and x come from DRAM once;
//              (3) a fixed-order (deterministic) f64 sum of the dgamma and dbeta partials.
// f32 mode uses 3xTF32 (f32-level accuracy on tensor cores), tf32 mode 1xTF32. Epilogues load
// a fragment row's inputs before storing (first H200 run, serial load-use-store epilogue: tf32
// forward 0.272 ms, only 1.09x composed). Figures: docs/notes/gdn.md.
#include "common/launch.hpp"
#include "kernels/gdn/gdn.hpp"
#include "kernels/gdn/gdn_math.cuh"
#include "kernels/gdn/gdn_mma.cuh"

namespace gpuopt {
namespace {

using gdn::MmaArgs;
static_assert(gdn::kSmemBytes == kGdnFusedSmemBytes, "gdn.hpp and gdn_mma.cuh disagree");

// The epilogues: load(z, m, n) reads an element's inputs, apply(z, m, n, acc, pre) combines them
// with the GEMM result and stores (the kernel issues a fragment row's loads before its stores).
// Pointers are __restrict__: the outputs never alias the inputs (validated by the API).

// y = x * s(beta + z)
struct ForwardEpi {
  static constexpr bool kRowSum = false;
  struct Pre {
    float x, b;
  };
  const float* __restrict__ x;
  const float* __restrict__ beta;
  float* __restrict__ y;
  long long img, p;  // elements per image, pixels
  bool inverse;
  __device__ Pre load(int z, int m, int n) const {
    return {__ldg(x + z * img + m * p + n), __ldg(beta + m)};
  }
  __device__ float apply(int z, int m, int n, float acc, const Pre& pr) const {
    y[z * img + m * p + n] = pr.x * gdn_scale(pr.b + acc, inverse);
    return 0.f;
  }
  __device__ void row_sum(int, int, int, float) const {}
};

// t = dy * x * ds/dz, dx = dy * s; row sums of t per block -> dbeta partials
struct GradEpi {
  static constexpr bool kRowSum = true;
  struct Pre {
    float x, dy, b;
  };
  const float* __restrict__ x;
  const float* __restrict__ beta;
  const float* __restrict__ dy;
  float* __restrict__ t;
  float* __restrict__ dx;
  float* __restrict__ bpart;  // [image * ntiles + ntile][C]
  long long img, p;
  int c, ntiles;
  bool inverse;
  __device__ Pre load(int z, int m, int n) const {
    const long long i = z * img + m * p + n;
    return {__ldg(x + i), __ldg(dy + i), __ldg(beta + m)};
  }
  __device__ float apply(int z, int m, int n, float acc, const Pre& pr) const {
    const long long i = z * img + m * p + n;
    const float zz = pr.b + acc;
    const float s = gdn_scale(zz, inverse);
    const float tv = pr.dy * pr.x * gdn_dscale(zz, s, inverse);
    t[i] = tv;
    dx[i] = pr.dy * s;
    return tv;
  }
  __device__ void row_sum(int z, int nt, int m, float v) const {
    bpart[(static_cast<long long>(z) * ntiles + nt) * c + m] = v;
  }
};

// dx += 2 x u
struct DxEpi {
  static constexpr bool kRowSum = false;
  struct Pre {
    float x, dx;
  };
  const float* __restrict__ x;
  float* __restrict__ dx;
  long long img, p;
  __device__ Pre load(int z, int m, int n) const {
    const long long i = z * img + m * p + n;
    return {__ldg(x + i), dx[i]};
  }
  __device__ float apply(int z, int m, int n, float acc, const Pre& pr) const {
    dx[z * img + m * p + n] = pr.dx + 2.f * pr.x * acc;
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
  __device__ Pre load(int, int, int) const { return {}; }
  __device__ float apply(int z, int m, int n, float acc, const Pre&) const {
    part[(z * c + m) * c + n] = acc;
    return 0.f;
  }
  __device__ void row_sum(int, int, int, float) const {}
};

// dgamma[e] = sum_s dgpart[s][e], dbeta[i] = sum_q bpart[q][i], in index order (deterministic).
__global__ void gdn_sum_partials(const float* dgpart, long long splits, long long cc, float* dgamma,
                                 const float* bpart, long long bparts, long long c, float* dbeta) {
  const long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (e < cc) {
    double s = 0.0;
    for (long long q = 0; q < splits; ++q) s += dgpart[q * cc + e];
    dgamma[e] = static_cast<float>(s);
  } else if (e < cc + c) {
    double s = 0.0;
    for (long long q = 0; q < bparts; ++q) s += bpart[q * c + (e - cc)];
    dbeta[e - cc] = static_cast<float>(s);
  }
}

void set_tiles(MmaArgs* a) {
  a->mtiles = static_cast<int>(ceil_div(a->m, gdn::kBM));
  a->ntiles = static_cast<int>(ceil_div(a->n, gdn::kBM));
}

// Sets the kernel's shared memory limit and launches it with `blocks` blocks.
template <class Kernel, class... Args>
gpuopt_status_t launch_blocks(Kernel kernel, long long blocks, const ExecEnv& env, const char* what,
                              const Args&... args) {
  const cudaError_t e =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, gdn::kSmemBytes);
  if (e != cudaSuccess) return fail_cuda(e, env.fn, what);
  kernel<<<static_cast<unsigned>(blocks), gdn::kThreads, gdn::kSmemBytes, env.stream>>>(args...);
  return check_launch(env.fn, what);
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

gpuopt_status_t backward(const GdnProblem& p, const ExecEnv& env) {
  const GdnWorkspaceLayout l = gdn_fused_layout(GPUOPT_GDN_BACKWARD, p.n, p.c, p.p);
  float* t = gdn_ws_floats(p, l.t);
  float* bpart = gdn_ws_floats(p, l.bpart);
  float* dgpart = gdn_ws_floats(p, l.dgpart);
  const long long img = p.c * p.p;
  const int ntiles = static_cast<int>(ceil_div(p.p, gdn::kBM));

  GradEpi ge{p.x, p.beta, p.dy, t, p.dx, bpart, img, p.p, static_cast<int>(p.c), ntiles, p.inverse};
  GPUOPT_TRY((launch_mma<true, false, false, true>(p, mix_args(p), p.n, ge, env,
                                                   "gdn fused backward z/t kernel")));

  MmaArgs u;  // u = gamma^T t: A(m, k) = gamma[k * C + m] (m-contiguous), B = t
  u.a = p.gamma;
  u.lda = p.c;
  u.b = t;
  u.ldb = p.p;
  u.b_img = img;
  u.m = static_cast<int>(p.c);
  u.n = static_cast<int>(p.p);
  u.k = u.chunk_k = p.c;
  MmaArgs d;  // dgamma = sum t x^2^T: A(i, pix) = t, B(pix, j) = x^2, both pixel-contiguous
  d.a = t;
  d.lda = p.p;
  d.a_img = img;
  d.b = p.x;
  d.ldb = p.p;
  d.b_img = img;
  d.m = d.n = static_cast<int>(p.c);
  d.k = p.p;
  d.chunk_k = kGdnDgammaChunk;
  d.chunks = static_cast<int>(ceil_div(p.p, kGdnDgammaChunk));
  // dgamma and dx GEMMs in one launch, interleaved per image (t and x read once from DRAM)
  set_tiles(&d);
  set_tiles(&u);
  const DgammaEpi de{dgpart, p.c};
  const DxEpi xe{p.x, p.dx, img, p.p};
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

  const long long cc = p.c * p.c;
  const long long threads = cc + p.c;
  gdn_sum_partials<<<static_cast<unsigned>(ceil_div(threads, 256)), 256, 0, env.stream>>>(
      dgpart, p.n * d.chunks, cc, p.dgamma, bpart, p.n * ntiles, p.c, p.dbeta);
  return check_launch(env.fn, "gdn fused partial sums kernel");
}

}  // namespace

gpuopt_status_t gdn_launch_fused(const GdnProblem& p, const ExecEnv& env) {
  if (p.pass == GPUOPT_GDN_BACKWARD) return backward(p, env);
  ForwardEpi fe{p.x, p.beta, p.y, p.c * p.p, p.p, p.inverse};
  return launch_mma<true, false, false, true>(p, mix_args(p), p.n, fe, env,
                                              "gdn fused forward kernel");
}

}  // namespace gpuopt
