/* The ILP64 names of gpuopt_blas (dgemm_64_ ... strsm_64_, 64-bit INTEGER arguments) on the
 * forwarding path: results equal to the LP64 names', argument checks reported through the
 * program's own xerbla_64_ (64-bit INFO) with the reference names and positions, an empty C
 * returning at once, and dimensions beyond LP64 either forwarded to the CPU BLAS's own ILP64
 * routine or refused through xerbla_64_ with the position of the first argument that does not
 * fit. Linked against libgpuopt_blas.so; the executable exports its handlers (ENABLE_EXPORTS).
 *   gpuopt_blas_ilp64_test          the CPU BLAS of GPUOPT_BLAS_CPU_LIB (set to the
 *                                   distribution's when unset); wide calls are refused when it
 *                                   has no ILP64 names
 *   gpuopt_blas_ilp64_test --fake   GPUOPT_BLAS_CPU_LIB is fake_blas64.c: wide dgemm_64_ reaches
 *                                   its dgemm_64_, narrow ones its LP64 dgemm_, dtrsm_64_ (which it
 *                                   lacks) is refused
 * Prints "N passed, N failed". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blas_check.h"
#include "blas_prototypes.h"

typedef int64_t I;
void dgemm_64_(const char*, const char*, const I*, const I*, const I*, const double*, const double*,
               const I*, const double*, const I*, const double*, double*, const I*, size_t, size_t);
void sgemm_64_(const char*, const char*, const I*, const I*, const I*, const float*, const float*,
               const I*, const float*, const I*, const float*, float*, const I*, size_t, size_t);
void dsymm_64_(const char*, const char*, const I*, const I*, const double*, const double*, const I*,
               const double*, const I*, const double*, double*, const I*, size_t, size_t);
void dsyrk_64_(const char*, const char*, const I*, const I*, const double*, const double*, const I*,
               const double*, double*, const I*, size_t, size_t);
void dsyr2k_64_(const char*, const char*, const I*, const I*, const double*, const double*,
                const I*, const double*, const I*, const double*, double*, const I*, size_t,
                size_t);
void dtrmm_64_(const char*, const char*, const char*, const char*, const I*, const I*,
               const double*, const double*, const I*, double*, const I*, size_t, size_t, size_t,
               size_t);
void dtrsm_64_(const char*, const char*, const char*, const char*, const I*, const I*,
               const double*, const double*, const I*, double*, const I*, size_t, size_t, size_t,
               size_t);

/* The program's handlers: they record instead of stopping. */
static char g_srname[16];
static int64_t g_info64;
static int g_calls64, g_calls32;
void xerbla_64_(const char* srname, const int64_t* info, size_t len) {
  copy_srname(g_srname, srname, len);
  g_info64 = *info;
  ++g_calls64;
}
void xerbla_(const char* srname, const int* info, size_t len) {
  (void)srname, (void)info, (void)len;
  ++g_calls32;
}

static void expect_xerbla_64(const char* name, int64_t info, const char* what) {
  char msg[256];
  snprintf(msg, sizeof msg, "%s: xerbla_64_(\"%s\", %lld) expected, got (\"%s\", %lld), %d calls",
           what, name, (long long)info, g_srname, (long long)g_info64, g_calls64);
  check(g_calls64 == 1 && g_info64 == info && strcmp(g_srname, name) == 0, msg);
  g_calls64 = 0;
  g_srname[0] = 0;
  g_info64 = 0;
}

static double fill(int i) { return (double)((i * 37) % 11) - 5.0 + 0.25 * (i % 3); }

/* Every double routine through its ILP64 and its LP64 name on the same data: the same bits. */
static void same_as_lp64(void) {
  enum { M = 5, N = 4, K = 3, LD = 7 };
  double A[LD * 7], B[LD * 7], C1[LD * N], C2[LD * N];
  for (int i = 0; i < LD * 7; ++i) A[i] = fill(i), B[i] = fill(i + 3);
  for (int i = 0; i < LD * N; ++i) C1[i] = C2[i] = fill(i + 5);
  const int m = M, n = N, k = K, ld = LD;
  const I m8 = M, n8 = N, k8 = K, ld8 = LD;
  const double alpha = 1.5, beta = 0.5;
  dgemm_("N", "T", &m, &n, &k, &alpha, A, &ld, B, &ld, &beta, C1, &ld, 1, 1);
  dgemm_64_("N", "T", &m8, &n8, &k8, &alpha, A, &ld8, B, &ld8, &beta, C2, &ld8, 1, 1);
  check(!memcmp(C1, C2, sizeof C1), "dgemm_64_ = dgemm_");
  dsymm_("L", "U", &m, &n, &alpha, A, &ld, B, &ld, &beta, C1, &ld, 1, 1);
  dsymm_64_("L", "U", &m8, &n8, &alpha, A, &ld8, B, &ld8, &beta, C2, &ld8, 1, 1);
  check(!memcmp(C1, C2, sizeof C1), "dsymm_64_ = dsymm_");
  dsyrk_("L", "N", &n, &k, &alpha, A, &ld, &beta, C1, &ld, 1, 1);
  dsyrk_64_("L", "N", &n8, &k8, &alpha, A, &ld8, &beta, C2, &ld8, 1, 1);
  check(!memcmp(C1, C2, sizeof C1), "dsyrk_64_ = dsyrk_");
  dsyr2k_("U", "T", &n, &k, &alpha, A, &ld, B, &ld, &beta, C1, &ld, 1, 1);
  dsyr2k_64_("U", "T", &n8, &k8, &alpha, A, &ld8, B, &ld8, &beta, C2, &ld8, 1, 1);
  check(!memcmp(C1, C2, sizeof C1), "dsyr2k_64_ = dsyr2k_");
  for (int i = 0; i < M; ++i) A[i + i * LD] = 4.0 + i; /* well conditioned for the solve */
  dtrmm_("R", "L", "N", "N", &m, &n, &alpha, A, &ld, C1, &ld, 1, 1, 1, 1);
  dtrmm_64_("R", "L", "N", "N", &m8, &n8, &alpha, A, &ld8, C2, &ld8, 1, 1, 1, 1);
  check(!memcmp(C1, C2, sizeof C1), "dtrmm_64_ = dtrmm_");
  dtrsm_("L", "U", "T", "N", &m, &n, &alpha, A, &ld, C1, &ld, 1, 1, 1, 1);
  dtrsm_64_("L", "U", "T", "N", &m8, &n8, &alpha, A, &ld8, C2, &ld8, 1, 1, 1, 1);
  check(!memcmp(C1, C2, sizeof C1), "dtrsm_64_ = dtrsm_");
  float As[4] = {1, 2, 3, 4}, Bs[4] = {1, 0, 0, 1}, Cs[4];
  const float one = 1, zero = 0;
  const I two = 2;
  sgemm_64_("T", "N", &two, &two, &two, &one, As, &two, Bs, &two, &zero, Cs, &two, 1, 1);
  check(Cs[0] == 1 && Cs[1] == 3 && Cs[2] == 2 && Cs[3] == 4, "sgemm_64_ A^T I");
  check(g_calls64 == 0 && g_calls32 == 0, "no error reported for valid calls");
}

/* The reference checks, reported through xerbla_64_ (never the LP64 xerbla_). */
static void argument_checks(void) {
  double A[4] = {0}, B[4] = {0}, C[4] = {0};
  const double one = 1;
  const I m1 = -1, z = 0, o = 1, two = 2;
  dgemm_64_("X", "N", &o, &o, &o, &one, A, &o, B, &o, &one, C, &o, 1, 1);
  expect_xerbla_64("DGEMM ", 1, "dgemm_64_ TRANSA");
  dgemm_64_("N", "N", &m1, &o, &o, &one, A, &o, B, &o, &one, C, &o, 1, 1);
  expect_xerbla_64("DGEMM ", 3, "dgemm_64_ M < 0");
  dgemm_64_("N", "N", &two, &o, &o, &one, A, &two, B, &o, &one, C, &o, 1, 1);
  expect_xerbla_64("DGEMM ", 13, "dgemm_64_ LDC < M");
  dsyr2k_64_("U", "N", &two, &o, &one, A, &two, B, &o, &one, C, &two, 1, 1);
  expect_xerbla_64("DSYR2K", 9, "dsyr2k_64_ LDB < N");
  dtrsm_64_("L", "U", "N", "N", &two, &o, &one, A, &two, B, &o, 1, 1, 1, 1);
  expect_xerbla_64("DTRSM ", 11, "dtrsm_64_ LDB < M");
  dtrmm_64_("L", "U", "N", "X", &z, &o, &one, A, &o, B, &o, 1, 1, 1, 1);
  expect_xerbla_64("DTRMM ", 4, "dtrmm_64_ DIAG");
  check(g_calls32 == 0, "the LP64 xerbla_ was never called by the ILP64 names");
}

/* Dimensions beyond LP64: the matrices are never touched (forwarded to a routine that only
 * marks C[0], or refused), so small arrays stand in for them. */
static void wide_calls(int cpu_has_ilp64, int fake) {
  double A[4] = {0}, B[4] = {0}, C[4] = {7, 7, 7, 7};
  const double one = 1;
  const I big = (I)1 << 31, o = 1, z = 0;
  /* An empty C returns at once, whatever the other sizes. */
  dgemm_64_("N", "N", &z, &o, &big, &one, A, &o, B, &big, &one, C, &o, 1, 1);
  check(g_calls64 == 0 && C[0] == 7, "dgemm_64_ with m = 0 and k = 2^31 returns at once");
  if (fake) {
    dgemm_64_("N", "N", &big, &o, &o, &one, A, &big, B, &o, &one, C, &big, 1, 1);
    check(C[0] == (double)big, "dgemm_64_ with m = 2^31 went to the CPU BLAS's dgemm_64_");
    const I two = 2;
    dgemm_64_("N", "N", &two, &two, &two, &one, A, &two, B, &two, &one, C, &two, 1, 1);
    check(C[0] == -1, "dgemm_64_ with m = 2 went to the CPU BLAS's LP64 dgemm_");
  }
  if (!cpu_has_ilp64 || fake) { /* the fake has no dtrsm_64_ */
    dtrsm_64_("L", "U", "N", "N", &big, &o, &one, A, &big, B, &big, 1, 1, 1, 1);
    expect_xerbla_64("DTRSM ", 5, "dtrsm_64_ with m = 2^31 refused");
  }
  if (!cpu_has_ilp64) {
    C[0] = 7;
    dgemm_64_("N", "N", &o, &o, &big, &one, A, &o, B, &big, &one, C, &o, 1, 1);
    expect_xerbla_64("DGEMM ", 5, "dgemm_64_ with k = 2^31 refused");
    check(C[0] == 7, "a refused call leaves C untouched");
  }
}

int main(int argc, char** argv) {
  const int fake = argc > 1 && !strcmp(argv[1], "--fake");
  if (!getenv("GPUOPT_BLAS_CPU_LIB")) {
    static const char* candidates[] = {"/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3",
                                       "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"};
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; ++i)
      if (access(candidates[i], R_OK) == 0) {
        setenv("GPUOPT_BLAS_CPU_LIB", candidates[i], 1);
        break;
      }
  }
  const char* lib = getenv("GPUOPT_BLAS_CPU_LIB");
  if (!lib) {
    printf("no CPU BLAS found: skipped\n");
    return 77;
  }
  void* h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  const int cpu_has_ilp64 = h && dlsym(h, "dgemm_64_");
  if (!fake) same_as_lp64();
  if (!fake) argument_checks();
  wide_calls(cpu_has_ilp64, fake);
  return finish_checks();
}
