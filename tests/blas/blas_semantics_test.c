/* Reference semantics of gpuopt_blas's level-3 entry points, on whatever path the routing picks
 * (the forwarding path without a GPU): argument checks reported through the program's own
 * xerbla_ / cblas_xerbla with the reference routine names and positions, quick returns,
 * beta = 0 never reading C, alpha = 0 never reading A or B, C's padding never written, CBLAS
 * row-major calls. Linked against libgpuopt_blas.so; the executable exports its handlers
 * (ENABLE_EXPORTS), as a Fortran program linked with -lblas does. Prints "N passed, N failed". */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "blas_check.h"
#include "blas_prototypes.h"

void dgemm(const char*, const char*, const int*, const int*, const int*, const double*,
           const double*, const int*, const double*, const int*, const double*, double*, const int*,
           size_t, size_t);
void cblas_dgemm(int, int, int, int, int, int, double, const double*, int, const double*, int,
                 double, double*, int);
void cblas_dtrsm(int, int, int, int, int, int, int, double, const double*, int, double*, int);

/* The program's own handlers: they record instead of stopping. */
static char g_srname[16];
static int g_info;
static int g_calls;
void xerbla_(const char* srname, const int* info, size_t len) {
  copy_srname(g_srname, srname, len);
  g_info = *info;
  ++g_calls;
}
static char g_rout[64];
static int g_cinfo;
int RowMajorStrg; /* as the reference CBLAS testers define it */
static int g_row_major_seen;
void cblas_xerbla(int info, const char* rout, const char* form, ...) {
  (void)form;
  snprintf(g_rout, sizeof g_rout, "%s", rout);
  g_cinfo = info;
  g_row_major_seen = RowMajorStrg;
  ++g_calls;
}

static void expect_xerbla(const char* name, int info, const char* what) {
  char msg[200];
  snprintf(msg, sizeof msg, "%s: xerbla_(\"%s\", %d) expected, got (\"%s\", %d), %d calls", what,
           name, info, g_srname, g_info, g_calls);
  check(g_calls == 1 && strcmp(g_srname, name) == 0 && g_info == info, msg);
  g_calls = 0;
  g_srname[0] = 0;
  g_info = 0;
}

static void expect_cblas_xerbla(const char* rout, int info, int row, const char* what) {
  char msg[200];
  snprintf(msg, sizeof msg, "%s: cblas_xerbla(%d, \"%s\") row=%d expected, got (%d, \"%s\") row=%d",
           what, info, rout, row, g_cinfo, g_rout, g_row_major_seen);
  check(g_calls == 1 && strcmp(g_rout, rout) == 0 && g_cinfo == info && g_row_major_seen == row,
        msg);
  g_calls = 0;
  g_rout[0] = 0;
  g_cinfo = 0;
}

static void argument_checks(void) {
  double a[64] = {0}, b[64] = {0}, c[64] = {0}, one = 1, zero = 0;
  int m = 4, n = 4, k = 4, ld = 4, neg = -1, small = 3;
  dgemm_("X", "N", &m, &n, &k, &one, a, &ld, b, &ld, &zero, c, &ld, 1, 1);
  expect_xerbla("DGEMM ", 1, "dgemm transa");
  dgemm_("N", "X", &m, &n, &k, &one, a, &ld, b, &ld, &zero, c, &ld, 1, 1);
  expect_xerbla("DGEMM ", 2, "dgemm transb");
  dgemm_("N", "N", &neg, &n, &k, &one, a, &ld, b, &ld, &zero, c, &ld, 1, 1);
  expect_xerbla("DGEMM ", 3, "dgemm m");
  dgemm_("N", "N", &m, &neg, &k, &one, a, &ld, b, &ld, &zero, c, &ld, 1, 1);
  expect_xerbla("DGEMM ", 4, "dgemm n");
  dgemm_("N", "N", &m, &n, &neg, &one, a, &ld, b, &ld, &zero, c, &ld, 1, 1);
  expect_xerbla("DGEMM ", 5, "dgemm k");
  dgemm_("N", "N", &m, &n, &k, &one, a, &small, b, &ld, &zero, c, &ld, 1, 1);
  expect_xerbla("DGEMM ", 8, "dgemm lda");
  dgemm_("N", "T", &m, &n, &k, &one, a, &ld, b, &small, &zero, c, &ld, 1, 1);
  expect_xerbla("DGEMM ", 10, "dgemm ldb (transposed B)");
  dgemm_("N", "N", &m, &n, &k, &one, a, &ld, b, &ld, &zero, c, &small, 1, 1);
  expect_xerbla("DGEMM ", 13, "dgemm ldc");
  dgemm("n", "n", &m, &n, &k, &one, a, &ld, b, &ld, &zero, c, &small, 1, 1);
  expect_xerbla("DGEMM ", 13, "dgemm (no underscore) ldc");
  dsymm_("L", "X", &m, &n, &one, a, &ld, b, &ld, &zero, c, &ld, 1, 1);
  expect_xerbla("DSYMM ", 2, "dsymm uplo");
  dsymm_("R", "U", &m, &n, &one, a, &small, b, &ld, &zero, c, &ld, 1, 1);
  expect_xerbla("DSYMM ", 7, "dsymm lda");
  dsyrk_("U", "X", &n, &k, &one, a, &ld, &zero, c, &ld, 1, 1);
  expect_xerbla("DSYRK ", 2, "dsyrk trans");
  dsyrk_("U", "N", &n, &k, &one, a, &ld, &zero, c, &small, 1, 1);
  expect_xerbla("DSYRK ", 10, "dsyrk ldc");
  dsyr2k_("L", "T", &n, &k, &one, a, &ld, b, &small, &zero, c, &ld, 1, 1);
  expect_xerbla("DSYR2K", 9, "dsyr2k ldb");
  dtrmm_("L", "U", "N", "X", &m, &n, &one, a, &ld, b, &ld, 1, 1, 1, 1);
  expect_xerbla("DTRMM ", 4, "dtrmm diag");
  dtrsm_("L", "U", "N", "N", &m, &neg, &one, a, &ld, b, &ld, 1, 1, 1, 1);
  expect_xerbla("DTRSM ", 6, "dtrsm n");
  dtrsm_("X", "U", "N", "N", &m, &n, &one, a, &ld, b, &ld, 1, 1, 1, 1);
  expect_xerbla("DTRSM ", 1, "dtrsm side");

  /* CBLAS: enumerations checked first, then the Fortran checks one position later; a row-major
   * call reports in the transposed call's positions with RowMajorStrg set (the reference). */
  cblas_dgemm(99, 111, 111, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4);
  expect_cblas_xerbla("cblas_dgemm", 1, 0, "cblas_dgemm layout");
  cblas_dgemm(102, 0, 111, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4);
  expect_cblas_xerbla("cblas_dgemm", 2, 0, "cblas_dgemm TransA");
  cblas_dgemm(102, 111, 111, -1, 4, 4, 1, a, 4, b, 4, 0, c, 4);
  expect_cblas_xerbla("cblas_dgemm", 4, 0, "cblas_dgemm M (col-major)");
  cblas_dgemm(101, 111, 111, -1, 4, 4, 1, a, 4, b, 4, 0, c, 4);
  expect_cblas_xerbla("cblas_dgemm", 5, 1, "cblas_dgemm M (row-major: N of the transposed call)");
  cblas_dtrsm(102, 141, 121, 111, 0, 4, 4, 1, a, 4, b, 4);
  expect_cblas_xerbla("cblas_dtrsm", 5, 0, "cblas_dtrsm Diag");
  check(RowMajorStrg == 0, "RowMajorStrg cleared after the call");
}

static void quick_returns_and_reads(void) {
  const int m = 5, n = 4, k = 3, lda = 5, ldb = 3, ldc = 7;
  double A[5 * 3], B[3 * 4], C[7 * 4], nanv = NAN, zero = 0, one = 1, two = 2;
  for (int i = 0; i < 15; ++i) A[i] = 1 + i;
  for (int i = 0; i < 12; ++i) B[i] = 2 - i;
  /* beta = 0: C full of NaN must come out finite; padding rows 5, 6 of each column untouched. */
  for (int i = 0; i < 28; ++i) C[i] = (i % ldc) >= m ? -777 : nanv;
  dgemm_("N", "N", &m, &n, &k, &one, A, &lda, B, &ldb, &zero, C, &ldc, 1, 1);
  int finite = 1, pad = 1, right = 1;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < ldc; ++i) {
      double v = C[i + j * ldc];
      if (i >= m) {
        pad &= v == -777;
        continue;
      }
      finite &= isfinite(v);
      double s = 0;
      for (int l = 0; l < k; ++l) s += A[i + l * lda] * B[l + j * ldb];
      right &= fabs(v - s) <= 1e-12 * fabs(s) + 1e-12;
    }
  check(finite, "beta = 0 never reads C (NaN in C)");
  check(right, "dgemm result");
  check(pad, "C's padding (ldc > m) never written");
  /* alpha = 0: A and B (NaN) never read; C = beta C. */
  double An[15], Bn[12];
  for (int i = 0; i < 15; ++i) An[i] = nanv;
  for (int i = 0; i < 12; ++i) Bn[i] = nanv;
  for (int i = 0; i < 28; ++i) C[i] = 1;
  dgemm_("N", "N", &m, &n, &k, &zero, An, &lda, Bn, &ldb, &two, C, &ldc, 1, 1);
  int scaled = 1;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < ldc; ++i) scaled &= C[i + j * ldc] == (i < m ? 2 : 1);
  check(scaled, "alpha = 0 never reads A or B; C = beta C; padding untouched");
  /* Quick return: alpha = 0 and beta = 1 touches nothing (C stays NaN). */
  for (int i = 0; i < 28; ++i) C[i] = nanv;
  dgemm_("N", "N", &m, &n, &k, &zero, An, &lda, Bn, &ldb, &one, C, &ldc, 1, 1);
  check(isnan(C[0]) && isnan(C[27]), "alpha = 0, beta = 1: quick return");
  /* m = 0: returns without reading anything (NULL pointers are fine). */
  int m0 = 0;
  dgemm_("N", "N", &m0, &n, &k, &one, NULL, &lda, NULL, &ldb, &one, NULL, &ldc, 1, 1);
  check(g_calls == 0, "m = 0: quick return, no error");
  /* dtrmm with alpha = 0 sets B to zero without reading A. */
  double T[16], Bt[16];
  for (int i = 0; i < 16; ++i) {
    T[i] = nanv;
    Bt[i] = nanv;
  }
  int four = 4;
  dtrmm_("L", "U", "N", "N", &four, &four, &zero, T, &four, Bt, &four, 1, 1, 1, 1);
  int zeros = 1;
  for (int i = 0; i < 16; ++i) zeros &= Bt[i] == 0;
  check(zeros, "dtrmm alpha = 0: B = 0 without reading A or B");
}

static void cblas_layouts(void) {
  /* Row-major C = A B equals the column-major product of the transposes. */
  const int m = 3, n = 2, k = 4;
  double A[12], B[8], Crow[6], Ccol[6];
  for (int i = 0; i < 12; ++i) A[i] = 0.5 * i - 1;
  for (int i = 0; i < 8; ++i) B[i] = 1.0 / (1 + i);
  cblas_dgemm(101, 111, 111, m, n, k, 1.5, A, k, B, n, 0, Crow, n);
  /* Column-major: A^T is k x m with ld k, B^T is n x k with ld n: C^T = B^T A^T (n x m). */
  cblas_dgemm(102, 111, 111, n, m, k, 1.5, B, n, A, k, 0, Ccol, n);
  int same = 1;
  for (int i = 0; i < 6; ++i) same &= fabs(Crow[i] - Ccol[i]) < 1e-14;
  check(same, "cblas_dgemm row-major = column-major of the transposes");
  float As[4] = {1, 2, 3, 4}, Bs[4] = {1, 0, 0, 1}, Cs[4];
  float fone = 1, fzero = 0;
  int two = 2;
  sgemm_("T", "N", &two, &two, &two, &fone, As, &two, Bs, &two, &fzero, Cs, &two, 1, 1);
  check(Cs[0] == 1 && Cs[1] == 3 && Cs[2] == 2 && Cs[3] == 4, "sgemm A^T I");
}

int main(void) {
  argument_checks();
  quick_returns_and_reads();
  cblas_layouts();
  return finish_checks();
}
