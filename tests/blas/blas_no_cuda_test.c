/* No CUDA initialization at load time, nor for calls the routing keeps on the CPU: after loading
 * libgpuopt_blas.so and running a small dgemm_, the CUDA driver (libcuda.so) is not mapped in
 * this process. Prints "N passed, N failed". */
#include <stdio.h>
#include <string.h>

#include "blas_prototypes.h"

static int driver_mapped(void) {
  FILE* f = fopen("/proc/self/maps", "r");
  char line[4096];
  int found = 0;
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (strstr(line, "libcuda.so")) found = 1;
  fclose(f);
  return found;
}

int main(void) {
  int pass = 0, fail = 0;
  double a[64], b[64], c[64], one = 1, zero = 0;
  int n = 8;
  for (int i = 0; i < 64; ++i) {
    a[i] = i;
    b[i] = 1;
  }
  if (driver_mapped() == 0)
    ++pass;
  else {
    ++fail;
    printf("FAILED: libcuda.so mapped at load\n");
  }
  dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
  if (driver_mapped() == 0)
    ++pass;
  else {
    ++fail;
    printf("FAILED: libcuda.so mapped after a small dgemm_\n");
  }
  /* c(i, j) = sum_l a(i, l) = sum_l (i + 8 l) = 8 i + 224 */
  if (c[0] == 224 && c[63] == 280)
    ++pass;
  else {
    ++fail;
    printf("FAILED: dgemm_ result\n");
  }
  printf("%d passed, %d failed\n", pass, fail);
  return fail ? 1 : 0;
}
