// gemm cublas: cublasGemmEx_64 / cublasGemmStridedBatchedEx_64 (cublasSgemmStridedBatched_64 for
// batched exact f32) on the stream's own handle and workspace, with the compute type the problem
// asks for (gemm_cublas_compute: 64F, 32F for exact f32 and for bf16/f16 inputs, 32F_FAST_TF32):
// the calls torch.matmul makes. One of the two vendor rungs every own rung is measured against
// (the other: cublaslt_vendor.cpp).
#include <cublas_v2.h>

#include "kernels/gemm/cublas_types.hpp"
#include "kernels/gemm/gemm.hpp"
#include "runtime/blas_error.hpp"

namespace gpuopt {

gpuopt_status_t gemm_launch_cublas(const GemmProblem& p, const ExecEnv& env) {
  const cublasComputeType_t compute = gemm_cublas_compute(p);
  const GemmScalars s(p);
  const void* alpha = s.alpha();
  const void* beta = s.beta();
  const cudaDataType_t ab = gemm_cuda_type(p.a_type), c = gemm_cuda_type(p.c_type);
  cublasStatus_t st;
  if (p.batch == 1) {
    st = cublasGemmEx_64(env.blas, gemm_cublas_op(p.trans_a), gemm_cublas_op(p.trans_b), p.m, p.n,
                         p.k, alpha, p.A, ab, p.lda, p.B, ab, p.ldb, beta, p.C, c, p.ldc, compute,
                         CUBLAS_GEMM_DEFAULT);
  } else if (!gemm_need_types(p, GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F32, GPUOPT_COMPUTE_F32)) {
    // torch.bmm's exact-f32 call (cublasSgemmStridedBatched): GemmStridedBatchedEx with 32F ran
    // 2.2% behind it on 512 x 256^3 in one process on the same tensors (H100, 4e9306a).
    st = cublasSgemmStridedBatched_64(
        env.blas, gemm_cublas_op(p.trans_a), gemm_cublas_op(p.trans_b), p.m, p.n, p.k,
        static_cast<const float*>(alpha), static_cast<const float*>(p.A), p.lda, p.stride_a,
        static_cast<const float*>(p.B), p.ldb, p.stride_b, static_cast<const float*>(beta),
        static_cast<float*>(p.C), p.ldc, p.stride_c, p.batch);
  } else {
    st = cublasGemmStridedBatchedEx_64(env.blas, gemm_cublas_op(p.trans_a),
                                       gemm_cublas_op(p.trans_b), p.m, p.n, p.k, alpha, p.A, ab,
                                       p.lda, p.stride_a, p.B, ab, p.ldb, p.stride_b, beta, p.C, c,
                                       p.ldc, p.stride_c, p.batch, compute, CUBLAS_GEMM_DEFAULT);
  }
  return st == CUBLAS_STATUS_SUCCESS ? GPUOPT_SUCCESS : blas_fail(st, env.fn, "cublas gemm");
}

}  // namespace gpuopt
