// gemm cublas: cublasGemmEx_64 / cublasGemmStridedBatchedEx_64 on the stream's own handle, with
// the compute type the problem asks for (64F, 32F_PEDANTIC for exact f32, 32F_FAST_TF32, 32F for
// bf16/f16 inputs). The vendor bar every rung is measured against.
#include <cublas_v2.h>

#include "kernels/gemm/gemm.hpp"
#include "runtime/blas_error.hpp"

namespace gpuopt {
namespace {

cudaDataType_t cuda_type(gpuopt_dtype_t t) {
  switch (t) {
    case GPUOPT_DTYPE_F64: return CUDA_R_64F;
    case GPUOPT_DTYPE_F32: return CUDA_R_32F;
    case GPUOPT_DTYPE_BF16: return CUDA_R_16BF;
    case GPUOPT_DTYPE_F16: return CUDA_R_16F;
    default: return CUDA_R_32F;
  }
}

cublasOperation_t cublas_op(gpuopt_transpose_t t) {
  return t == GPUOPT_TRANS_N ? CUBLAS_OP_N : CUBLAS_OP_T;
}

}  // namespace

gpuopt_status_t gemm_launch_cublas(const GemmProblem& p, const ExecEnv& env) {
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  if (p.compute == GPUOPT_COMPUTE_F64) compute = CUBLAS_COMPUTE_64F;
  // Exact f32 means no tensor cores for f32 inputs; for bf16/f16 inputs F32 only names the
  // accumulator, and cuBLAS's plain 32F compute runs them on the tensor cores.
  if (p.compute == GPUOPT_COMPUTE_F32 && p.a_type == GPUOPT_DTYPE_F32)
    compute = CUBLAS_COMPUTE_32F_PEDANTIC;
  if (p.compute == GPUOPT_COMPUTE_TF32) compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  const double alpha64 = p.alpha, beta64 = p.beta;
  const float alpha32 = static_cast<float>(p.alpha), beta32 = static_cast<float>(p.beta);
  const void* alpha = compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&alpha64) : &alpha32;
  const void* beta = compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&beta64) : &beta32;
  const cudaDataType_t ab = cuda_type(p.a_type), c = cuda_type(p.c_type);
  cublasStatus_t st;
  if (p.batch == 1) {
    st = cublasGemmEx_64(env.blas, cublas_op(p.trans_a), cublas_op(p.trans_b), p.m, p.n, p.k,
                         alpha, p.A, ab, p.lda, p.B, ab, p.ldb, beta, p.C, c, p.ldc, compute,
                         CUBLAS_GEMM_DEFAULT);
  } else {
    st = cublasGemmStridedBatchedEx_64(env.blas, cublas_op(p.trans_a), cublas_op(p.trans_b), p.m,
                                       p.n, p.k, alpha, p.A, ab, p.lda, p.stride_a, p.B, ab, p.ldb,
                                       p.stride_b, beta, p.C, c, p.ldc, p.stride_c, p.batch,
                                       compute, CUBLAS_GEMM_DEFAULT);
  }
  return st == CUBLAS_STATUS_SUCCESS ? GPUOPT_SUCCESS : blas_fail(st, env.fn, "cublas gemm");
}

}  // namespace gpuopt
