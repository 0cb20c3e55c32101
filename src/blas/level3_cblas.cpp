// The CBLAS level-3 entry points (cblas_dgemm ... cblas_strsm), as the reference CBLAS defines
// them: a row-major call is the column-major call on the transposed problem; enumeration
// arguments are checked here (positions 1-5), the rest by the Fortran checks, reported one
// position later (the layout argument comes first) through the program's cblas_xerbla.
#include "level3.hpp"
#include "level3_check.hpp"
#include "xerbla.hpp"

#define API extern "C" __attribute__((visibility("default")))

namespace {
using namespace gpuopt_blas;

enum { kRowMajor = 101, kColMajor = 102 };
enum { kNoTrans = 111, kTrans = 112, kConjTrans = 113 };
enum { kUpper = 121, kLower = 122 };
enum { kNonUnit = 131, kUnit = 132 };
enum { kLeft = 141, kRight = 142 };

char trans_of(int t) { return t == kNoTrans ? 'N' : (t == kTrans || t == kConjTrans) ? 'T' : 0; }
// A row-major syrk/syr2k runs the column-major call with the other transpose.
char trans_flipped(int t) {
  return t == kNoTrans ? 'T' : (t == kTrans || t == kConjTrans) ? 'N' : 0;
}
char uplo_of(int u, bool row) {
  if (u == kUpper) return row ? 'L' : 'U';
  if (u == kLower) return row ? 'U' : 'L';
  return 0;
}
char side_of(int s, bool row) {
  if (s == kLeft) return row ? 'R' : 'L';
  if (s == kRight) return row ? 'L' : 'R';
  return 0;
}
char diag_of(int d) { return d == kUnit ? 'U' : d == kNonUnit ? 'N' : 0; }

// Scope of one CBLAS call: the reference's globals set while it runs, cleared after.
struct CallScope {
  explicit CallScope() {
    *row_major_flag() = 0;
    *call_from_c_flag() = 1;
  }
  ~CallScope() {
    *row_major_flag() = 0;
    *call_from_c_flag() = 0;
  }
};

// Validates layout; returns -1 for a bad one (reported), else 1 for row-major, 0 for column.
int layout_of(int layout, const char* rout) {
  if (layout == kColMajor) return 0;
  if (layout == kRowMajor) {
    *row_major_flag() = 1;
    return 1;
  }
  report_cblas(1, rout, false, "Illegal layout setting, %d\n", layout);
  return -1;
}

bool bad(char c, int pos, const char* rout, bool row, const char* what, int value) {
  if (c) return false;
  report_cblas(pos, rout, row, what, value);
  return true;
}

bool fortran_check_failed(int info, const char* rout, bool row) {
  if (!info) return false;
  report_cblas(info + 1, rout, row, "", 0);
  return true;
}

// Side (position 2) and Uplo (3) of symm, trmm, trsm; false when one was bad (reported).
bool side_uplo(const char* rout, bool row, int Side, int Uplo, char* sd, char* ul) {
  *sd = side_of(Side, row);
  *ul = uplo_of(Uplo, row);
  return !bad(*sd, 2, rout, row, "Illegal Side setting, %d\n", Side) &&
         !bad(*ul, 3, rout, row, "Illegal Uplo setting, %d\n", Uplo);
}

// Uplo (2) and Trans (3) of syrk, syr2k.
bool uplo_trans(const char* rout, bool row, int Uplo, int Trans, char* ul, char* t) {
  *ul = uplo_of(Uplo, row);
  *t = row ? trans_flipped(Trans) : trans_of(Trans);
  return !bad(*ul, 2, rout, row, "Illegal Uplo setting, %d\n", Uplo) &&
         !bad(*t, 3, rout, row, "Illegal Trans setting, %d\n", Trans);
}

template <class T>
void gemm(const char* rout, int layout, int TA, int TB, int M, int N, int K, T alpha, const T* A,
          int lda, const T* B, int ldb, T beta, T* C, int ldc) {
  CallScope scope;
  int row = layout_of(layout, rout);
  if (row < 0) return;
  char ta = trans_of(TA), tb = trans_of(TB);
  if (bad(ta, 2, rout, row, "Illegal TransA setting, %d\n", TA) ||
      bad(tb, 3, rout, row, "Illegal TransB setting, %d\n", TB))
    return;
  if (!row) {
    if (fortran_check_failed(check_gemm(ta, tb, M, N, K, lda, ldb, ldc), rout, false)) return;
    run_gemm<T>(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  } else {
    if (fortran_check_failed(check_gemm(tb, ta, N, M, K, ldb, lda, ldc), rout, true)) return;
    run_gemm<T>(tb, ta, N, M, K, alpha, B, ldb, A, lda, beta, C, ldc);
  }
}

template <class T>
void symm(const char* rout, int layout, int Side, int Uplo, int M, int N, T alpha, const T* A,
          int lda, const T* B, int ldb, T beta, T* C, int ldc) {
  CallScope scope;
  int row = layout_of(layout, rout);
  char sd, ul;
  if (row < 0 || !side_uplo(rout, row, Side, Uplo, &sd, &ul)) return;
  int m = row ? N : M, n = row ? M : N;
  if (fortran_check_failed(check_symm(sd, ul, m, n, lda, ldb, ldc), rout, row)) return;
  run_symm<T>(sd, ul, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <class T>
void syrk(const char* rout, int layout, int Uplo, int Trans, int N, int K, T alpha, const T* A,
          int lda, T beta, T* C, int ldc) {
  CallScope scope;
  int row = layout_of(layout, rout);
  char ul, t;
  if (row < 0 || !uplo_trans(rout, row, Uplo, Trans, &ul, &t)) return;
  if (fortran_check_failed(check_syrk(ul, t, N, K, lda, ldc), rout, row)) return;
  run_syrk<T>(ul, t, N, K, alpha, A, lda, beta, C, ldc);
}

template <class T>
void syr2k(const char* rout, int layout, int Uplo, int Trans, int N, int K, T alpha, const T* A,
           int lda, const T* B, int ldb, T beta, T* C, int ldc) {
  CallScope scope;
  int row = layout_of(layout, rout);
  char ul, t;
  if (row < 0 || !uplo_trans(rout, row, Uplo, Trans, &ul, &t)) return;
  if (fortran_check_failed(check_syr2k(ul, t, N, K, lda, ldb, ldc), rout, row)) return;
  run_syr2k<T>(ul, t, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

// trmm (solve = false) and trsm (solve = true).
template <class T>
void triangular(bool solve, const char* rout, int layout, int Side, int Uplo, int TA, int Diag,
                int M, int N, T alpha, const T* A, int lda, T* B, int ldb) {
  CallScope scope;
  int row = layout_of(layout, rout);
  char sd, ul;
  if (row < 0 || !side_uplo(rout, row, Side, Uplo, &sd, &ul)) return;
  char ta = trans_of(TA), dg = diag_of(Diag);
  if (bad(ta, 4, rout, row, "Illegal Trans setting, %d\n", TA) ||
      bad(dg, 5, rout, row, "Illegal Diag setting, %d\n", Diag))
    return;
  int m = row ? N : M, n = row ? M : N;
  if (fortran_check_failed(check_trxm(sd, ul, ta, dg, m, n, lda, ldb), rout, row)) return;
  if (solve)
    run_trsm<T>(sd, ul, ta, dg, m, n, alpha, A, lda, B, ldb);
  else
    run_trmm<T>(sd, ul, ta, dg, m, n, alpha, A, lda, B, ldb);
}

}  // namespace

#define GPUOPT_BLAS_CBLAS(T, P)                                                                    \
  API void cblas_##P##gemm(int layout, int TA, int TB, int M, int N, int K, T alpha, const T* A,   \
                           int lda, const T* B, int ldb, T beta, T* C, int ldc) {                  \
    gemm<T>("cblas_" #P "gemm", layout, TA, TB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);     \
  }                                                                                                \
  API void cblas_##P##symm(int layout, int Side, int Uplo, int M, int N, T alpha, const T* A,      \
                           int lda, const T* B, int ldb, T beta, T* C, int ldc) {                  \
    symm<T>("cblas_" #P "symm", layout, Side, Uplo, M, N, alpha, A, lda, B, ldb, beta, C, ldc);    \
  }                                                                                                \
  API void cblas_##P##syrk(int layout, int Uplo, int Trans, int N, int K, T alpha, const T* A,     \
                           int lda, T beta, T* C, int ldc) {                                       \
    syrk<T>("cblas_" #P "syrk", layout, Uplo, Trans, N, K, alpha, A, lda, beta, C, ldc);           \
  }                                                                                                \
  API void cblas_##P##syr2k(int layout, int Uplo, int Trans, int N, int K, T alpha, const T* A,    \
                            int lda, const T* B, int ldb, T beta, T* C, int ldc) {                 \
    syr2k<T>("cblas_" #P "syr2k", layout, Uplo, Trans, N, K, alpha, A, lda, B, ldb, beta, C, ldc); \
  }                                                                                                \
  API void cblas_##P##trmm(int layout, int Side, int Uplo, int TA, int Diag, int M, int N,         \
                           T alpha, const T* A, int lda, T* B, int ldb) {                          \
    triangular<T>(false, "cblas_" #P "trmm", layout, Side, Uplo, TA, Diag, M, N, alpha, A, lda, B, \
                  ldb);                                                                            \
  }                                                                                                \
  API void cblas_##P##trsm(int layout, int Side, int Uplo, int TA, int Diag, int M, int N,         \
                           T alpha, const T* A, int lda, T* B, int ldb) {                          \
    triangular<T>(true, "cblas_" #P "trsm", layout, Side, Uplo, TA, Diag, M, N, alpha, A, lda, B,  \
                  ldb);                                                                            \
  }

GPUOPT_BLAS_CBLAS(double, d)
GPUOPT_BLAS_CBLAS(float, s)
