/* An unchanged program: plain C linked with -lblas (cc dgemm_c.c -lblas -lm), knowing nothing of
 * gpuopt. It runs dgemm_ (NN and TN) and dtrsm_ on host arrays and writes the results to FILE;
 * "dgemm_c compare F1 F2" prints the largest relative difference of two such files and fails
 * above 1e-12. Used by scripts/blas-check.sh through LD_PRELOAD and LD_LIBRARY_PATH. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
            const double*, const int*, const double*, const int*, const double*, double*,
            const int*, size_t, size_t);
void dtrsm_(const char*, const char*, const char*, const char*, const int*, const int*,
            const double*, const double*, const int*, double*, const int*, size_t, size_t,
            size_t, size_t);

static int compare(const char* f1, const char* f2) {
  FILE* a = fopen(f1, "rb");
  FILE* b = fopen(f2, "rb");
  if (!a || !b) return 2;
  double x, y, worst = 0, scale = 0;
  long count = 0;
  while (fread(&x, sizeof x, 1, a) == 1 && fread(&y, sizeof y, 1, b) == 1) {
    double d = fabs(x - y);
    if (d > worst) worst = d;
    if (fabs(x) > scale) scale = fabs(x);
    ++count;
  }
  double rel = scale > 0 ? worst / scale : worst;
  printf("%ld values, largest difference %.3e relative to the largest value\n", count, rel);
  return (count > 0 && rel <= 1e-12) ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc == 4 && strcmp(argv[1], "compare") == 0) return compare(argv[2], argv[3]);
  if (argc != 2) {
    fprintf(stderr, "usage: dgemm_c OUT | dgemm_c compare F1 F2\n");
    return 2;
  }
  const int n = 3000, k = 2500;
  double* A = malloc(sizeof(double) * n * k);
  double* B = malloc(sizeof(double) * k * n);
  double* C = malloc(sizeof(double) * n * n);
  double* T = malloc(sizeof(double) * n * n);
  for (long i = 0; i < (long)n * k; ++i) A[i] = sin(0.37 * i) + 0.1;
  for (long i = 0; i < (long)k * n; ++i) B[i] = cos(0.11 * i);
  for (long i = 0; i < (long)n * n; ++i) C[i] = 0.5;
  double one = 1, beta = 0.25, alpha = 0.5;
  dgemm_("N", "N", &n, &n, &k, &alpha, A, &n, B, &k, &beta, C, &n, 1, 1);
  dgemm_("T", "N", &n, &n, &k, &one, B, &k, B, &k, &one, C, &n, 1, 1);
  /* A well-conditioned lower triangle: dominant diagonal. */
  for (long j = 0; j < n; ++j)
    for (long i = 0; i < n; ++i) T[i + j * n] = i == j ? n : (i > j ? 1.0 / (1 + i - j) : 0);
  dtrsm_("L", "L", "N", "N", &n, &n, &one, T, &n, C, &n, 1, 1, 1, 1);
  FILE* f = fopen(argv[1], "wb");
  if (!f || fwrite(C, sizeof(double), (size_t)n * n, f) != (size_t)n * n) return 1;
  fclose(f);
  printf("wrote %d x %d\n", n, n);
  return 0;
}
