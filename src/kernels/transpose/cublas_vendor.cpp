// transpose cublas: cublasSgeam_64 / cublasDgeam_64 (B = 1 * A^T + 0 * B) on the stream's own
// cuBLAS handle: the vendor baseline of the ladder (f32 and f64; cuBLAS has no bf16 geam).
#include <cublas_v2.h>

#include "kernels/transpose/transpose.hpp"
#include "runtime/blas_error.hpp"

namespace gpuopt {

gpuopt_status_t transpose_launch_cublas(const TransposeProblem& p, const ExecEnv& env) {
  // beta = 0: the second operand is not read; passing B itself (op N, ldb) is cuBLAS's in-place
  // form, valid for any layout of B.
  cublasStatus_t st;
  if (p.dtype == GPUOPT_DTYPE_F32) {
    const float one = 1.0f, zero = 0.0f;
    auto* b = static_cast<float*>(p.B);
    st = cublasSgeam_64(env.blas, CUBLAS_OP_T, CUBLAS_OP_N, p.cols, p.rows, &one,
                        static_cast<const float*>(p.A), p.lda, &zero, b, p.ldb, b, p.ldb);
  } else {
    const double one = 1.0, zero = 0.0;
    auto* b = static_cast<double*>(p.B);
    st = cublasDgeam_64(env.blas, CUBLAS_OP_T, CUBLAS_OP_N, p.cols, p.rows, &one,
                        static_cast<const double*>(p.A), p.lda, &zero, b, p.ldb, b, p.ldb);
  }
  return st == CUBLAS_STATUS_SUCCESS ? GPUOPT_SUCCESS : blas_fail(st, env.fn, "cublas geam");
}

}  // namespace gpuopt
