/* axpy_graph: gpuopt from C, end to end.
 *
 * Creates a context (exits 77, ctest's "skipped", with a clear message when there is no GPU),
 * prints the device, allocates device buffers, captures K axpy calls into a gpuopt graph,
 * replays it R times, checks the result on the host, then makes a deliberate error and shows
 * that the status, the message and a working context come out of it.
 *
 *   ./example_axpy_graph                      run it
 *   GPUOPT_LOG=info ./example_axpy_graph      also print each dispatch decision
 *   GPUOPT_VARIANT_AXPY=naive ./example_axpy_graph   force the textbook rung
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpuopt.h"

enum { N = 1 << 20, K = 8, R = 5 };

/* Prints the failed call's status and message; returns 1 on failure. */
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

int main(void) {
  gpuopt_context_t ctx = NULL;
  gpuopt_stream_t stream = NULL;
  gpuopt_buffer_t bx = NULL, by = NULL;
  gpuopt_graph_t graph = NULL;
  gpuopt_device_info_t info;
  gpuopt_status_t st;
  const char* variant = NULL;
  void *x = NULL, *y = NULL;
  float *hx = NULL, *hy = NULL;
  const float alpha = 0.5f;
  char msg[512];
  int i, bad = 0, rc = 1;

  printf("gpuopt %s\n", gpuopt_version_string());

  /* 1. A context on GPU 0. Without a GPU this is the one place that says so. */
  st = gpuopt_context_create(0, &ctx);
  if (st == GPUOPT_ERROR_NO_DEVICE) {
    gpuopt_last_error_message(msg, sizeof msg, NULL);
    printf("no CUDA device, nothing to run: %s\n  %s\n", gpuopt_status_name(st), msg);
    return 77;
  }
  TRY(st);

  info.struct_size = sizeof info;
  TRY(gpuopt_context_device_info(ctx, &info));
  printf("device %d: %s, cc %d.%d, %d SMs, %.1f GiB, L2 %.0f MiB, %.0f GB/s theoretical\n",
         info.device, info.name, info.cc_major, info.cc_minor, info.sm_count,
         (double)info.total_memory / (1024.0 * 1024.0 * 1024.0),
         (double)info.l2_cache_bytes / (1024.0 * 1024.0), info.theoretical_bandwidth_gbs);

  /* 2. A stream and two device buffers, filled from the host (all before any capture). */
  TRY(gpuopt_stream_create(ctx, &stream));
  TRY(gpuopt_buffer_create(ctx, N * sizeof(float), GPUOPT_MEMORY_DEVICE, &bx));
  TRY(gpuopt_buffer_create(ctx, N * sizeof(float), GPUOPT_MEMORY_DEVICE, &by));
  TRY(gpuopt_buffer_device_pointer(bx, &x));
  TRY(gpuopt_buffer_device_pointer(by, &y));

  hx = (float*)malloc(N * sizeof(float));
  hy = (float*)malloc(N * sizeof(float));
  if (!hx || !hy) {
    fprintf(stderr, "host allocation failed\n");
    goto done;
  }
  for (i = 0; i < N; ++i) {
    hx[i] = (float)(i % 101) * 0.25f;
    hy[i] = (float)(i % 7);
  }
  TRY(gpuopt_buffer_copy_from_host(bx, stream, 0, hx, N * sizeof(float)));
  TRY(gpuopt_buffer_copy_from_host(by, stream, 0, hy, N * sizeof(float)));
  TRY(gpuopt_stream_synchronize(stream));

  /* 3. Capture K axpy calls into one graph, then replay it R times. */
  TRY(gpuopt_graph_begin(ctx, stream));
  for (i = 0; i < K; ++i) TRY(gpuopt_axpy(ctx, stream, GPUOPT_DTYPE_F32, N, alpha, x, 1, y, 1));
  TRY(gpuopt_graph_end(stream, &graph));
  TRY(gpuopt_last_variant(ctx, GPUOPT_OP_AXPY, &variant));
  printf("captured %d x axpy (variant %s) into one graph\n", K, variant ? variant : "?");

  for (i = 0; i < R; ++i) TRY(gpuopt_graph_launch(graph, stream));
  TRY(gpuopt_buffer_copy_to_host(by, stream, 0, hy, N * sizeof(float)));
  TRY(gpuopt_stream_synchronize(stream));

  /* 4. Check: y = y0 + R * K * alpha * x (exact: small integers and quarters in f32). */
  for (i = 0; i < N; ++i) {
    const float want = (float)(i % 7) + (float)(R * K) * alpha * hx[i];
    if (fabsf(hy[i] - want) > 1e-5f * fabsf(want)) {
      if (bad < 5) fprintf(stderr, "y[%d] = %g, expected %g\n", i, hy[i], want);
      ++bad;
    }
  }
  printf("replayed %d times: %s (%d of %d elements wrong)\n", R, bad ? "WRONG" : "correct", bad, N);
  if (bad) goto done;

  /* 5. A deliberate error: a negative length. The status and the message say what is wrong;
   *    nothing was enqueued and the context keeps working. */
  st = gpuopt_axpy(ctx, stream, GPUOPT_DTYPE_F32, -5, alpha, x, 1, y, 1);
  gpuopt_last_error_message(msg, sizeof msg, NULL);
  printf("deliberate error (n = -5): %s\n  %s\n", gpuopt_status_name(st), msg);
  if (st != GPUOPT_ERROR_INVALID_ARGUMENT) goto done;

  st = gpuopt_axpy(ctx, stream, GPUOPT_DTYPE_F32, N, alpha, NULL, 1, y, 1);
  gpuopt_last_error_message(msg, sizeof msg, NULL);
  printf("deliberate error (x = NULL): %s\n  %s\n", gpuopt_status_name(st), msg);
  if (st == GPUOPT_SUCCESS) goto done;

  TRY(gpuopt_graph_launch(graph, stream));
  TRY(gpuopt_stream_synchronize(stream));
  printf("after the errors the context still works: graph replayed again\n");
  rc = 0;

done:
  free(hx);
  free(hy);
  gpuopt_graph_destroy(graph);
  gpuopt_buffer_destroy(bx);
  gpuopt_buffer_destroy(by);
  gpuopt_stream_destroy(stream);
  if (failed(gpuopt_context_destroy(ctx), "gpuopt_context_destroy")) rc = 1;
  printf("%s\n", rc == 0 ? "OK" : "FAILED");
  return rc;
}
