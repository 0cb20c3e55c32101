// gdn composed: the way GDN is usually written, separate elementwise kernels around cuBLAS
// (exact SGEMM, CUBLAS_COMPUTE_32F_PEDANTIC, for f32; CUBLAS_COMPUTE_32F_FAST_TF32 for tf32).
//   forward : x2 = x^2; y = Z via a strided-batched GEMM (Z_n = gamma X2_n); y = x * s(beta + y)
//             in place.
//   backward: x2 = x^2; dx = Z (temporary); t = dy x ds/dz, dx = dy s; dgamma_n = T_n X2_n^T
//             (strided-batched GEMM) summed over images by a GEMV with ones; dbeta by two GEMVs
//             with ones; x2 = U = gamma^T T (strided-batched); dx += 2 x u.
// The baseline the fused variant is measured against (docs/notes/gdn.md).
#include <cublas_v2.h>

#include "common/launch.hpp"
#include "kernels/gdn/gdn.hpp"
#include "kernels/gdn/gdn_math.cuh"
#include "runtime/blas_error.hpp"

namespace gpuopt {
namespace {

constexpr int kThreads = 256;

__global__ void square_kernel(const float* x, float* x2, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    x2[i] = x[i] * x[i];
}

__global__ void fill_kernel(float* v, long long n, float value) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    v[i] = value;
}

// One block per (image, channel) row of p pixels: y = x * s(beta_c + y).
__global__ void forward_epilogue_kernel(const float* x, const float* beta, float* y, long long c,
                                        long long p, bool inverse) {
  const long long row = blockIdx.x;
  const float b = beta[row % c];
  for (long long i = row * p + threadIdx.x; i < (row + 1) * p; i += blockDim.x)
    y[i] = x[i] * gdn_scale(b + y[i], inverse);
}

// dx holds z on entry: t = dy x ds/dz, dx = dy s.
__global__ void gradient_terms_kernel(const float* x, const float* beta, const float* dy, float* t,
                                      float* dx, long long c, long long p, bool inverse) {
  const long long row = blockIdx.x;
  const float b = beta[row % c];
  for (long long i = row * p + threadIdx.x; i < (row + 1) * p; i += blockDim.x) {
    const float z = b + dx[i];
    const float s = gdn_scale(z, inverse);
    t[i] = dy[i] * x[i] * gdn_dscale(z, s, inverse);
    dx[i] = dy[i] * s;
  }
}

__global__ void dx_finish_kernel(const float* x, const float* u, float* dx, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    dx[i] += 2.f * x[i] * u[i];
}

unsigned flat_blocks(long long n) {
  const long long b = ceil_div(n, kThreads);
  return static_cast<unsigned>(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

gpuopt_status_t blas(cublasStatus_t st, const ExecEnv& env, const char* what) {
  return st == CUBLAS_STATUS_SUCCESS ? GPUOPT_SUCCESS : blas_fail(st, env.fn, what);
}

cublasComputeType_t compute_of(const GdnProblem& p) {
  return p.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F_PEDANTIC;
}

// out_n = gamma-op * in_n for every image (column-major view: out^T = in^T * gamma-op^T):
// trans_gamma = false: Z = gamma X, true: U = gamma^T T.
gpuopt_status_t channel_mix(const GdnProblem& p, const float* in, float* out, bool trans_gamma,
                            const ExecEnv& env) {
  const float one = 1.f, zero = 0.f;
  return blas(cublasGemmStridedBatchedEx_64(
                  env.blas, CUBLAS_OP_N, trans_gamma ? CUBLAS_OP_T : CUBLAS_OP_N, p.p, p.c, p.c,
                  &one, in, CUDA_R_32F, p.p, p.c * p.p, p.gamma, CUDA_R_32F, p.c, 0, &zero, out,
                  CUDA_R_32F, p.p, p.c * p.p, p.n, compute_of(p), CUBLAS_GEMM_DEFAULT),
              env, "cublas channel-mix gemm");
}

gpuopt_status_t forward(const GdnProblem& p, const ExecEnv& env) {
  const GdnWorkspaceLayout l = gdn_composed_layout(GPUOPT_GDN_FORWARD, p.n, p.c, p.p);
  float* x2 = gdn_ws_floats(p, l.x2);
  const long long total = p.n * p.c * p.p;
  square_kernel<<<flat_blocks(total), kThreads, 0, env.stream>>>(p.x, x2, total);
  GPUOPT_TRY(check_launch(env.fn, "gdn composed square kernel"));
  GPUOPT_TRY(channel_mix(p, x2, p.y, false, env));
  forward_epilogue_kernel<<<static_cast<unsigned>(p.n * p.c), kThreads, 0, env.stream>>>(
      p.x, p.beta, p.y, p.c, p.p, p.inverse);
  return check_launch(env.fn, "gdn composed epilogue kernel");
}

gpuopt_status_t backward(const GdnProblem& p, const ExecEnv& env) {
  const GdnWorkspaceLayout l = gdn_composed_layout(GPUOPT_GDN_BACKWARD, p.n, p.c, p.p);
  float* x2 = gdn_ws_floats(p, l.x2);
  float* t = gdn_ws_floats(p, l.t);
  float* ones = gdn_ws_floats(p, l.ones);
  float* rowsums = gdn_ws_floats(p, l.rowsums);
  float* dgparts = gdn_ws_floats(p, l.dgpart);
  const long long total = p.n * p.c * p.p, img = p.c * p.p;
  const float one = 1.f, zero = 0.f;

  square_kernel<<<flat_blocks(total), kThreads, 0, env.stream>>>(p.x, x2, total);
  GPUOPT_TRY(check_launch(env.fn, "gdn composed square kernel"));
  GPUOPT_TRY(channel_mix(p, x2, p.dx, false, env));
  gradient_terms_kernel<<<static_cast<unsigned>(p.n * p.c), kThreads, 0, env.stream>>>(
      p.x, p.beta, p.dy, t, p.dx, p.c, p.p, p.inverse);
  GPUOPT_TRY(check_launch(env.fn, "gdn composed gradient kernel"));

  // per image: dgamma_n^T (column-major C x C) = X2_n^T(col-major P x C)^T * T_n(P x C), one
  // strided-batched GEMM; then dgamma = sum_n dgamma_n by a GEMV with ones (below)
  GPUOPT_TRY(blas(cublasGemmStridedBatchedEx_64(env.blas, CUBLAS_OP_T, CUBLAS_OP_N, p.c, p.c, p.p,
                                                &one, x2, CUDA_R_32F, p.p, img, t, CUDA_R_32F, p.p,
                                                img, &zero, dgparts, CUDA_R_32F, p.c, p.c * p.c,
                                                p.n, compute_of(p), CUBLAS_GEMM_DEFAULT),
                  env, "cublas dgamma gemm"));
  const long long nones = p.p > p.n ? p.p : p.n;
  fill_kernel<<<flat_blocks(nones), kThreads, 0, env.stream>>>(ones, nones, 1.f);
  GPUOPT_TRY(check_launch(env.fn, "gdn composed fill kernel"));
  // per-(image, channel) sums of t, then over images
  GPUOPT_TRY(blas(cublasSgemv_64(env.blas, CUBLAS_OP_T, p.p, p.n * p.c, &one, t, p.p, ones, 1,
                                 &zero, rowsums, 1),
                  env, "cublas dbeta gemv (pixels)"));
  GPUOPT_TRY(blas(cublasSgemv_64(env.blas, CUBLAS_OP_N, p.c, p.n, &one, rowsums, p.c, ones, 1,
                                 &zero, p.dbeta, 1),
                  env, "cublas dbeta gemv (images)"));
  GPUOPT_TRY(blas(cublasSgemv_64(env.blas, CUBLAS_OP_N, p.c * p.c, p.n, &one, dgparts, p.c * p.c,
                                 ones, 1, &zero, p.dgamma, 1),
                  env, "cublas dgamma gemv (images)"));

  GPUOPT_TRY(channel_mix(p, t, x2, true, env));  // x2 := u = gamma^T t
  dx_finish_kernel<<<flat_blocks(total), kThreads, 0, env.stream>>>(p.x, x2, p.dx, total);
  return check_launch(env.fn, "gdn composed dx kernel");
}

}  // namespace

gpuopt_status_t gdn_launch_composed(const GdnProblem& p, const ExecEnv& env) {
  return p.pass == GPUOPT_GDN_FORWARD ? forward(p, env) : backward(p, env);
}

}  // namespace gpuopt
