/* A stand-in CPU BLAS for blas.ilp64.forward: an LP64 dgemm_ and an ILP64 dgemm_64_ that compute
 * nothing and leave a mark in C[0] (-1: the LP64 routine ran; m: the ILP64 one ran), so the test
 * sees which of them gpuopt_blas forwarded a call to. It has no dtrsm_64_: such calls are refused.
 */
#include <stddef.h>
#include <stdint.h>

#define API __attribute__((visibility("default")))

API void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,
                const double* alpha, const double* A, const int* lda, const double* B,
                const int* ldb, const double* beta, double* C, const int* ldc, size_t lta,
                size_t ltb) {
  (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)lda, (void)B;
  (void)ldb, (void)beta, (void)ldc, (void)lta, (void)ltb;
  C[0] = -1;
}

API void dgemm_64_(const char* ta, const char* tb, const int64_t* m, const int64_t* n,
                   const int64_t* k, const double* alpha, const double* A, const int64_t* lda,
                   const double* B, const int64_t* ldb, const double* beta, double* C,
                   const int64_t* ldc, size_t lta, size_t ltb) {
  (void)ta, (void)tb, (void)n, (void)k, (void)alpha, (void)A, (void)lda, (void)B, (void)ldb;
  (void)beta, (void)ldc, (void)lta, (void)ltb;
  C[0] = (double)*m;
}
