// cuBLAS level-3 calls by element type and the BLAS character flags as cuBLAS enums: the in-core
// routines (gpu_level3.cpp) and the diagonal steps of the blocked ones (gpu_blocked.cpp).
#pragma once

#include <cublas_v2.h>

namespace gpuopt_blas {
namespace gpu {

inline cublasFillMode_t fill(char uplo) {
  return uplo == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
}
inline cublasOperation_t op(char t) { return t == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T; }
inline cublasSideMode_t side_of(char s) { return s == 'L' ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT; }
inline cublasDiagType_t diag_of(char d) {
  return d == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
}

// cuBLAS by element type.
inline cublasStatus_t xsymm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, int m, int n,
                            const double* al, const double* A, int lda, const double* B, int ldb,
                            const double* be, double* C, int ldc) {
  return cublasDsymm(h, s, u, m, n, al, A, lda, B, ldb, be, C, ldc);
}
inline cublasStatus_t xsymm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, int m, int n,
                            const float* al, const float* A, int lda, const float* B, int ldb,
                            const float* be, float* C, int ldc) {
  return cublasSsymm(h, s, u, m, n, al, A, lda, B, ldb, be, C, ldc);
}
inline cublasStatus_t xsyrk(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, int n, int k,
                            const double* al, const double* A, int lda, const double* be, double* C,
                            int ldc) {
  return cublasDsyrk(h, u, t, n, k, al, A, lda, be, C, ldc);
}
inline cublasStatus_t xsyrk(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, int n, int k,
                            const float* al, const float* A, int lda, const float* be, float* C,
                            int ldc) {
  return cublasSsyrk(h, u, t, n, k, al, A, lda, be, C, ldc);
}
inline cublasStatus_t xsyr2k(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, int n,
                             int k, const double* al, const double* A, int lda, const double* B,
                             int ldb, const double* be, double* C, int ldc) {
  return cublasDsyr2k(h, u, t, n, k, al, A, lda, B, ldb, be, C, ldc);
}
inline cublasStatus_t xsyr2k(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, int n,
                             int k, const float* al, const float* A, int lda, const float* B,
                             int ldb, const float* be, float* C, int ldc) {
  return cublasSsyr2k(h, u, t, n, k, al, A, lda, B, ldb, be, C, ldc);
}
// trmm (in place: C = B) and trsm.
inline cublasStatus_t xtr(bool solve, cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u,
                          cublasOperation_t t, cublasDiagType_t d, int m, int n, const double* al,
                          const double* A, int lda, double* B, int ldb) {
  return solve ? cublasDtrsm(h, s, u, t, d, m, n, al, A, lda, B, ldb)
               : cublasDtrmm(h, s, u, t, d, m, n, al, A, lda, B, ldb, B, ldb);
}
inline cublasStatus_t xtr(bool solve, cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u,
                          cublasOperation_t t, cublasDiagType_t d, int m, int n, const float* al,
                          const float* A, int lda, float* B, int ldb) {
  return solve ? cublasStrsm(h, s, u, t, d, m, n, al, A, lda, B, ldb)
               : cublasStrmm(h, s, u, t, d, m, n, al, A, lda, B, ldb, B, ldb);
}

}  // namespace gpu
}  // namespace gpuopt_blas
