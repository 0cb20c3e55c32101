/* abi_c99: a pure C99 program against gpuopt.h and nothing else.
 *
 * It calls every function the header declares, at least on its error paths (NULL handles, NULL
 * outputs, bad sizes), checks status names, the version, and that each failed call leaves a
 * message naming the function. With a device it also runs axpy end to end (f32 and f64, on
 * gpuopt buffers, with a forced variant, inside a captured graph) and a small f64 gemm.
 *
 * Built two ways: by tests/c/CMakeLists.txt against the build tree (ctest "c_abi"), and with
 * plain `cc -std=c99 -pedantic` and pkg-config against an installed prefix (ctest
 * "install_consumer"). Exit status: 0 all checks passed, 1 a check failed, 77 no device (after the
 * no-device path was checked; ctest's SKIP_RETURN_CODE). `--host` / `--device` run one half
 * (ctests "c_abi_host", never skipped, and "c_abi_gpu"); see main().
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuopt.h"

static int g_checks = 0;
static int g_failures = 0;

#define CHECK(cond)                                                         \
  do {                                                                      \
    ++g_checks;                                                             \
    if (!(cond)) {                                                          \
      ++g_failures;                                                         \
      fprintf(stderr, "abi_c99.c:%d: check failed: %s\n", __LINE__, #cond); \
    }                                                                       \
  } while (0)

/* The calling thread's last message (empty string when there is none). */
static const char* last_message(void) {
  static char msg[1024];
  msg[0] = '\0';
  if (gpuopt_last_error_message(msg, sizeof msg, NULL) != GPUOPT_SUCCESS) msg[0] = '\0';
  return msg;
}

/* Checks that st is `want` and, for a failure, that the message names function fn. */
static void expect_status(int line, gpuopt_status_t st, gpuopt_status_t want, const char* fn) {
  ++g_checks;
  if (st != want) {
    ++g_failures;
    fprintf(stderr, "abi_c99.c:%d: %s returned %s, expected %s (message: %s)\n", line, fn,
            gpuopt_status_name(st), gpuopt_status_name(want), last_message());
    return;
  }
  if (want != GPUOPT_SUCCESS) {
    const char* msg = last_message();
    ++g_checks;
    if (strstr(msg, fn) == NULL) {
      ++g_failures;
      fprintf(stderr, "abi_c99.c:%d: message of failed %s does not name it: \"%s\"\n", line, fn,
              msg);
    }
  }
}

/* Checks that st is one of two failure statuses (where the order of validation is free). */
static void expect_either(int line, gpuopt_status_t st, gpuopt_status_t a, gpuopt_status_t b,
                          const char* fn) {
  expect_status(line, st, (st == b) ? b : a, fn);
}

#define EXPECT(call, want) expect_status(__LINE__, (call), (want), fn)
#define EXPECT_EITHER(call, a, b) expect_either(__LINE__, (call), (a), (b), fn)
#define OK(call) expect_status(__LINE__, (call), GPUOPT_SUCCESS, fn)

static void check_version_and_names(void) {
  static const char* const names[] = {"GPUOPT_SUCCESS",
                                      "GPUOPT_ERROR_INVALID_ARGUMENT",
                                      "GPUOPT_ERROR_INVALID_HANDLE",
                                      "GPUOPT_ERROR_NO_DEVICE",
                                      "GPUOPT_ERROR_UNSUPPORTED",
                                      "GPUOPT_ERROR_OUT_OF_MEMORY",
                                      "GPUOPT_ERROR_MISALIGNED",
                                      "GPUOPT_ERROR_CAPTURE_ILLEGAL",
                                      "GPUOPT_ERROR_NOT_FOUND",
                                      "GPUOPT_ERROR_CUDA",
                                      "GPUOPT_ERROR_CUBLAS",
                                      "GPUOPT_ERROR_INTERNAL",
                                      "GPUOPT_ERROR_WRONG_DEVICE",
                                      "GPUOPT_ERROR_COMM"};
  char expected_version[32];
  int i;

  CHECK(gpuopt_version() == GPUOPT_VERSION);
  sprintf(expected_version, "%d.%d.%d", GPUOPT_VERSION_MAJOR, GPUOPT_VERSION_MINOR,
          GPUOPT_VERSION_PATCH);
  CHECK(gpuopt_version_string() != NULL);
  CHECK(strcmp(gpuopt_version_string(), expected_version) == 0);

  for (i = 0; i < (int)(sizeof names / sizeof names[0]); ++i) {
    const char* name = gpuopt_status_name((gpuopt_status_t)i);
    CHECK(name != NULL && strcmp(name, names[i]) == 0);
  }
  CHECK(strcmp(gpuopt_status_name((gpuopt_status_t)9999), "GPUOPT_STATUS_UNKNOWN") == 0);
  CHECK(strcmp(gpuopt_status_name((gpuopt_status_t)-1), "GPUOPT_STATUS_UNKNOWN") == 0);

  CHECK(gpuopt_op_name(GPUOPT_OP_AXPY) != NULL &&
        strcmp(gpuopt_op_name(GPUOPT_OP_AXPY), "axpy") == 0);
  CHECK(gpuopt_op_name(GPUOPT_OP_GEMM) != NULL &&
        strcmp(gpuopt_op_name(GPUOPT_OP_GEMM), "gemm") == 0);
  CHECK(gpuopt_op_name(GPUOPT_OP_REDUCE) != NULL &&
        strcmp(gpuopt_op_name(GPUOPT_OP_REDUCE), "reduce") == 0);
  CHECK(gpuopt_op_name(GPUOPT_OP_SEGMENTED_SORT) != NULL &&
        strcmp(gpuopt_op_name(GPUOPT_OP_SEGMENTED_SORT), "segmented_sort") == 0);
  CHECK(gpuopt_op_name(GPUOPT_OP_STENCIL) != NULL &&
        strcmp(gpuopt_op_name(GPUOPT_OP_STENCIL), "stencil") == 0);
  CHECK(gpuopt_op_name(GPUOPT_OP_TRANSPOSE) != NULL &&
        strcmp(gpuopt_op_name(GPUOPT_OP_TRANSPOSE), "transpose") == 0);
  CHECK(gpuopt_op_name(GPUOPT_OP_GDN) != NULL && strcmp(gpuopt_op_name(GPUOPT_OP_GDN), "gdn") == 0);
  CHECK(gpuopt_op_name((gpuopt_op_t)9999) == NULL);
  CHECK(gpuopt_reduce_op_name(GPUOPT_REDUCE_ARGMAX) != NULL &&
        strcmp(gpuopt_reduce_op_name(GPUOPT_REDUCE_ARGMAX), "argmax") == 0);
  CHECK(gpuopt_reduce_op_name((gpuopt_reduce_op_t)9999) == NULL);
  CHECK(gpuopt_dtype_name(GPUOPT_DTYPE_F32) != NULL &&
        strcmp(gpuopt_dtype_name(GPUOPT_DTYPE_F32), "f32") == 0);
  CHECK(gpuopt_dtype_name(GPUOPT_DTYPE_F64) != NULL &&
        strcmp(gpuopt_dtype_name(GPUOPT_DTYPE_F64), "f64") == 0);
  CHECK(gpuopt_dtype_name(GPUOPT_DTYPE_F16) != NULL);
  CHECK(gpuopt_dtype_name(GPUOPT_DTYPE_BF16) != NULL);
  CHECK(gpuopt_dtype_name(GPUOPT_DTYPE_I32) != NULL);
  CHECK(gpuopt_dtype_name((gpuopt_dtype_t)9999) == NULL);
}

static void check_last_error_message(void) {
  const char* fn = "gpuopt_last_error_message";
  char small[8];
  size_t len = 0;
  size_t full = 0;

  /* Provoke a known failure, then read its message in pieces. */
  CHECK(gpuopt_context_create(0, NULL) == GPUOPT_ERROR_INVALID_ARGUMENT);
  OK(gpuopt_last_error_message(NULL, 0, &full));
  CHECK(full > strlen("gpuopt_context_create"));
  memset(small, 'x', sizeof small);
  OK(gpuopt_last_error_message(small, sizeof small, &len));
  CHECK(len == full);
  CHECK(small[sizeof small - 1] == '\0' && strlen(small) == sizeof small - 1);
  CHECK(strncmp(small, "gpuopt_context_create", sizeof small - 1) == 0);
  OK(gpuopt_last_error_message(small, 1, NULL));
  CHECK(small[0] == '\0');
  EXPECT(gpuopt_last_error_message(NULL, 16, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
}

/* Every handle-taking function with NULL handles: INVALID_HANDLE (or INVALID_ARGUMENT where an
 * output is NULL too and validation order is free). Destroy functions accept NULL. */
static void check_null_handles(void) {
  const char* fn;
  gpuopt_device_info_t info;
  gpuopt_variant_info_t vinfo;
  gpuopt_stream_t stream = NULL;
  gpuopt_buffer_t buffer = NULL;
  gpuopt_graph_t graph = NULL;
  gpuopt_memory_kind_t kind;
  gpuopt_pointer_checks_t checks;
  const char* name = NULL;
  void* ptr = NULL;
  size_t bytes = 0;
  int count = 0;
  int flag = 0;
  float host[4] = {0};
  const gpuopt_status_t H = GPUOPT_ERROR_INVALID_HANDLE;
  const gpuopt_status_t A = GPUOPT_ERROR_INVALID_ARGUMENT;

  info.struct_size = sizeof info;
  vinfo.struct_size = sizeof vinfo;

  fn = "gpuopt_context_destroy";
  OK(gpuopt_context_destroy(NULL));
  fn = "gpuopt_stream_destroy";
  OK(gpuopt_stream_destroy(NULL));
  fn = "gpuopt_buffer_destroy";
  OK(gpuopt_buffer_destroy(NULL));
  fn = "gpuopt_buffer_destroy_async";
  OK(gpuopt_buffer_destroy_async(NULL, NULL));
  fn = "gpuopt_graph_destroy";
  OK(gpuopt_graph_destroy(NULL));

  fn = "gpuopt_context_device_info";
  EXPECT(gpuopt_context_device_info(NULL, &info), H);
  EXPECT_EITHER(gpuopt_context_device_info(NULL, NULL), H, A);
  fn = "gpuopt_context_set_allocator";
  EXPECT(gpuopt_context_set_allocator(NULL, NULL), H);
  fn = "gpuopt_context_set_pointer_checks";
  EXPECT(gpuopt_context_set_pointer_checks(NULL, GPUOPT_POINTER_CHECKS_CACHED), H);
  fn = "gpuopt_context_pointer_checks";
  EXPECT(gpuopt_context_pointer_checks(NULL, &checks), H);
  fn = "gpuopt_context_forget_pointers";
  EXPECT(gpuopt_context_forget_pointers(NULL), H);
  fn = "gpuopt_stream_create";
  EXPECT(gpuopt_stream_create(NULL, &stream), H);
  CHECK(stream == NULL);
  EXPECT_EITHER(gpuopt_stream_create(NULL, NULL), H, A);
  fn = "gpuopt_stream_wrap";
  EXPECT(gpuopt_stream_wrap(NULL, NULL, &stream), H);
  EXPECT_EITHER(gpuopt_stream_wrap(NULL, NULL, NULL), H, A);
  fn = "gpuopt_stream_native";
  EXPECT(gpuopt_stream_native(NULL, &ptr), H);
  EXPECT_EITHER(gpuopt_stream_native(NULL, NULL), H, A);
  fn = "gpuopt_stream_synchronize";
  EXPECT(gpuopt_stream_synchronize(NULL), H);

  fn = "gpuopt_buffer_create";
  EXPECT(gpuopt_buffer_create(NULL, 1024, GPUOPT_MEMORY_DEVICE, &buffer), H);
  CHECK(buffer == NULL);
  EXPECT_EITHER(gpuopt_buffer_create(NULL, 1024, GPUOPT_MEMORY_DEVICE, NULL), H, A);
  fn = "gpuopt_buffer_wrap";
  EXPECT(gpuopt_buffer_wrap(NULL, host, sizeof host, &buffer), H);
  EXPECT_EITHER(gpuopt_buffer_wrap(NULL, NULL, sizeof host, NULL), H, A);
  fn = "gpuopt_buffer_device_pointer";
  EXPECT(gpuopt_buffer_device_pointer(NULL, &ptr), H);
  fn = "gpuopt_buffer_host_pointer";
  EXPECT(gpuopt_buffer_host_pointer(NULL, &ptr), H);
  fn = "gpuopt_buffer_size";
  EXPECT(gpuopt_buffer_size(NULL, &bytes), H);
  fn = "gpuopt_buffer_kind";
  EXPECT(gpuopt_buffer_kind(NULL, &kind), H);
  fn = "gpuopt_buffer_is_compressed";
  EXPECT(gpuopt_buffer_is_compressed(NULL, &flag), H);
  fn = "gpuopt_buffer_copy_from_host";
  EXPECT(gpuopt_buffer_copy_from_host(NULL, NULL, 0, host, sizeof host), H);
  fn = "gpuopt_buffer_copy_to_host";
  EXPECT(gpuopt_buffer_copy_to_host(NULL, NULL, 0, host, sizeof host), H);

  fn = "gpuopt_graph_begin";
  EXPECT(gpuopt_graph_begin(NULL, NULL), H);
  fn = "gpuopt_graph_end";
  EXPECT(gpuopt_graph_end(NULL, &graph), H);
  CHECK(graph == NULL);
  fn = "gpuopt_graph_end_update";
  EXPECT(gpuopt_graph_end_update(NULL, NULL, &flag), H);
  fn = "gpuopt_graph_launch";
  EXPECT(gpuopt_graph_launch(NULL, NULL), H);

  fn = "gpuopt_variant_count";
  EXPECT(gpuopt_variant_count(NULL, GPUOPT_OP_AXPY, &count), H);
  fn = "gpuopt_variant_name";
  EXPECT(gpuopt_variant_name(NULL, GPUOPT_OP_AXPY, 0, &name), H);
  fn = "gpuopt_variant_info";
  EXPECT(gpuopt_variant_info(NULL, GPUOPT_OP_AXPY, 0, &vinfo), H);
  fn = "gpuopt_context_set_variant";
  EXPECT(gpuopt_context_set_variant(NULL, GPUOPT_OP_AXPY, "naive"), H);
  fn = "gpuopt_context_get_variant";
  EXPECT(gpuopt_context_get_variant(NULL, GPUOPT_OP_AXPY, &name), H);
  fn = "gpuopt_last_variant";
  EXPECT(gpuopt_last_variant(NULL, GPUOPT_OP_AXPY, &name), H);
  fn = "gpuopt_context_set_tune_cache";
  EXPECT(gpuopt_context_set_tune_cache(NULL, "tune.cache"), H);
  fn = "gpuopt_context_tune_cache_entries";
  EXPECT(gpuopt_context_tune_cache_entries(NULL, &count), H);
  fn = "gpuopt_tune";
  EXPECT(gpuopt_tune(NULL, NULL, GPUOPT_OP_GEMM, NULL, NULL, 1.0, NULL), H);

  fn = "gpuopt_axpy";
  EXPECT(gpuopt_axpy(NULL, NULL, GPUOPT_DTYPE_F32, 4, 1.0, host, 1, host, 1), H);
  fn = "gpuopt_gemm";
  EXPECT(gpuopt_gemm(NULL, NULL, NULL, host, host, host), H);
  fn = "gpuopt_reduce";
  EXPECT(gpuopt_reduce(NULL, NULL, NULL, host, host), H);
  fn = "gpuopt_segmented_sort_workspace_size";
  EXPECT(gpuopt_segmented_sort_workspace_size(NULL, NULL, &bytes), H);
  fn = "gpuopt_segmented_sort";
  EXPECT(gpuopt_segmented_sort(NULL, NULL, NULL, host, host, NULL, NULL, NULL, 0), H);
  fn = "gpuopt_stencil";
  EXPECT(gpuopt_stencil(NULL, NULL, NULL, host, host), H);
  fn = "gpuopt_transpose";
  EXPECT(gpuopt_transpose(NULL, NULL, NULL, host, host), H);
  fn = "gpuopt_gdn_workspace_size";
  EXPECT(gpuopt_gdn_workspace_size(NULL, NULL, GPUOPT_GDN_FORWARD, &bytes), H);
  fn = "gpuopt_gdn_forward";
  EXPECT(gpuopt_gdn_forward(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0), H);
  fn = "gpuopt_gdn_backward";
  EXPECT(gpuopt_gdn_backward(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0),
         H);

  /* Multi-GPU: the answers below do not depend on whether NCCL is installed. */
  {
    gpuopt_comm_id_t id;
    gpuopt_comm_t comm = NULL;
    gpuopt_grid_t grid = NULL;
    gpuopt_dist_desc_t dd;
    int64_t i64 = 0;
    char hex[GPUOPT_COMM_ID_HEX_SIZE];
    gpuopt_status_t st;
    memset(&id, 0, sizeof id);
    memset(&dd, 0, sizeof dd);
    fn = "gpuopt_comm_nccl_version";
    EXPECT(gpuopt_comm_nccl_version(NULL), A);
    fn = "gpuopt_comm_id_create";
    EXPECT(gpuopt_comm_id_create(NULL), A);
    fn = "gpuopt_comm_id_to_hex";
    OK(gpuopt_comm_id_to_hex(&id, hex, sizeof hex));
    CHECK(strlen(hex) == 2 * GPUOPT_COMM_ID_BYTES);
    EXPECT(gpuopt_comm_id_to_hex(&id, hex, 16), A);
    fn = "gpuopt_comm_id_from_hex";
    OK(gpuopt_comm_id_from_hex(hex, &id));
    EXPECT(gpuopt_comm_id_from_hex("12", &id), A);
    fn = "gpuopt_comm_create";
    EXPECT(gpuopt_comm_create(NULL, &id, 1, 0, &comm), H);
    fn = "gpuopt_comm_create_local";
    EXPECT(gpuopt_comm_create_local(NULL, 1, &comm), A);
    fn = "gpuopt_comm_split";
    EXPECT(gpuopt_comm_split(NULL, 0, 0, &comm), H);
    fn = "gpuopt_comm_rank";
    EXPECT(gpuopt_comm_rank(NULL, &count), H);
    fn = "gpuopt_comm_size";
    EXPECT(gpuopt_comm_size(NULL, &count), H);
    fn = "gpuopt_comm_device";
    EXPECT(gpuopt_comm_device(NULL, &count), H);
    fn = "gpuopt_comm_set_checked";
    EXPECT(gpuopt_comm_set_checked(NULL, 1), H);
    fn = "gpuopt_comm_status";
    EXPECT(gpuopt_comm_status(NULL), H);
    fn = "gpuopt_comm_abort";
    OK(gpuopt_comm_abort(NULL));
    fn = "gpuopt_comm_destroy";
    OK(gpuopt_comm_destroy(NULL));
    fn = "gpuopt_group_end";
    EXPECT(gpuopt_group_end(), A);
    fn = "gpuopt_group_begin";
    st = gpuopt_group_begin(); /* SUCCESS with NCCL, UNSUPPORTED without */
    EXPECT_EITHER(st, GPUOPT_ERROR_UNSUPPORTED, GPUOPT_SUCCESS);
    if (st == GPUOPT_SUCCESS) {
      fn = "gpuopt_group_end";
      OK(gpuopt_group_end());
    }
    fn = "gpuopt_allreduce";
    EXPECT(gpuopt_allreduce(NULL, NULL, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, host, host, 4), H);
    fn = "gpuopt_reduce_scatter";
    EXPECT(gpuopt_reduce_scatter(NULL, NULL, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, host, host, 1),
           H);
    fn = "gpuopt_allgather";
    EXPECT(gpuopt_allgather(NULL, NULL, GPUOPT_DTYPE_F32, host, host, 1), H);
    fn = "gpuopt_broadcast";
    EXPECT(gpuopt_broadcast(NULL, NULL, GPUOPT_DTYPE_F32, host, host, 4, 0), H);
    fn = "gpuopt_reduce_dist";
    EXPECT(gpuopt_reduce_dist(NULL, NULL, NULL, host, host), H);
    fn = "gpuopt_grid_create";
    EXPECT(gpuopt_grid_create(NULL, 1, 1, &grid), H);
    fn = "gpuopt_grid_info";
    EXPECT(gpuopt_grid_info(NULL, &count, NULL, NULL, NULL), H);
    fn = "gpuopt_grid_destroy";
    OK(gpuopt_grid_destroy(NULL));
    fn = "gpuopt_dist_local_shape";
    EXPECT(gpuopt_dist_local_shape(&dd, 0, 0, &i64, &i64), A); /* struct_size 0 */
    dd.struct_size = sizeof dd;
    dd.dtype = GPUOPT_DTYPE_F64;
    dd.rows = 10;
    dd.cols = 10;
    dd.row_block = 3;
    dd.col_block = 4;
    dd.grid_rows = 2;
    dd.grid_cols = 2;
    OK(gpuopt_dist_local_shape(&dd, 1, 1, &i64, &i64));
    CHECK(i64 == 4); /* grid column 1 holds columns 4..7 */
    fn = "gpuopt_dist_locate";
    EXPECT(gpuopt_dist_locate(&dd, 10, 0, NULL, NULL, NULL, NULL), A);
    fn = "gpuopt_dist_scatter";
    EXPECT(gpuopt_dist_scatter(NULL, NULL, &dd, 0, host, 10, host), H);
    fn = "gpuopt_dist_gather";
    EXPECT(gpuopt_dist_gather(NULL, NULL, &dd, 0, host, host, 10), H);
    fn = "gpuopt_gemm_dist_workspace_size";
    EXPECT(gpuopt_gemm_dist_workspace_size(NULL, NULL, &bytes), H);
    fn = "gpuopt_gemm_dist";
    EXPECT(gpuopt_gemm_dist(NULL, NULL, NULL, host, host, host, NULL, 0), H);
  }

  /* A pointer that was never a handle is refused without being dereferenced. */
  fn = "gpuopt_stream_synchronize";
  EXPECT(gpuopt_stream_synchronize((gpuopt_stream_t)(void*)host), H);
  fn = "gpuopt_buffer_size";
  EXPECT(gpuopt_buffer_size((gpuopt_buffer_t)(void*)host, &bytes), H);
}

/* The log sink of check_logging: counts lines, keeps the last, and (when asked) tries to replace
 * itself from inside, which must be refused. */
struct log_seen {
  int lines;
  int bad_level;
  int try_reentry;
  gpuopt_status_t reentry_status;
  char last[512];
};

static void log_sink(gpuopt_log_level_t level, const char* message, void* user) {
  struct log_seen* seen = (struct log_seen*)user;
  ++seen->lines;
  if (level != GPUOPT_LOG_INFO && level != GPUOPT_LOG_DEBUG) ++seen->bad_level;
  snprintf(seen->last, sizeof seen->last, "%s", message ? message : "(null)");
  if (seen->try_reentry) seen->reentry_status = gpuopt_set_log_callback(NULL, NULL);
}

/* The log level and callback: the context line (created, or refused with the reason) reaches the
 * callback; re-entry is refused; NULL restores stderr. Leaves the level as it found it. */
static void check_logging(void) {
  const char* fn;
  gpuopt_log_level_t initial = GPUOPT_LOG_OFF, level = GPUOPT_LOG_OFF;
  struct log_seen seen;
  gpuopt_context_t ctx = NULL;

  memset(&seen, 0, sizeof seen);
  fn = "gpuopt_get_log_level";
  EXPECT(gpuopt_get_log_level(NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  OK(gpuopt_get_log_level(&initial));
  fn = "gpuopt_set_log_level";
  EXPECT(gpuopt_set_log_level((gpuopt_log_level_t)3), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT(gpuopt_set_log_level((gpuopt_log_level_t)-1), GPUOPT_ERROR_INVALID_ARGUMENT);
  OK(gpuopt_set_log_level(GPUOPT_LOG_INFO));
  fn = "gpuopt_get_log_level";
  OK(gpuopt_get_log_level(&level));
  CHECK(level == GPUOPT_LOG_INFO);

  fn = "gpuopt_set_log_callback";
  OK(gpuopt_set_log_callback(log_sink, &seen));
  if (gpuopt_context_create(0, &ctx) == GPUOPT_SUCCESS) gpuopt_context_destroy(ctx);
  CHECK(seen.lines >= 1 && seen.bad_level == 0);
  CHECK(strstr(seen.last, "context") != NULL);
  printf("log callback: %d line(s), last: %s\n", seen.lines, seen.last);

  seen.try_reentry = 1;
  seen.reentry_status = GPUOPT_SUCCESS;
  ctx = NULL;
  if (gpuopt_context_create(0, &ctx) == GPUOPT_SUCCESS) gpuopt_context_destroy(ctx);
  CHECK(seen.reentry_status == GPUOPT_ERROR_INVALID_ARGUMENT);

  OK(gpuopt_set_log_callback(NULL, NULL));
  seen.lines = 0;
  OK(gpuopt_set_log_level(GPUOPT_LOG_OFF));
  ctx = NULL;
  if (gpuopt_context_create(0, &ctx) == GPUOPT_SUCCESS) gpuopt_context_destroy(ctx);
  CHECK(seen.lines == 0);
  fn = "gpuopt_set_log_level";
  OK(gpuopt_set_log_level(initial));
}

/* Returns 1 when a device is present. Without one, checks the no-device answers. */
static int check_devices(void) {
  const char* fn;
  int count = -1;
  gpuopt_status_t st;
  gpuopt_device_info_t info;
  gpuopt_context_t ctx = NULL;

  fn = "gpuopt_device_count";
  EXPECT(gpuopt_device_count(NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  st = gpuopt_device_count(&count);
  CHECK(st == GPUOPT_SUCCESS || st == GPUOPT_ERROR_NO_DEVICE);

  fn = "gpuopt_device_info";
  EXPECT(gpuopt_device_info(0, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  info.struct_size = sizeof info;
  EXPECT_EITHER(gpuopt_device_info(-1, &info), GPUOPT_ERROR_INVALID_ARGUMENT,
                GPUOPT_ERROR_NO_DEVICE);

  fn = "gpuopt_context_create";
  EXPECT(gpuopt_context_create(0, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_EITHER(gpuopt_context_create(-1, &ctx), GPUOPT_ERROR_INVALID_ARGUMENT,
                GPUOPT_ERROR_NO_DEVICE);
  CHECK(ctx == NULL);

  if (st != GPUOPT_SUCCESS || count == 0) {
    CHECK(count == 0);
    fn = "gpuopt_device_info";
    EXPECT(gpuopt_device_info(0, &info), GPUOPT_ERROR_NO_DEVICE);
    fn = "gpuopt_context_create";
    EXPECT(gpuopt_context_create(0, &ctx), GPUOPT_ERROR_NO_DEVICE);
    CHECK(ctx == NULL);
    printf("no device: %s\n", last_message());
    return 0;
  }
  CHECK(count >= 1);
  fn = "gpuopt_device_info";
  OK(gpuopt_device_info(0, &info));
  CHECK(info.device == 0 && info.cc_major >= 5 && info.sm_count > 0 && info.name[0] != '\0');
  EXPECT_EITHER(gpuopt_device_info(count, &info), GPUOPT_ERROR_INVALID_ARGUMENT,
                GPUOPT_ERROR_NO_DEVICE);
  return 1;
}

/* gpuopt_gemm: descriptor validation, then C = 2 A B + C (f64, 3x4 times 4x2) end to end.
 * A and B live in bab (at element 0 and 16), C in bc. */
static void check_gemm(gpuopt_context_t ctx, gpuopt_stream_t stream, gpuopt_buffer_t bab,
                       gpuopt_buffer_t bc) {
  enum { M = 3, N = 2, K = 4 };
  const char* fn = "gpuopt_gemm";
  gpuopt_gemm_desc_t d;
  double ha[M * K], hb[K * N], hc[M * N], out[M * N];
  char* ab = NULL;
  void* c = NULL;
  void* p = NULL;
  const char* name = NULL;
  int i, j, l, count = 0, bad = 0;

  OK(gpuopt_buffer_device_pointer(bab, &p));
  ab = (char*)p;
  OK(gpuopt_buffer_device_pointer(bc, &c));
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.trans_a = GPUOPT_TRANS_N;
  d.trans_b = GPUOPT_TRANS_N;
  d.m = M;
  d.n = N;
  d.k = K;
  d.alpha = 2.0;
  d.beta = 1.0;
  d.a_type = GPUOPT_DTYPE_F64;
  d.c_type = GPUOPT_DTYPE_F64;
  d.compute = GPUOPT_COMPUTE_DEFAULT;
  d.lda = M;
  d.ldb = K;
  d.ldc = M;
  d.batch_count = 1;

  EXPECT(gpuopt_gemm(ctx, stream, NULL, ab, ab + 16 * sizeof(double), c),
         GPUOPT_ERROR_INVALID_ARGUMENT);
  d.struct_size = 0;
  EXPECT(gpuopt_gemm(ctx, stream, &d, ab, ab + 16 * sizeof(double), c),
         GPUOPT_ERROR_INVALID_ARGUMENT);
  d.struct_size = sizeof d;
  d.m = -1;
  EXPECT(gpuopt_gemm(ctx, stream, &d, ab, ab + 16 * sizeof(double), c),
         GPUOPT_ERROR_INVALID_ARGUMENT);
  d.m = M;
  d.lda = M - 1;
  EXPECT(gpuopt_gemm(ctx, stream, &d, ab, ab + 16 * sizeof(double), c),
         GPUOPT_ERROR_INVALID_ARGUMENT);
  d.lda = M;
  d.trans_a = (gpuopt_transpose_t)7;
  EXPECT(gpuopt_gemm(ctx, stream, &d, ab, ab + 16 * sizeof(double), c),
         GPUOPT_ERROR_INVALID_ARGUMENT);
  d.trans_a = GPUOPT_TRANS_N;
  d.c_type = GPUOPT_DTYPE_F32;
  EXPECT(gpuopt_gemm(ctx, stream, &d, ab, ab + 16 * sizeof(double), c), GPUOPT_ERROR_UNSUPPORTED);
  d.c_type = GPUOPT_DTYPE_F64;
  EXPECT(gpuopt_gemm(ctx, stream, &d, NULL, ab + 16 * sizeof(double), c),
         GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT(gpuopt_gemm(ctx, NULL, &d, ab, ab + 16 * sizeof(double), c), GPUOPT_ERROR_INVALID_HANDLE);

  fn = "gpuopt_variant_count";
  OK(gpuopt_variant_count(ctx, GPUOPT_OP_GEMM, &count));
  CHECK(count >= 2);

  for (i = 0; i < M * K; ++i) ha[i] = (double)(i % 5) - 2.0;
  for (i = 0; i < K * N; ++i) hb[i] = 0.5 * (double)(i % 3);
  for (i = 0; i < M * N; ++i) hc[i] = (double)i;
  fn = "gpuopt_buffer_copy_from_host";
  OK(gpuopt_buffer_copy_from_host(bab, stream, 0, ha, sizeof ha));
  OK(gpuopt_buffer_copy_from_host(bab, stream, 16 * sizeof(double), hb, sizeof hb));
  OK(gpuopt_buffer_copy_from_host(bc, stream, 0, hc, sizeof hc));
  fn = "gpuopt_gemm";
  OK(gpuopt_gemm(ctx, stream, &d, ab, ab + 16 * sizeof(double), c));
  fn = "gpuopt_buffer_copy_to_host";
  OK(gpuopt_buffer_copy_to_host(bc, stream, 0, out, sizeof out));
  fn = "gpuopt_stream_synchronize";
  OK(gpuopt_stream_synchronize(stream));
  for (j = 0; j < N; ++j) {
    for (i = 0; i < M; ++i) {
      double want = hc[i + j * M];
      for (l = 0; l < K; ++l) want += 2.0 * ha[i + l * M] * hb[l + j * K];
      if (fabs(out[i + j * M] - want) > 1e-12) ++bad;
    }
  }
  CHECK(bad == 0);
  fn = "gpuopt_last_variant";
  OK(gpuopt_last_variant(ctx, GPUOPT_OP_GEMM, &name));
  CHECK(name != NULL);
}

/* gpuopt_reduce: descriptor validation, then the f64 sum, max and argmax of 100 values in bin
 * (results in bout). */
static void check_reduce(gpuopt_context_t ctx, gpuopt_stream_t stream, gpuopt_buffer_t bin,
                         gpuopt_buffer_t bout) {
  enum { N = 100 };
  const char* fn = "gpuopt_reduce";
  gpuopt_reduce_desc_t d;
  double h[N], sum = 0.0, result = 0.0;
  int64_t index = -2;
  void* in = NULL;
  void* out = NULL;
  int i, count = 0;

  OK(gpuopt_buffer_device_pointer(bin, &in));
  OK(gpuopt_buffer_device_pointer(bout, &out));
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.op = GPUOPT_REDUCE_SUM;
  d.in_type = GPUOPT_DTYPE_F64;
  d.n = N;
  d.num_segments = 1;
  d.segment_stride = N;
  d.offsets = NULL;
  d.mode = GPUOPT_REDUCE_DETERMINISTIC;

  EXPECT(gpuopt_reduce(ctx, stream, NULL, in, out), GPUOPT_ERROR_INVALID_ARGUMENT);
  d.struct_size = 0;
  EXPECT(gpuopt_reduce(ctx, stream, &d, in, out), GPUOPT_ERROR_INVALID_ARGUMENT);
  d.struct_size = sizeof d;
  d.n = -1;
  EXPECT(gpuopt_reduce(ctx, stream, &d, in, out), GPUOPT_ERROR_INVALID_ARGUMENT);
  d.n = N;
  EXPECT(gpuopt_reduce(ctx, stream, &d, in, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT(gpuopt_reduce(ctx, NULL, &d, in, out), GPUOPT_ERROR_INVALID_HANDLE);

  fn = "gpuopt_variant_count";
  OK(gpuopt_variant_count(ctx, GPUOPT_OP_REDUCE, &count));
  CHECK(count >= 2);

  for (i = 0; i < N; ++i) {
    h[i] = (double)((i * 37) % 101) - 50.0; /* integers: the sum is exact */
    sum += h[i];
  }
  fn = "gpuopt_buffer_copy_from_host";
  OK(gpuopt_buffer_copy_from_host(bin, stream, 0, h, sizeof h));
  fn = "gpuopt_reduce";
  OK(gpuopt_reduce(ctx, stream, &d, in, out));
  fn = "gpuopt_buffer_copy_to_host";
  OK(gpuopt_buffer_copy_to_host(bout, stream, 0, &result, sizeof result));
  fn = "gpuopt_stream_synchronize";
  OK(gpuopt_stream_synchronize(stream));
  CHECK(result == sum);

  d.op = GPUOPT_REDUCE_ARGMAX; /* the maximum, 50, is at i = 30 */
  fn = "gpuopt_reduce";
  OK(gpuopt_reduce(ctx, stream, &d, in, out));
  fn = "gpuopt_buffer_copy_to_host";
  OK(gpuopt_buffer_copy_to_host(bout, stream, 0, &index, sizeof index));
  fn = "gpuopt_stream_synchronize";
  OK(gpuopt_stream_synchronize(stream));
  CHECK(index == 30 && h[30] == 50.0);
}

/* Error paths that need live handles, then axpy end to end. */
static void check_with_device(void) {
  enum { N = 1000 };
  const char* fn;
  gpuopt_context_t ctx = NULL;
  gpuopt_stream_t stream = NULL;
  gpuopt_stream_t wrapped = NULL;
  gpuopt_stream_t dead = NULL;
  gpuopt_buffer_t bx = NULL, by = NULL, bw = NULL, extra = NULL;
  gpuopt_graph_t graph = NULL;
  gpuopt_device_info_t info;
  gpuopt_variant_info_t vinfo;
  gpuopt_memory_kind_t kind;
  const char* name = NULL;
  void* native = NULL;
  void* x = NULL;
  void* y = NULL;
  void* ptr = NULL;
  size_t bytes = 0;
  int count = 0, i = 0, flag = -1, bad = 0;
  static float hx[N], hy[N], out[N];
  static double dx[N], dy[N], dout[N];

  fn = "gpuopt_context_create";
  OK(gpuopt_context_create(0, &ctx));
  if (ctx == NULL) return;

  fn = "gpuopt_context_device_info";
  EXPECT(gpuopt_context_device_info(ctx, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  info.struct_size = 0;
  EXPECT(gpuopt_context_device_info(ctx, &info), GPUOPT_ERROR_INVALID_ARGUMENT);
  info.struct_size = sizeof info;
  OK(gpuopt_context_device_info(ctx, &info));
  printf("device 0: %s, cc %d.%d, %d SMs\n", info.name, info.cc_major, info.cc_minor,
         info.sm_count);

  fn = "gpuopt_context_set_allocator";
  {
    gpuopt_allocator_t a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    EXPECT(gpuopt_context_set_allocator(ctx, &a), GPUOPT_ERROR_INVALID_ARGUMENT); /* no callbacks */
    OK(gpuopt_context_set_allocator(ctx, NULL));
  }

  fn = "gpuopt_context_set_pointer_checks";
  {
    gpuopt_pointer_checks_t mode = GPUOPT_POINTER_CHECKS_CACHED;
    EXPECT(gpuopt_context_set_pointer_checks(ctx, (gpuopt_pointer_checks_t)2),
           GPUOPT_ERROR_INVALID_ARGUMENT);
    OK(gpuopt_context_set_pointer_checks(ctx, GPUOPT_POINTER_CHECKS_CACHED));
    OK(gpuopt_context_pointer_checks(ctx, &mode));
    CHECK(mode == GPUOPT_POINTER_CHECKS_CACHED);
    OK(gpuopt_context_forget_pointers(ctx));
    OK(gpuopt_context_set_pointer_checks(ctx, GPUOPT_POINTER_CHECKS_FULL));
  }

  fn = "gpuopt_stream_create";
  EXPECT(gpuopt_stream_create(ctx, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  OK(gpuopt_stream_create(ctx, &stream));
  fn = "gpuopt_stream_native";
  EXPECT(gpuopt_stream_native(stream, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  OK(gpuopt_stream_native(stream, &native));
  CHECK(native != NULL);
  fn = "gpuopt_stream_wrap";
  OK(gpuopt_stream_wrap(ctx, native, &wrapped));
  fn = "gpuopt_stream_create";
  OK(gpuopt_stream_create(ctx, &dead));
  fn = "gpuopt_stream_destroy";
  OK(gpuopt_stream_destroy(dead));
  fn = "gpuopt_stream_synchronize";
  EXPECT(gpuopt_stream_synchronize(dead), GPUOPT_ERROR_INVALID_HANDLE); /* stale handle */

  fn = "gpuopt_buffer_create";
  EXPECT(gpuopt_buffer_create(ctx, 0, GPUOPT_MEMORY_DEVICE, &extra), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT(gpuopt_buffer_create(ctx, 64, (gpuopt_memory_kind_t)99, &extra),
         GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT(gpuopt_buffer_create(ctx, 64, GPUOPT_MEMORY_DEVICE, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  CHECK(extra == NULL);
  OK(gpuopt_buffer_create(ctx, N * sizeof(double), GPUOPT_MEMORY_DEVICE, &bx));
  OK(gpuopt_buffer_create(ctx, N * sizeof(double), GPUOPT_MEMORY_DEVICE, &by));
  fn = "gpuopt_buffer_device_pointer";
  EXPECT(gpuopt_buffer_device_pointer(bx, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  OK(gpuopt_buffer_device_pointer(bx, &x));
  OK(gpuopt_buffer_device_pointer(by, &y));
  fn = "gpuopt_buffer_host_pointer";
  EXPECT(gpuopt_buffer_host_pointer(bx, &ptr), GPUOPT_ERROR_UNSUPPORTED);
  fn = "gpuopt_buffer_size";
  EXPECT(gpuopt_buffer_size(bx, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  OK(gpuopt_buffer_size(bx, &bytes));
  CHECK(bytes == N * sizeof(double));
  fn = "gpuopt_buffer_kind";
  EXPECT(gpuopt_buffer_kind(bx, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  OK(gpuopt_buffer_kind(bx, &kind));
  CHECK(kind == GPUOPT_MEMORY_DEVICE);
  fn = "gpuopt_buffer_is_compressed";
  EXPECT(gpuopt_buffer_is_compressed(bx, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  OK(gpuopt_buffer_is_compressed(bx, &flag));
  CHECK(flag == 0);
  fn = "gpuopt_buffer_wrap";
  EXPECT(gpuopt_buffer_wrap(ctx, NULL, 64, &bw), GPUOPT_ERROR_INVALID_ARGUMENT);
  OK(gpuopt_buffer_wrap(ctx, x, N * sizeof(float), &bw));
  fn = "gpuopt_buffer_kind";
  OK(gpuopt_buffer_kind(bw, &kind));
  CHECK(kind == GPUOPT_MEMORY_EXTERNAL);

  for (i = 0; i < N; ++i) {
    hx[i] = (float)(i % 17) - 8.0f;
    hy[i] = 0.25f * (float)(i % 5);
  }
  fn = "gpuopt_buffer_copy_from_host";
  EXPECT(gpuopt_buffer_copy_from_host(bx, stream, 0, NULL, 16), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT(gpuopt_buffer_copy_from_host(bx, stream, N * sizeof(double) - 8, hx, 16),
         GPUOPT_ERROR_INVALID_ARGUMENT);
  OK(gpuopt_buffer_copy_from_host(bx, stream, 0, hx, sizeof hx));
  OK(gpuopt_buffer_copy_from_host(by, stream, 0, hy, sizeof hy));
  fn = "gpuopt_buffer_copy_to_host";
  EXPECT(gpuopt_buffer_copy_to_host(by, stream, 0, NULL, 16), GPUOPT_ERROR_INVALID_ARGUMENT);

  /* axpy argument validation: nothing is enqueued. */
  fn = "gpuopt_axpy";
  EXPECT(gpuopt_axpy(ctx, NULL, GPUOPT_DTYPE_F32, N, 2.0, x, 1, y, 1), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT(gpuopt_axpy(ctx, stream, GPUOPT_DTYPE_F32, -1, 2.0, x, 1, y, 1),
         GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT(gpuopt_axpy(ctx, stream, GPUOPT_DTYPE_F32, N, 2.0, NULL, 1, y, 1),
         GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT(gpuopt_axpy(ctx, stream, GPUOPT_DTYPE_F32, N, 2.0, x, 1, NULL, 1),
         GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT(gpuopt_axpy(ctx, stream, GPUOPT_DTYPE_F32, N, 2.0, x, 0, y, 1),
         GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT(gpuopt_axpy(ctx, stream, GPUOPT_DTYPE_F32, N, 2.0, x, 1, y, -1),
         GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_EITHER(gpuopt_axpy(ctx, stream, GPUOPT_DTYPE_I32, N, 2.0, x, 1, y, 1),
                GPUOPT_ERROR_UNSUPPORTED, GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT(gpuopt_axpy(ctx, stream, (gpuopt_dtype_t)99, N, 2.0, x, 1, y, 1),
         GPUOPT_ERROR_INVALID_ARGUMENT);
  OK(gpuopt_axpy(ctx, stream, GPUOPT_DTYPE_F32, 0, 2.0, x, 1, y, 1)); /* n = 0: no-op */

  /* Variants: list, force one, ask which ran, back to auto. */
  fn = "gpuopt_variant_count";
  EXPECT(gpuopt_variant_count(ctx, GPUOPT_OP_AXPY, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_EITHER(gpuopt_variant_count(ctx, (gpuopt_op_t)99, &count), GPUOPT_ERROR_INVALID_ARGUMENT,
                GPUOPT_ERROR_NOT_FOUND);
  OK(gpuopt_variant_count(ctx, GPUOPT_OP_AXPY, &count));
  CHECK(count >= 2);
  fn = "gpuopt_variant_name";
  EXPECT(gpuopt_variant_name(ctx, GPUOPT_OP_AXPY, 0, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT(gpuopt_variant_name(ctx, GPUOPT_OP_AXPY, count, &name), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT(gpuopt_variant_name(ctx, GPUOPT_OP_AXPY, -1, &name), GPUOPT_ERROR_INVALID_ARGUMENT);
  for (i = 0; i < count; ++i) {
    OK(gpuopt_variant_name(ctx, GPUOPT_OP_AXPY, i, &name));
    CHECK(name != NULL && name[0] != '\0');
  }
  fn = "gpuopt_variant_info";
  EXPECT(gpuopt_variant_info(ctx, GPUOPT_OP_AXPY, 0, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  vinfo.struct_size = sizeof vinfo;
  EXPECT(gpuopt_variant_info(ctx, GPUOPT_OP_AXPY, count, &vinfo), GPUOPT_ERROR_INVALID_ARGUMENT);
  OK(gpuopt_variant_info(ctx, GPUOPT_OP_AXPY, 0, &vinfo));
  CHECK(vinfo.name != NULL && vinfo.technique != NULL);
  CHECK((vinfo.dtype_mask & (1u << GPUOPT_DTYPE_F32)) != 0);
  fn = "gpuopt_context_set_variant";
  EXPECT(gpuopt_context_set_variant(ctx, GPUOPT_OP_AXPY, "no_such_variant"),
         GPUOPT_ERROR_NOT_FOUND);
  OK(gpuopt_context_set_variant(ctx, GPUOPT_OP_AXPY, "naive"));
  fn = "gpuopt_context_get_variant";
  EXPECT(gpuopt_context_get_variant(ctx, GPUOPT_OP_AXPY, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  OK(gpuopt_context_get_variant(ctx, GPUOPT_OP_AXPY, &name));
  CHECK(name != NULL && strcmp(name, "naive") == 0);

  /* y = 2 x + y (f32, forced naive) */
  fn = "gpuopt_axpy";
  OK(gpuopt_axpy(ctx, stream, GPUOPT_DTYPE_F32, N, 2.0, x, 1, y, 1));
  fn = "gpuopt_last_variant";
  EXPECT(gpuopt_last_variant(ctx, GPUOPT_OP_AXPY, NULL), GPUOPT_ERROR_INVALID_ARGUMENT);
  OK(gpuopt_last_variant(ctx, GPUOPT_OP_AXPY, &name));
  CHECK(name != NULL && strcmp(name, "naive") == 0);
  fn = "gpuopt_context_set_variant";
  OK(gpuopt_context_set_variant(ctx, GPUOPT_OP_AXPY, NULL));
  fn = "gpuopt_context_get_variant";
  OK(gpuopt_context_get_variant(ctx, GPUOPT_OP_AXPY, &name));
  CHECK(name != NULL && strcmp(name, "auto") == 0);

  /* The same again inside a captured graph (auto dispatch), replayed twice: y = 2x + y + 2 * x. */
  fn = "gpuopt_graph_begin";
  EXPECT(gpuopt_graph_begin(ctx, NULL), GPUOPT_ERROR_INVALID_HANDLE);
  fn = "gpuopt_graph_end";
  EXPECT(gpuopt_graph_end(stream, &graph), GPUOPT_ERROR_INVALID_ARGUMENT); /* not capturing */
  CHECK(graph == NULL);
  fn = "gpuopt_graph_begin";
  OK(gpuopt_graph_begin(ctx, stream));
  EXPECT(gpuopt_graph_begin(ctx, stream), GPUOPT_ERROR_CAPTURE_ILLEGAL); /* already capturing */
  fn = "gpuopt_graph_end";
  EXPECT(gpuopt_graph_end(stream, NULL), GPUOPT_ERROR_INVALID_ARGUMENT); /* ends, discards */
  fn = "gpuopt_graph_begin";
  OK(gpuopt_graph_begin(ctx, stream));
  fn = "gpuopt_buffer_create";
  EXPECT(gpuopt_buffer_create(ctx, 64, GPUOPT_MEMORY_DEVICE, &extra), GPUOPT_ERROR_CAPTURE_ILLEGAL);
  fn = "gpuopt_stream_synchronize";
  EXPECT(gpuopt_stream_synchronize(stream), GPUOPT_ERROR_CAPTURE_ILLEGAL);
  fn = "gpuopt_axpy";
  OK(gpuopt_axpy(ctx, stream, GPUOPT_DTYPE_F32, N, 1.0, x, 1, y, 1));
  fn = "gpuopt_stream_create";
  EXPECT(gpuopt_stream_create(ctx, &dead), GPUOPT_ERROR_CAPTURE_ILLEGAL);
  fn = "gpuopt_buffer_copy_from_host";
  EXPECT(gpuopt_buffer_copy_from_host(by, stream, 0, hy, sizeof hy),
         GPUOPT_ERROR_CAPTURE_ILLEGAL); /* pageable source */
  fn = "gpuopt_graph_end";
  OK(gpuopt_graph_end(stream, &graph));
  fn = "gpuopt_graph_launch";
  EXPECT(gpuopt_graph_launch(graph, NULL), GPUOPT_ERROR_INVALID_HANDLE);
  OK(gpuopt_graph_launch(graph, stream));
  OK(gpuopt_graph_launch(graph, wrapped)); /* same CUDA stream, so still ordered */
  fn = "gpuopt_stream_synchronize";
  OK(gpuopt_stream_synchronize(stream));
  fn = "gpuopt_buffer_copy_to_host";
  OK(gpuopt_buffer_copy_to_host(by, stream, 0, out, sizeof out));
  fn = "gpuopt_stream_synchronize";
  OK(gpuopt_stream_synchronize(stream));
  for (i = 0, bad = 0; i < N; ++i) {
    if (out[i] != hy[i] + 4.0f * hx[i]) ++bad;
  }
  CHECK(bad == 0);

  /* f64 through a re-captured graph that updates the executable one. */
  for (i = 0; i < N; ++i) {
    dx[i] = 0.5 * (double)(i % 13) - 3.0;
    dy[i] = (double)(i % 7);
  }
  fn = "gpuopt_buffer_copy_from_host";
  OK(gpuopt_buffer_copy_from_host(bx, stream, 0, dx, sizeof dx));
  OK(gpuopt_buffer_copy_from_host(by, stream, 0, dy, sizeof dy));
  fn = "gpuopt_stream_synchronize";
  OK(gpuopt_stream_synchronize(stream));
  fn = "gpuopt_graph_begin";
  OK(gpuopt_graph_begin(ctx, stream));
  fn = "gpuopt_axpy";
  OK(gpuopt_axpy(ctx, stream, GPUOPT_DTYPE_F64, N, -1.5, x, 1, y, 1));
  fn = "gpuopt_graph_end_update";
  flag = -1;
  OK(gpuopt_graph_end_update(stream, graph, &flag));
  CHECK(flag == 0 || flag == 1);
  fn = "gpuopt_graph_launch";
  OK(gpuopt_graph_launch(graph, stream));
  fn = "gpuopt_buffer_copy_to_host";
  OK(gpuopt_buffer_copy_to_host(by, stream, 0, dout, sizeof dout));
  fn = "gpuopt_stream_synchronize";
  OK(gpuopt_stream_synchronize(stream));
  for (i = 0, bad = 0; i < N; ++i) {
    if (fabs(dout[i] - (dy[i] - 1.5 * dx[i])) > 1e-12) ++bad;
  }
  CHECK(bad == 0);

  check_gemm(ctx, stream, bx, by);
  check_reduce(ctx, stream, bx, by);

  /* Teardown: a context with live objects refuses to go, then goes. */
  fn = "gpuopt_context_destroy";
  EXPECT(gpuopt_context_destroy(ctx), GPUOPT_ERROR_INVALID_ARGUMENT);
  fn = "gpuopt_graph_destroy";
  OK(gpuopt_graph_destroy(graph));
  fn = "gpuopt_graph_launch";
  EXPECT(gpuopt_graph_launch(graph, stream), GPUOPT_ERROR_INVALID_HANDLE);
  fn = "gpuopt_buffer_destroy";
  OK(gpuopt_buffer_destroy(bw));
  OK(gpuopt_buffer_destroy(bx));
  fn = "gpuopt_buffer_destroy_async";
  OK(gpuopt_buffer_destroy_async(by, stream));
  fn = "gpuopt_stream_destroy";
  OK(gpuopt_stream_destroy(wrapped));
  OK(gpuopt_stream_destroy(stream));
  fn = "gpuopt_context_destroy";
  OK(gpuopt_context_destroy(ctx));
  fn = "gpuopt_context_device_info";
  EXPECT(gpuopt_context_device_info(ctx, &info), GPUOPT_ERROR_INVALID_HANDLE);
}

/* Modes (ctest runs the first two, so that the host checks are reported as passed, not as
 * skipped next to the GPU tests):
 *   --host    version, names, messages, error paths, logging, the no-device answers: 0 or 1;
 *   --device  the device checks: 0 or 1 with a device, 77 (skipped) without one;
 *   none      both (the install check): 0, 1, or 77 without a device. */
int main(int argc, char** argv) {
  int host = 1, device = 1, have_device;

  if (argc > 1 && strcmp(argv[1], "--host") == 0) {
    device = 0;
  } else if (argc > 1 && strcmp(argv[1], "--device") == 0) {
    host = 0;
  } else if (argc > 1) {
    fprintf(stderr, "usage: %s [--host | --device]\n", argv[0]);
    return 2;
  }
  printf("gpuopt %s (header %d.%d.%d)\n", gpuopt_version_string(), GPUOPT_VERSION_MAJOR,
         GPUOPT_VERSION_MINOR, GPUOPT_VERSION_PATCH);
  if (host) {
    check_version_and_names();
    check_last_error_message();
    check_null_handles();
    check_logging();
  }
  have_device = check_devices();
  if (device && have_device) check_with_device();

  printf("%d checks, %d failed\n", g_checks, g_failures);
  if (g_failures != 0) return 1;
  if (device && !have_device) {
    printf("SKIP: no CUDA device; %s checked\n",
           host ? "the no-device path and every error path were" : "the no-device path was");
    return 77;
  }
  return 0;
}
