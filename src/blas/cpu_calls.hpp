// Typed calls of the CPU BLAS's level-3 routines (Fortran ABI: every argument by reference,
// hidden character lengths last, LP64 integers), looked up once per routine.
#pragma once

#include <stddef.h>

#include "cpu_lib.hpp"

namespace gpuopt_blas {

template <class T>
struct Cpu;

#define GPUOPT_BLAS_CPU_CALLS(T, P)                                                                \
  template <>                                                                                      \
  struct Cpu<T> {                                                                                  \
    static void gemm(char ta, char tb, int m, int n, int k, T alpha, const T* A, int lda,          \
                     const T* B, int ldb, T beta, T* C, int ldc) {                                 \
      using F = void (*)(const char*, const char*, const int*, const int*, const int*, const T*,   \
                         const T*, const int*, const T*, const int*, const T*, T*, const int*,     \
                         size_t, size_t);                                                          \
      static F f = reinterpret_cast<F>(cpu_symbol_or_die(#P "gemm_"));                             \
      f(&ta, &tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);                     \
    }                                                                                              \
    static void symm(char side, char uplo, int m, int n, T alpha, const T* A, int lda, const T* B, \
                     int ldb, T beta, T* C, int ldc) {                                             \
      using F =                                                                                    \
          void (*)(const char*, const char*, const int*, const int*, const T*, const T*,           \
                   const int*, const T*, const int*, const T*, T*, const int*, size_t, size_t);    \
      static F f = reinterpret_cast<F>(cpu_symbol_or_die(#P "symm_"));                             \
      f(&side, &uplo, &m, &n, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);                     \
    }                                                                                              \
    static void syrk(char uplo, char trans, int n, int k, T alpha, const T* A, int lda, T beta,    \
                     T* C, int ldc) {                                                              \
      using F = void (*)(const char*, const char*, const int*, const int*, const T*, const T*,     \
                         const int*, const T*, T*, const int*, size_t, size_t);                    \
      static F f = reinterpret_cast<F>(cpu_symbol_or_die(#P "syrk_"));                             \
      f(&uplo, &trans, &n, &k, &alpha, A, &lda, &beta, C, &ldc, 1, 1);                             \
    }                                                                                              \
    static void syr2k(char uplo, char trans, int n, int k, T alpha, const T* A, int lda,           \
                      const T* B, int ldb, T beta, T* C, int ldc) {                                \
      using F =                                                                                    \
          void (*)(const char*, const char*, const int*, const int*, const T*, const T*,           \
                   const int*, const T*, const int*, const T*, T*, const int*, size_t, size_t);    \
      static F f = reinterpret_cast<F>(cpu_symbol_or_die(#P "syr2k_"));                            \
      f(&uplo, &trans, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);                    \
    }                                                                                              \
    static void trmm(char side, char uplo, char ta, char diag, int m, int n, T alpha, const T* A,  \
                     int lda, T* B, int ldb) {                                                     \
      using F = void (*)(const char*, const char*, const char*, const char*, const int*,           \
                         const int*, const T*, const T*, const int*, T*, const int*, size_t,       \
                         size_t, size_t, size_t);                                                  \
      static F f = reinterpret_cast<F>(cpu_symbol_or_die(#P "trmm_"));                             \
      f(&side, &uplo, &ta, &diag, &m, &n, &alpha, A, &lda, B, &ldb, 1, 1, 1, 1);                   \
    }                                                                                              \
    static void trsm(char side, char uplo, char ta, char diag, int m, int n, T alpha, const T* A,  \
                     int lda, T* B, int ldb) {                                                     \
      using F = void (*)(const char*, const char*, const char*, const char*, const int*,           \
                         const int*, const T*, const T*, const int*, T*, const int*, size_t,       \
                         size_t, size_t, size_t);                                                  \
      static F f = reinterpret_cast<F>(cpu_symbol_or_die(#P "trsm_"));                             \
      f(&side, &uplo, &ta, &diag, &m, &n, &alpha, A, &lda, B, &ldb, 1, 1, 1, 1);                   \
    }                                                                                              \
  };

GPUOPT_BLAS_CPU_CALLS(double, d)
GPUOPT_BLAS_CPU_CALLS(float, s)
#undef GPUOPT_BLAS_CPU_CALLS

}  // namespace gpuopt_blas
