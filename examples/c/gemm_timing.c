/* gemm_timing: the binding timing protocol, in C (the reference the bindings are held to).
 *
 * f64 GEMM, m = n = k = 2048, column-major, C = A B (alpha 1, beta 0), on gpuopt device buffers
 * and one gpuopt stream, auto dispatch. 3 warm-up calls and a stream synchronize; then 5
 * repeats, each timing with the host's monotonic wall clock 20 calls followed by a stream
 * synchronize; the result is the median repeat divided by 20, printed as one line:
 *   gpuopt-binding-time lang=c op=dgemm n=2048 ms_per_call=<x>
 * The Fortran, Python and Rust examples do the same under --time (docs/integration-c.md).
 * Exits 77 (skipped) without a device.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpuopt.h"

enum { N = 2048, WARMUP = 3, REPEATS = 5, CALLS = 20 };

static int failed(gpuopt_status_t st, const char* what) {
  char msg[512];
  if (st == GPUOPT_SUCCESS) return 0;
  gpuopt_last_error_message(msg, sizeof msg, NULL);
  fprintf(stderr, "%s failed: %s\n  %s\n", what, gpuopt_status_name(st), msg);
  return 1;
}

#define TRY(call)                         \
  do {                                    \
    if (failed((call), #call)) goto done; \
  } while (0)

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(void) {
  gpuopt_context_t ctx = NULL;
  gpuopt_stream_t stream = NULL;
  gpuopt_buffer_t buf[3] = {NULL, NULL, NULL};
  void* ptr[3] = {NULL, NULL, NULL};
  gpuopt_gemm_desc_t d;
  double* host = NULL;
  double ms[REPEATS];
  const size_t bytes = (size_t)N * N * sizeof(double);
  gpuopt_status_t st;
  char msg[512];
  int i, j, r, rc = 1;

  st = gpuopt_context_create(0, &ctx);
  if (st == GPUOPT_ERROR_NO_DEVICE) {
    gpuopt_last_error_message(msg, sizeof msg, NULL);
    printf("no CUDA device, nothing to time: %s\n  %s\n", gpuopt_status_name(st), msg);
    return 77;
  }
  TRY(st);
  TRY(gpuopt_stream_create(ctx, &stream));
  host = (double*)malloc(bytes);
  if (!host) goto done;
  for (j = 0; j < N; ++j)
    for (i = 0; i < N; ++i)
      host[(size_t)j * N + i] = (double)((i + 1 + 3 * (j + 1)) % 17 - 8) / 8.0;
  for (i = 0; i < 3; ++i) {
    TRY(gpuopt_buffer_create(ctx, bytes, GPUOPT_MEMORY_DEVICE, &buf[i]));
    TRY(gpuopt_buffer_device_pointer(buf[i], &ptr[i]));
    if (i < 2) TRY(gpuopt_buffer_copy_from_host(buf[i], stream, 0, host, bytes));
  }

  d.struct_size = sizeof d;
  d.trans_a = GPUOPT_TRANS_N;
  d.trans_b = GPUOPT_TRANS_N;
  d.m = N;
  d.n = N;
  d.k = N;
  d.alpha = 1.0;
  d.beta = 0.0;
  d.a_type = GPUOPT_DTYPE_F64;
  d.c_type = GPUOPT_DTYPE_F64;
  d.compute = GPUOPT_COMPUTE_DEFAULT;
  d.lda = N;
  d.ldb = N;
  d.ldc = N;
  d.batch_count = 1;
  d.stride_a = 0;
  d.stride_b = 0;
  d.stride_c = 0;

  for (i = 0; i < WARMUP; ++i) TRY(gpuopt_gemm(ctx, stream, &d, ptr[0], ptr[1], ptr[2]));
  TRY(gpuopt_stream_synchronize(stream));
  for (r = 0; r < REPEATS; ++r) {
    const double t0 = now_ms();
    for (i = 0; i < CALLS; ++i) TRY(gpuopt_gemm(ctx, stream, &d, ptr[0], ptr[1], ptr[2]));
    TRY(gpuopt_stream_synchronize(stream));
    ms[r] = (now_ms() - t0) / CALLS;
  }
  qsort(ms, REPEATS, sizeof ms[0], cmp_double);
  printf("gpuopt-binding-time lang=c op=dgemm n=%d ms_per_call=%.4f\n", N, ms[REPEATS / 2]);
  rc = 0;

done:
  free(host);
  for (i = 0; i < 3; ++i) gpuopt_buffer_destroy(buf[i]);
  gpuopt_stream_destroy(stream);
  if (ctx && failed(gpuopt_context_destroy(ctx), "gpuopt_context_destroy")) rc = 1;
  return rc;
}
