// Argument checks of the level-3 routines, in the reference BLAS's order: each returns the
// reference INFO (the 1-based position of the first bad argument of the Fortran routine) or 0.
// Character arguments are compared like LSAME (either case). Dimensions are 64-bit, so the LP64
// and the ILP64 entry points share the checks.
#pragma once

#include <stdint.h>

namespace gpuopt_blas {

/** Upper-cased character argument. */
inline char up(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c; }

/** A TRANS argument of a real routine after its check: 'N', or 'T' (for 'T' and 'C'). */
inline char real_trans(char c) { return up(c) == 'N' ? 'N' : 'T'; }

int check_gemm(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
               int64_t ldc);
int check_symm(char side, char uplo, int64_t m, int64_t n, int64_t lda, int64_t ldb, int64_t ldc);
int check_syrk(char uplo, char trans, int64_t n, int64_t k, int64_t lda, int64_t ldc);
int check_syr2k(char uplo, char trans, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc);
/** dtrmm and dtrsm share their checks. */
int check_trxm(char side, char uplo, char transa, char diag, int64_t m, int64_t n, int64_t lda,
               int64_t ldb);

}  // namespace gpuopt_blas
