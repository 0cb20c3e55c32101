/* The pass/fail bookkeeping of the C tests of gpuopt_blas (one translation unit each). */
#ifndef GPUOPT_BLAS_CHECK_H
#define GPUOPT_BLAS_CHECK_H

#include <stdio.h>
#include <string.h>

static int g_pass, g_fail;

/* Counts one check; prints the failed ones. */
static void check(int ok, const char* what) {
  if (ok) {
    ++g_pass;
  } else {
    ++g_fail;
    printf("FAILED: %s\n", what);
  }
}

/* Copies a Fortran SRNAME of hidden length @p len into @p dst (16 bytes), terminated. */
static void copy_srname(char* dst, const char* srname, size_t len) {
  size_t n = len < 15 ? len : 15;
  memcpy(dst, srname, n);
  dst[n] = 0;
}

/* Prints "N passed, N failed"; the exit status. */
static int finish_checks(void) {
  printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail ? 1 : 0;
}

#endif
