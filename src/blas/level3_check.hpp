// Argument checks of the level-3 routines, in the reference BLAS's order: each returns the
// reference INFO (the 1-based position of the first bad argument of the Fortran routine) or 0.
// Character arguments are compared like LSAME (either case).
#pragma once

namespace gpuopt_blas {

/** Upper-cased character argument. */
inline char up(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c; }

int check_gemm(char transa, char transb, int m, int n, int k, int lda, int ldb, int ldc);
int check_symm(char side, char uplo, int m, int n, int lda, int ldb, int ldc);
int check_syrk(char uplo, char trans, int n, int k, int lda, int ldc);
int check_syr2k(char uplo, char trans, int n, int k, int lda, int ldb, int ldc);
/** dtrmm and dtrsm share their checks. */
int check_trxm(char side, char uplo, char transa, char diag, int m, int n, int lda, int ldb);

}  // namespace gpuopt_blas
