// The ILP64 Fortran names of the level-3 routines (dgemm_64_ ... strsm_64_): reference BLAS 3.9+'s
// 64-bit-index naming (BUILD_INDEX64_EXT_API, also OpenBLAS built with the 64_ symbol suffix),
// every INTEGER argument 64-bit. The reference checks (in 64 bits), then:
//   - every integer argument fits an LP64 int: the LP64 path (run_*: quick returns, routing, GPU
//     or the CPU BLAS's LP64 routine), so an ILP64 program gets the GPU like any other;
//   - one does not: the CPU BLAS's own ILP64 routine (<name>_64_) when it has one, else the call
//     is refused through xerbla_64_ with the position of the first argument that does not fit
//     (docs/blas.md, "Limits"): no LP64 routine can take it, and computing it on the GPU would
//     need the LP64 GPU half to take 64-bit dimensions.
// An empty C (m or n = 0) returns at once whatever the other sizes.
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <initializer_list>
#include <utility>

#include "cpu_lib.hpp"
#include "level3.hpp"
#include "level3_check.hpp"
#include "xerbla.hpp"

#define API extern "C" __attribute__((visibility("default")))

using namespace gpuopt_blas;

namespace {

using I = int64_t;

// The 1-based position of the first integer argument above INT_MAX, or 0 when all fit (each given
// as {value, position}; the checks already refused negative ones).
int too_wide(std::initializer_list<std::pair<I, int>> args) {
  for (const auto& a : args)
    if (a.first > INT_MAX) return a.second;
  return 0;
}

int narrow(I v) { return static_cast<int>(v); }

// The CPU BLAS's ILP64 routine of type F, or null.
template <class F>
F* cpu_64(const char* name) {
  return reinterpret_cast<F*>(cpu_symbol(name));
}

}  // namespace

#define GPUOPT_BLAS_F77_64(T, P, NAME)                                                             \
  API void P##gemm_64_(const char* ta, const char* tb, const I* m, const I* n, const I* k,         \
                       const T* alpha, const T* A, const I* lda, const T* B, const I* ldb,         \
                       const T* beta, T* C, const I* ldc, size_t lta, size_t ltb) {                \
    int info = check_gemm(*ta, *tb, *m, *n, *k, *lda, *ldb, *ldc);                                 \
    if (info) return report_f77_64(NAME "GEMM ", info);                                            \
    int wide = too_wide({{*m, 3}, {*n, 4}, {*k, 5}, {*lda, 8}, {*ldb, 10}, {*ldc, 13}});           \
    if (!wide)                                                                                     \
      return run_gemm<T>(real_trans(*ta), real_trans(*tb), narrow(*m), narrow(*n), narrow(*k),     \
                         *alpha, A, narrow(*lda), B, narrow(*ldb), *beta, C, narrow(*ldc));        \
    if (*m == 0 || *n == 0) return;                                                                \
    using F = void(const char*, const char*, const I*, const I*, const I*, const T*, const T*,     \
                   const I*, const T*, const I*, const T*, T*, const I*, size_t, size_t);          \
    if (F* f = cpu_64<F>(#P "gemm_64_"))                                                           \
      return f(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, lta, ltb);                    \
    report_f77_64(NAME "GEMM ", wide);                                                             \
  }                                                                                                \
  API void P##symm_64_(const char* side, const char* uplo, const I* m, const I* n, const T* alpha, \
                       const T* A, const I* lda, const T* B, const I* ldb, const T* beta, T* C,    \
                       const I* ldc, size_t ls, size_t lu) {                                       \
    int info = check_symm(*side, *uplo, *m, *n, *lda, *ldb, *ldc);                                 \
    if (info) return report_f77_64(NAME "SYMM ", info);                                            \
    int wide = too_wide({{*m, 3}, {*n, 4}, {*lda, 7}, {*ldb, 9}, {*ldc, 12}});                     \
    if (!wide)                                                                                     \
      return run_symm<T>(up(*side), up(*uplo), narrow(*m), narrow(*n), *alpha, A, narrow(*lda), B, \
                         narrow(*ldb), *beta, C, narrow(*ldc));                                    \
    if (*m == 0 || *n == 0) return;                                                                \
    using F = void(const char*, const char*, const I*, const I*, const T*, const T*, const I*,     \
                   const T*, const I*, const T*, T*, const I*, size_t, size_t);                    \
    if (F* f = cpu_64<F>(#P "symm_64_"))                                                           \
      return f(side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc, ls, lu);                     \
    report_f77_64(NAME "SYMM ", wide);                                                             \
  }                                                                                                \
  API void P##syrk_64_(const char* uplo, const char* trans, const I* n, const I* k,                \
                       const T* alpha, const T* A, const I* lda, const T* beta, T* C,              \
                       const I* ldc, size_t lu, size_t lt) {                                       \
    int info = check_syrk(*uplo, *trans, *n, *k, *lda, *ldc);                                      \
    if (info) return report_f77_64(NAME "SYRK ", info);                                            \
    int wide = too_wide({{*n, 3}, {*k, 4}, {*lda, 7}, {*ldc, 10}});                                \
    if (!wide)                                                                                     \
      return run_syrk<T>(up(*uplo), real_trans(*trans), narrow(*n), narrow(*k), *alpha, A,         \
                         narrow(*lda), *beta, C, narrow(*ldc));                                    \
    if (*n == 0) return;                                                                           \
    using F = void(const char*, const char*, const I*, const I*, const T*, const T*, const I*,     \
                   const T*, T*, const I*, size_t, size_t);                                        \
    if (F* f = cpu_64<F>(#P "syrk_64_"))                                                           \
      return f(uplo, trans, n, k, alpha, A, lda, beta, C, ldc, lu, lt);                            \
    report_f77_64(NAME "SYRK ", wide);                                                             \
  }                                                                                                \
  API void P##syr2k_64_(const char* uplo, const char* trans, const I* n, const I* k,               \
                        const T* alpha, const T* A, const I* lda, const T* B, const I* ldb,        \
                        const T* beta, T* C, const I* ldc, size_t lu, size_t lt) {                 \
    int info = check_syr2k(*uplo, *trans, *n, *k, *lda, *ldb, *ldc);                               \
    if (info) return report_f77_64(NAME "SYR2K", info);                                            \
    int wide = too_wide({{*n, 3}, {*k, 4}, {*lda, 7}, {*ldb, 9}, {*ldc, 12}});                     \
    if (!wide)                                                                                     \
      return run_syr2k<T>(up(*uplo), real_trans(*trans), narrow(*n), narrow(*k), *alpha, A,        \
                          narrow(*lda), B, narrow(*ldb), *beta, C, narrow(*ldc));                  \
    if (*n == 0) return;                                                                           \
    using F = void(const char*, const char*, const I*, const I*, const T*, const T*, const I*,     \
                   const T*, const I*, const T*, T*, const I*, size_t, size_t);                    \
    if (F* f = cpu_64<F>(#P "syr2k_64_"))                                                          \
      return f(uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc, lu, lt);                    \
    report_f77_64(NAME "SYR2K", wide);                                                             \
  }                                                                                                \
  GPUOPT_BLAS_F77_64_TRXM(T, P, NAME, trmm, "TRMM ")                                               \
  GPUOPT_BLAS_F77_64_TRXM(T, P, NAME, trsm, "TRSM ")

// trmm and trsm: the same arguments and checks.
#define GPUOPT_BLAS_F77_64_TRXM(T, P, NAME, R, SUFFIX)                                            \
  API void P##R##_64_(const char* side, const char* uplo, const char* ta, const char* diag,       \
                      const I* m, const I* n, const T* alpha, const T* A, const I* lda, T* B,     \
                      const I* ldb, size_t ls, size_t lu, size_t lt, size_t ld) {                 \
    int info = check_trxm(*side, *uplo, *ta, *diag, *m, *n, *lda, *ldb);                          \
    if (info) return report_f77_64(NAME SUFFIX, info);                                            \
    int wide = too_wide({{*m, 5}, {*n, 6}, {*lda, 9}, {*ldb, 11}});                               \
    if (!wide)                                                                                    \
      return run_##R<T>(up(*side), up(*uplo), real_trans(*ta), up(*diag), narrow(*m), narrow(*n), \
                        *alpha, A, narrow(*lda), B, narrow(*ldb));                                \
    if (*m == 0 || *n == 0) return;                                                               \
    using F = void(const char*, const char*, const char*, const char*, const I*, const I*,        \
                   const T*, const T*, const I*, T*, const I*, size_t, size_t, size_t, size_t);   \
    if (F* f = cpu_64<F>(#P #R "_64_"))                                                           \
      return f(side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb, ls, lu, lt, ld);                \
    report_f77_64(NAME SUFFIX, wide);                                                             \
  }

GPUOPT_BLAS_F77_64(double, d, "D")
GPUOPT_BLAS_F77_64(float, s, "S")
