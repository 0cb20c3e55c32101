// The level-3 routines after their argument checks (column-major, character arguments upper
// case, 'C' meaning 'T' for real types): quick returns, alpha = 0, routing, GPU or CPU.
#pragma once

namespace gpuopt_blas {

/** 'd' or 's': the first letter of the routines of element type T. */
template <class T>
constexpr char blas_prefix() {
  return sizeof(T) == 8 ? 'd' : 's';
}

template <class T>
void run_gemm(char ta, char tb, int m, int n, int k, T alpha, const T* A, int lda, const T* B,
              int ldb, T beta, T* C, int ldc);
template <class T>
void run_symm(char side, char uplo, int m, int n, T alpha, const T* A, int lda, const T* B, int ldb,
              T beta, T* C, int ldc);
template <class T>
void run_syrk(char uplo, char trans, int n, int k, T alpha, const T* A, int lda, T beta, T* C,
              int ldc);
template <class T>
void run_syr2k(char uplo, char trans, int n, int k, T alpha, const T* A, int lda, const T* B,
               int ldb, T beta, T* C, int ldc);
template <class T>
void run_trmm(char side, char uplo, char ta, char diag, int m, int n, T alpha, const T* A, int lda,
              T* B, int ldb);
template <class T>
void run_trsm(char side, char uplo, char ta, char diag, int m, int n, T alpha, const T* A, int lda,
              T* B, int ldb);

}  // namespace gpuopt_blas
