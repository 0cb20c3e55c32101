// The Fortran level-3 entry points (dgemm_ ... strsm_, and the same without the trailing
// underscore): reference argument checks, XERBLA, then run_*.
#include <stddef.h>

#include "level3.hpp"
#include "level3_check.hpp"
#include "xerbla.hpp"

#define API extern "C" __attribute__((visibility("default")))

using namespace gpuopt_blas;

#define GPUOPT_BLAS_F77(T, P, NAME)                                                                \
  API void P##gemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,      \
                    const T* alpha, const T* A, const int* lda, const T* B, const int* ldb,        \
                    const T* beta, T* C, const int* ldc, size_t, size_t) {                         \
    int info = check_gemm(*ta, *tb, *m, *n, *k, *lda, *ldb, *ldc);                                 \
    if (info) return report_f77(NAME "GEMM ", info);                                               \
    run_gemm<T>(real_trans(*ta), real_trans(*tb), *m, *n, *k, *alpha, A, *lda, B, *ldb, *beta, C,  \
                *ldc);                                                                             \
  }                                                                                                \
  API void P##symm_(const char* side, const char* uplo, const int* m, const int* n,                \
                    const T* alpha, const T* A, const int* lda, const T* B, const int* ldb,        \
                    const T* beta, T* C, const int* ldc, size_t, size_t) {                         \
    int info = check_symm(*side, *uplo, *m, *n, *lda, *ldb, *ldc);                                 \
    if (info) return report_f77(NAME "SYMM ", info);                                               \
    run_symm<T>(up(*side), up(*uplo), *m, *n, *alpha, A, *lda, B, *ldb, *beta, C, *ldc);           \
  }                                                                                                \
  API void P##syrk_(const char* uplo, const char* trans, const int* n, const int* k,               \
                    const T* alpha, const T* A, const int* lda, const T* beta, T* C,               \
                    const int* ldc, size_t, size_t) {                                              \
    int info = check_syrk(*uplo, *trans, *n, *k, *lda, *ldc);                                      \
    if (info) return report_f77(NAME "SYRK ", info);                                               \
    run_syrk<T>(up(*uplo), real_trans(*trans), *n, *k, *alpha, A, *lda, *beta, C, *ldc);           \
  }                                                                                                \
  API void P##syr2k_(const char* uplo, const char* trans, const int* n, const int* k,              \
                     const T* alpha, const T* A, const int* lda, const T* B, const int* ldb,       \
                     const T* beta, T* C, const int* ldc, size_t, size_t) {                        \
    int info = check_syr2k(*uplo, *trans, *n, *k, *lda, *ldb, *ldc);                               \
    if (info) return report_f77(NAME "SYR2K", info);                                               \
    run_syr2k<T>(up(*uplo), real_trans(*trans), *n, *k, *alpha, A, *lda, B, *ldb, *beta, C, *ldc); \
  }                                                                                                \
  API void P##trmm_(const char* side, const char* uplo, const char* ta, const char* diag,          \
                    const int* m, const int* n, const T* alpha, const T* A, const int* lda, T* B,  \
                    const int* ldb, size_t, size_t, size_t, size_t) {                              \
    int info = check_trxm(*side, *uplo, *ta, *diag, *m, *n, *lda, *ldb);                           \
    if (info) return report_f77(NAME "TRMM ", info);                                               \
    run_trmm<T>(up(*side), up(*uplo), real_trans(*ta), up(*diag), *m, *n, *alpha, A, *lda, B,      \
                *ldb);                                                                             \
  }                                                                                                \
  API void P##trsm_(const char* side, const char* uplo, const char* ta, const char* diag,          \
                    const int* m, const int* n, const T* alpha, const T* A, const int* lda, T* B,  \
                    const int* ldb, size_t, size_t, size_t, size_t) {                              \
    int info = check_trxm(*side, *uplo, *ta, *diag, *m, *n, *lda, *ldb);                           \
    if (info) return report_f77(NAME "TRSM ", info);                                               \
    run_trsm<T>(up(*side), up(*uplo), real_trans(*ta), up(*diag), *m, *n, *alpha, A, *lda, B,      \
                *ldb);                                                                             \
  }                                                                                                \
  API void P##gemm(const char*, const char*, const int*, const int*, const int*, const T*,         \
                   const T*, const int*, const T*, const int*, const T*, T*, const int*, size_t,   \
                   size_t) __attribute__((alias(#P "gemm_")));                                     \
  API void P##symm(const char*, const char*, const int*, const int*, const T*, const T*,           \
                   const int*, const T*, const int*, const T*, T*, const int*, size_t, size_t)     \
      __attribute__((alias(#P "symm_")));                                                          \
  API void P##syrk(const char*, const char*, const int*, const int*, const T*, const T*,           \
                   const int*, const T*, T*, const int*, size_t, size_t)                           \
      __attribute__((alias(#P "syrk_")));                                                          \
  API void P##syr2k(const char*, const char*, const int*, const int*, const T*, const T*,          \
                    const int*, const T*, const int*, const T*, T*, const int*, size_t, size_t)    \
      __attribute__((alias(#P "syr2k_")));                                                         \
  API void P##trmm(const char*, const char*, const char*, const char*, const int*, const int*,     \
                   const T*, const T*, const int*, T*, const int*, size_t, size_t, size_t, size_t) \
      __attribute__((alias(#P "trmm_")));                                                          \
  API void P##trsm(const char*, const char*, const char*, const char*, const int*, const int*,     \
                   const T*, const T*, const int*, T*, const int*, size_t, size_t, size_t, size_t) \
      __attribute__((alias(#P "trsm_")));

GPUOPT_BLAS_F77(double, d, "D")
GPUOPT_BLAS_F77(float, s, "S")
