/* LAPACK on the libblas.so.3 form: the reference LAPACK (liblapack.so.3, linked with -lblas)
 * factors and solves through gpuopt's libblas.so.3, so its level-3 updates go through gpuopt and
 * every other BLAS routine through the forwarding stubs (idamax_, dswap_, dscal_, dger_, dtrsv_,
 * ...). Checks the residuals of an LU solve and a Cholesky solve. Prints "N passed, N failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void dgetrs_(const char*, const int*, const int*, const double*, const int*, const int*, double*,
             const int*, int*, size_t);
void dpotrf_(const char*, const int*, double*, const int*, int*, size_t);
void dpotrs_(const char*, const int*, const int*, const double*, const int*, double*, const int*,
             int*, size_t);

/* max |A x - b| / (max |A| max |x| n) */
static double residual(int n, const double* A, const double* x, const double* b) {
  double worst = 0, amax = 0, xmax = 0;
  for (int i = 0; i < n; ++i) {
    double s = -b[i];
    for (int j = 0; j < n; ++j) {
      s += A[i + (long)j * n] * x[j];
      amax = fmax(amax, fabs(A[i + (long)j * n]));
    }
    worst = fmax(worst, fabs(s));
    xmax = fmax(xmax, fabs(x[i]));
  }
  return worst / (amax * xmax * n);
}

int main(void) {
  const int n = 700, one = 1;
  int info = 0, pass = 0, fail = 0;
  double* A = malloc(sizeof(double) * n * n);
  double* F = malloc(sizeof(double) * n * n);
  double* b = malloc(sizeof(double) * n);
  double* x = malloc(sizeof(double) * n);
  int* ipiv = malloc(sizeof(int) * n);
  for (long i = 0; i < (long)n * n; ++i) A[i] = sin(0.77 * (double)i) + (i % (n + 1) == 0 ? 3 : 0);
  for (int i = 0; i < n; ++i) b[i] = cos(0.3 * i);
  for (long i = 0; i < (long)n * n; ++i) F[i] = A[i];
  for (int i = 0; i < n; ++i) x[i] = b[i];
  dgetrf_(&n, &n, F, &n, ipiv, &info);
  if (info == 0) dgetrs_("N", &n, &one, F, &n, ipiv, x, &n, &info, 1);
  double r = residual(n, A, x, b);
  printf("LU: info %d, residual %.2e\n", info, r);
  if (info == 0 && r < 1e-13)
    ++pass;
  else
    ++fail;
  /* Symmetric positive definite: A^T A / n + I. */
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double s = i == j ? 1 : 0;
      for (int l = 0; l < n; ++l) s += A[l + (long)i * n] * A[l + (long)j * n] / n;
      F[i + (long)j * n] = s;
    }
  for (long i = 0; i < (long)n * n; ++i) A[i] = F[i];
  for (int i = 0; i < n; ++i) x[i] = b[i];
  dpotrf_("L", &n, F, &n, &info, 1);
  if (info == 0) dpotrs_("L", &n, &one, F, &n, x, &n, &info, 1);
  r = residual(n, A, x, b);
  printf("Cholesky: info %d, residual %.2e\n", info, r);
  if (info == 0 && r < 1e-13)
    ++pass;
  else
    ++fail;
  printf("%d passed, %d failed\n", pass, fail);
  return fail ? 1 : 0;
}
