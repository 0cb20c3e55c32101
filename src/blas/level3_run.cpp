#include <stdio.h>

#include <string>

#include "call_log.hpp"
#include "cpu_calls.hpp"
#include "level3.hpp"
#include "routing.hpp"

namespace gpuopt_blas {
namespace {

// A call's shape for the log line, formatted only when logging is on.
struct Dims {
  std::string flags;  // the character arguments, "NT"
  const char* fmt;    // " m=%ld n=%ld k=%ld"
  long a, b, c;
  std::string str() const {
    char buf[160];
    snprintf(buf, sizeof buf, fmt, a, b, c);
    return flags + buf;
  }
};

// C(m x n) = beta * C without reading C when beta = 0 (alpha = 0 or k = 0).
template <class T>
void scale(int m, int n, T beta, T* C, int ldc) {
  for (int j = 0; j < n; ++j) {
    T* c = C + static_cast<long>(j) * ldc;
    if (beta == T(0))
      for (int i = 0; i < m; ++i) c[i] = T(0);
    else
      for (int i = 0; i < m; ++i) c[i] *= beta;
  }
}

// The same on the uplo triangle of the n x n C (syrk, syr2k).
template <class T>
void scale_triangle(char uplo, int n, T beta, T* C, int ldc) {
  for (int j = 0; j < n; ++j) {
    int lo = uplo == 'U' ? 0 : j, hi = uplo == 'U' ? j + 1 : n;
    T* c = C + static_cast<long>(j) * ldc;
    if (beta == T(0))
      for (int i = lo; i < hi; ++i) c[i] = T(0);
    else
      for (int i = lo; i < hi; ++i) c[i] *= beta;
  }
}

// Routes, logs, runs on the GPU when routed there and redoes the call on the CPU when the GPU
// fails. @p gpu_call runs the call with the GPU routines of type T of the GPU half and returns
// false (with its reason) on failure; @p cpu_call runs on the CPU.
template <class T, class Gpu, class CpuCall>
void dispatch(const char* routine, const Dims& dims, double flops, const gpu::Operand* ops,
              int nops, Gpu gpu_call, CpuCall cpu_call) {
  const gpu::Table* table = nullptr;
  gpu::Route r = route(flops, ops, nops, sizeof(T), &table);
  if (r.gpu) {
    std::string why;
    if (gpu_call(gpu::routines<T>(*table), &why)) {
      if (logging()) log_call(routine, dims.str(), true, why.empty() ? r.why : r.why + "; " + why);
      return;
    }
    if (logging()) log_call(routine, dims.str(), false, "GPU failed, redone on the CPU: " + why);
  } else {
    if (logging()) log_call(routine, dims.str(), false, r.why);
  }
  cpu_call();
}

}  // namespace

template <class T>
void run_gemm(char ta, char tb, int m, int n, int k, T alpha, const T* A, int lda, const T* B,
              int ldb, T beta, T* C, int ldc) {
  if (m == 0 || n == 0 || ((alpha == T(0) || k == 0) && beta == T(1))) return;
  if (alpha == T(0) || k == 0) {  // never reads A or B (k = 0: the reference leaves them unread)
    scale(m, n, beta, C, ldc);
    return;
  }
  const char name[] = {blas_prefix<T>(), 'g', 'e', 'm', 'm', 0};
  bool na = ta == 'N', nb = tb == 'N';
  gpu::Operand ops[3] = {{A, na ? m : k, na ? k : m, lda, true, false},
                         {B, nb ? k : n, nb ? n : k, ldb, true, false},
                         {C, m, n, ldc, beta != T(0), true}};
  dispatch<T>(
      name, Dims{{ta, tb}, " m=%ld n=%ld k=%ld", m, n, k}, 2.0 * m * n * k, ops, 3,
      [&](const gpu::Routines<T>& g, std::string* why) {
        return g.gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, why);
      },
      [&] { Cpu<T>::gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc); });
}

template <class T>
void run_symm(char side, char uplo, int m, int n, T alpha, const T* A, int lda, const T* B, int ldb,
              T beta, T* C, int ldc) {
  if (m == 0 || n == 0 || (alpha == T(0) && beta == T(1))) return;
  if (alpha == T(0)) {
    scale(m, n, beta, C, ldc);
    return;
  }
  const char name[] = {blas_prefix<T>(), 's', 'y', 'm', 'm', 0};
  int na = side == 'L' ? m : n;
  gpu::Operand ops[3] = {{A, na, na, lda, true, false},
                         {B, m, n, ldb, true, false},
                         {C, m, n, ldc, beta != T(0), true}};
  Dims dims{{side, uplo}, " m=%ld n=%ld", m, n, 0};
  dispatch<T>(
      name, dims, 2.0 * m * n * na, ops, 3,
      [&](const gpu::Routines<T>& g, std::string* why) {
        return g.symm(side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc, why);
      },
      [&] { Cpu<T>::symm(side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc); });
}

template <class T>
void run_syrk(char uplo, char trans, int n, int k, T alpha, const T* A, int lda, T beta, T* C,
              int ldc) {
  if (n == 0 || ((alpha == T(0) || k == 0) && beta == T(1))) return;
  if (alpha == T(0) || k == 0) {
    scale_triangle(uplo, n, beta, C, ldc);
    return;
  }
  const char name[] = {blas_prefix<T>(), 's', 'y', 'r', 'k', 0};
  bool nt = trans == 'N';
  gpu::Operand ops[2] = {{A, nt ? n : k, nt ? k : n, lda, true, false},
                         {C, n, n, ldc, beta != T(0), true}};
  Dims dims{{uplo, trans}, " n=%ld k=%ld", n, k, 0};
  dispatch<T>(
      name, dims, 1.0 * n * n * k, ops, 2,
      [&](const gpu::Routines<T>& g, std::string* why) {
        return g.syrk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc, why);
      },
      [&] { Cpu<T>::syrk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc); });
}

template <class T>
void run_syr2k(char uplo, char trans, int n, int k, T alpha, const T* A, int lda, const T* B,
               int ldb, T beta, T* C, int ldc) {
  if (n == 0 || ((alpha == T(0) || k == 0) && beta == T(1))) return;
  if (alpha == T(0) || k == 0) {
    scale_triangle(uplo, n, beta, C, ldc);
    return;
  }
  const char name[] = {blas_prefix<T>(), 's', 'y', 'r', '2', 'k', 0};
  bool nt = trans == 'N';
  gpu::Operand ops[3] = {{A, nt ? n : k, nt ? k : n, lda, true, false},
                         {B, nt ? n : k, nt ? k : n, ldb, true, false},
                         {C, n, n, ldc, beta != T(0), true}};
  Dims dims{{uplo, trans}, " n=%ld k=%ld", n, k, 0};
  dispatch<T>(
      name, dims, 2.0 * n * n * k, ops, 3,
      [&](const gpu::Routines<T>& g, std::string* why) {
        return g.syr2k(uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc, why);
      },
      [&] { Cpu<T>::syr2k(uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc); });
}

// trmm (solve = false) and trsm (solve = true) share everything but the routine.
template <class T>
void run_triangular(bool solve, char side, char uplo, char ta, char diag, int m, int n, T alpha,
                    const T* A, int lda, T* B, int ldb) {
  if (m == 0 || n == 0) return;
  if (alpha == T(0)) {
    scale(m, n, T(0), B, ldb);
    return;
  }
  const char name[] = {blas_prefix<T>(), 't', 'r', solve ? 's' : 'm', 'm', 0};
  int na = side == 'L' ? m : n;
  gpu::Operand ops[2] = {{A, na, na, lda, true, false}, {B, m, n, ldb, true, true}};
  Dims dims{{side, uplo, ta, diag}, " m=%ld n=%ld", m, n, 0};
  dispatch<T>(
      name, dims, 1.0 * m * n * na, ops, 2,
      [&](const gpu::Routines<T>& g, std::string* why) {
        return solve ? g.trsm(side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb, why)
                     : g.trmm(side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb, why);
      },
      [&] {
        if (solve)
          Cpu<T>::trsm(side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
        else
          Cpu<T>::trmm(side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
      });
}

template <class T>
void run_trmm(char side, char uplo, char ta, char diag, int m, int n, T alpha, const T* A, int lda,
              T* B, int ldb) {
  run_triangular<T>(false, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
}

template <class T>
void run_trsm(char side, char uplo, char ta, char diag, int m, int n, T alpha, const T* A, int lda,
              T* B, int ldb) {
  run_triangular<T>(true, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
}

#define GPUOPT_BLAS_INSTANTIATE(T)                                                               \
  template void run_gemm<T>(char, char, int, int, int, T, const T*, int, const T*, int, T, T*,   \
                            int);                                                                \
  template void run_symm<T>(char, char, int, int, T, const T*, int, const T*, int, T, T*, int);  \
  template void run_syrk<T>(char, char, int, int, T, const T*, int, T, T*, int);                 \
  template void run_syr2k<T>(char, char, int, int, T, const T*, int, const T*, int, T, T*, int); \
  template void run_trmm<T>(char, char, char, char, int, int, T, const T*, int, T*, int);        \
  template void run_trsm<T>(char, char, char, char, int, int, T, const T*, int, T*, int);
GPUOPT_BLAS_INSTANTIATE(double)
GPUOPT_BLAS_INSTANTIATE(float)
#undef GPUOPT_BLAS_INSTANTIATE

}  // namespace gpuopt_blas
