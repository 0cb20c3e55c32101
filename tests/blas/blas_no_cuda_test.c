/* No CUDA at load time, nor for calls the routing keeps on the CPU: after loading a form of
 * gpuopt_blas (dlopen, as a program's start or ctypes would) and running a small dgemm_ and
 * cblas_dgemm, none of the CUDA driver, the CUDA runtime, cuBLAS, libgpuopt or gpuopt_blas's GPU
 * half is mapped in this process (/proc/self/maps).
 *
 * blas_no_cuda_test LIB            the check above
 * blas_no_cuda_test LIB --gpu-path run with GPUOPT_BLAS_FORCE=gpu: loading still maps none of
 *                                  them, and the first (forced) call maps the GPU half and cuBLAS
 *                                  (the check's own control: it sees them when they are there);
 *                                  the results are right with or without a GPU
 * The program leaves its working directory after loading LIB (LIB may be a relative path).
 * Prints "N passed, N failed". */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef void (*dgemm_fn)(const char*, const char*, const int*, const int*, const int*,
                         const double*, const double*, const int*, const double*, const int*,
                         const double*, double*, const int*, size_t, size_t);
typedef void (*cblas_dgemm_fn)(int, int, int, int, int, int, double, const double*, int,
                               const double*, int, double, double*, int);
enum { kColMajor = 102, kNoTrans = 111 };

/* Files that mean CUDA was (or is about to be) initialized: matched as "/<name>" in the path. */
static const char* const kCudaFiles[] = {"libcuda.so",
                                         "libcudart.so",
                                         "libcublas.so",
                                         "libcublasLt.so",
                                         "libgpuopt.so",
                                         "libgpuopt_blas_gpu.so",
                                         "libnvidia-ptxjitcompiler.so"};
enum { kNumCudaFiles = sizeof kCudaFiles / sizeof kCudaFiles[0] };

static int g_pass, g_fail;

static void check(int ok, const char* what) {
  if (ok)
    ++g_pass;
  else
    ++g_fail;
  printf("%s: %s\n", ok ? "ok" : "FAILED", what);
}

/* Bit i set when kCudaFiles[i] is mapped; prints the mapped ones after @p when. */
static unsigned mapped(const char* when) {
  FILE* f = fopen("/proc/self/maps", "r");
  char line[4096];
  unsigned found = 0;
  if (!f) {
    printf("cannot read /proc/self/maps\n");
    return ~0u;
  }
  while (fgets(line, sizeof line, f))
    for (int i = 0; i < kNumCudaFiles; ++i) {
      char name[64];
      snprintf(name, sizeof name, "/%s", kCudaFiles[i]);
      if (strstr(line, name)) found |= 1u << i;
    }
  fclose(f);
  for (int i = 0; i < kNumCudaFiles; ++i)
    if (found & (1u << i)) printf("  %s: %s mapped\n", when, kCudaFiles[i]);
  return found;
}

static unsigned bit(const char* file) {
  for (int i = 0; i < kNumCudaFiles; ++i)
    if (!strcmp(kCudaFiles[i], file)) return 1u << i;
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s LIB [--gpu-path]\n", argv[0]);
    return 2;
  }
  const int gpu_path = argc > 2 && !strcmp(argv[2], "--gpu-path");
  check(mapped("before loading") == 0, "nothing of CUDA mapped before loading the library");
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    printf("FAILED: dlopen %s: %s\n", argv[1], dlerror());
    return 1;
  }
  check(mapped("after loading") == 0, "nothing of CUDA mapped after loading the library");
  /* A LIB named relative to the working directory must still find its GPU half after the
   * program moves. */
  if (chdir("/") != 0) printf("chdir /: failed\n");
  dgemm_fn dgemm;
  cblas_dgemm_fn cblas_dgemm;
  *(void**)&dgemm = dlsym(lib, "dgemm_"); /* POSIX's way around ISO C's pointer kinds */
  *(void**)&cblas_dgemm = dlsym(lib, "cblas_dgemm");
  if (!dgemm || !cblas_dgemm) {
    printf("FAILED: %s lacks dgemm_ or cblas_dgemm\n", argv[1]);
    return 1;
  }

  double a[64], b[64], c[64], d[64], one = 1, zero = 0;
  int n = 8;
  for (int i = 0; i < 64; ++i) {
    a[i] = i;
    b[i] = 1;
  }
  dgemm("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
  /* c(i, j) = sum_l a(i, l) = sum_l (i + 8 l) = 8 i + 224 */
  check(c[0] == 224 && c[63] == 280, "dgemm_ result");
  unsigned after = mapped("after a small dgemm_");
  if (!gpu_path) {
    check(after == 0, "nothing of CUDA mapped after a small dgemm_");
    cblas_dgemm(kColMajor, kNoTrans, kNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, d, n);
    check(d[0] == 224 && d[63] == 280, "cblas_dgemm result");
    check(mapped("after a small cblas_dgemm") == 0,
          "nothing of CUDA mapped after a small cblas_dgemm");
  } else {
    unsigned want = bit("libgpuopt_blas_gpu.so") | bit("libcublas.so") | bit("libgpuopt.so");
    check((after & want) == want,
          "GPUOPT_BLAS_FORCE=gpu: the first call mapped the GPU half, libgpuopt and cuBLAS");
  }
  printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail ? 1 : 0;
}
