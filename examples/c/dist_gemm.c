/* One process per GPU: a distributed f64 GEMM over all ranks (a 1 x P grid), started by
 * mpirun, srun, torchrun or by hand.
 *
 * The rank and size come from the launcher's variables: RANK / WORLD_SIZE / LOCAL_RANK
 * (torchrun), OMPI_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK (Open MPI), PMI_RANK / PMI_SIZE (MPICH),
 * SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID (srun). Rank 0 makes the rendezvous id; it reaches
 * the others through GPUOPT_COMM_ID (hex text, when the launcher can pass one) or through the
 * file named by GPUOPT_COMM_ID_FILE on a shared file system. By hand, two GPUs of one machine:
 *
 *   export NCCL_NVLS_ENABLE=0 GPUOPT_COMM_ID_FILE=/tmp/gpuopt-id
 *   RANK=0 WORLD_SIZE=2 ./example_dist_gemm & RANK=1 WORLD_SIZE=2 ./example_dist_gemm; wait
 *
 * It solves C = A B for 2048 x 2048 matrices (blocks of 256, A and B from a fixed generator)
 * scattered from rank 0's host memory, gathers C back to rank 0 and prints the FNV-1a hash of its
 * bytes (the same as the one-process run of tests/gpu/multi/dist_test.cpp) and a check of a few
 * elements against the host. With --bad-rank R it first shows the checked mode: rank R passes a
 * bad count to an all-reduce and every rank answers an error instead of waiting for it.
 * Exits 77 without 1 <= rank < size, NCCL or a GPU for this rank. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuopt.h"

#define N 2048
#define BLOCK 256

static void die(const char* what, gpuopt_status_t st) {
  char msg[1024];
  gpuopt_last_error_message(msg, sizeof msg, NULL);
  fprintf(stderr, "dist_gemm: %s: %s: %s\n", what, gpuopt_status_name(st), msg);
  exit(st == GPUOPT_ERROR_UNSUPPORTED || st == GPUOPT_ERROR_NO_DEVICE ? 77 : 1);
}
#define CHECK(call)                             \
  do {                                          \
    gpuopt_status_t st_ = (call);               \
    if (st_ != GPUOPT_SUCCESS) die(#call, st_); \
  } while (0)

/* The first of the variables that is set, as an integer; fallback when none is. */
static int env_int(const char* const* names, int fallback) {
  for (; *names; ++names) {
    const char* v = getenv(*names);
    if (v && *v) return atoi(v);
  }
  return fallback;
}

static double gen(uint64_t i) {
  return (double)((i * 2654435761ull) & 0xffffffffull) / 4294967296.0 - 0.5;
}

/* Rank 0 publishes the id, the others wait for it. */
static void rendezvous(int rank, gpuopt_comm_id_t* id) {
  char hex[GPUOPT_COMM_ID_HEX_SIZE];
  const char* env = getenv("GPUOPT_COMM_ID");
  const char* file = getenv("GPUOPT_COMM_ID_FILE");
  if (env && *env) {
    CHECK(gpuopt_comm_id_from_hex(env, id));
    return;
  }
  if (!file || !*file) {
    fprintf(stderr, "dist_gemm: set GPUOPT_COMM_ID (hex) or GPUOPT_COMM_ID_FILE\n");
    exit(2);
  }
  if (rank == 0) {
    char tmp[4096];
    FILE* f;
    CHECK(gpuopt_comm_id_create(id));
    CHECK(gpuopt_comm_id_to_hex(id, hex, sizeof hex));
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    f = fopen(tmp, "w");
    if (!f || fputs(hex, f) < 0 || fclose(f) != 0 || rename(tmp, file) != 0) {
      perror("dist_gemm: writing the id file");
      exit(1);
    }
    return;
  }
  for (int waited = 0; waited < 6000; ++waited) { /* up to 60 s */
    FILE* f = fopen(file, "r");
    if (f) {
      size_t got = fread(hex, 1, sizeof hex - 1, f);
      fclose(f);
      hex[got] = '\0';
      if (got == sizeof hex - 1) {
        CHECK(gpuopt_comm_id_from_hex(hex, id));
        return;
      }
    }
    {
      const struct timespec tick = {0, 10000000};
      nanosleep(&tick, NULL);
    }
  }
  fprintf(stderr, "dist_gemm: rank %d: no id in %s after 60 s\n", rank, file);
  exit(1);
}

int main(int argc, char** argv) {
  static const char* const rank_vars[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                          "SLURM_PROCID", NULL};
  static const char* const size_vars[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                          "SLURM_NTASKS", NULL};
  static const char* const local_vars[] = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
                                           "MPI_LOCALRANKID", "SLURM_LOCALID", NULL};
  const int rank = env_int(rank_vars, 0), size = env_int(size_vars, 1);
  int bad_rank = -1, devices = 0;
  for (int i = 1; i + 1 < argc; ++i)
    if (strcmp(argv[i], "--bad-rank") == 0) bad_rank = atoi(argv[i + 1]);
  if (size < 1 || rank < 0 || rank >= size) {
    fprintf(stderr, "dist_gemm: rank %d of %d: start it through a launcher (see the top)\n", rank,
            size);
    return 2;
  }
  setenv("NCCL_NVLS_ENABLE", "0", 0); /* NVLink multicast off unless the caller chose */
  if (gpuopt_device_count(&devices) != GPUOPT_SUCCESS || devices < 1) {
    fprintf(stderr, "dist_gemm: no CUDA device\n");
    return 77;
  }
  const int device = env_int(local_vars, rank) % devices;

  gpuopt_context_t ctx;
  gpuopt_stream_t stream;
  gpuopt_comm_t comm;
  gpuopt_grid_t grid;
  gpuopt_comm_id_t id;
  CHECK(gpuopt_context_create(device, &ctx));
  CHECK(gpuopt_stream_create(ctx, &stream));
  rendezvous(rank, &id);
  CHECK(gpuopt_comm_create(ctx, &id, size, rank, &comm));

  if (bad_rank >= 0) { /* the checked mode: a bad call on one rank fails on all */
    gpuopt_buffer_t b;
    void* p;
    gpuopt_status_t st;
    char msg[512];
    CHECK(gpuopt_buffer_create(ctx, 4096, GPUOPT_MEMORY_DEVICE, &b));
    CHECK(gpuopt_buffer_device_pointer(b, &p));
    CHECK(gpuopt_comm_set_checked(comm, 1));
    st = gpuopt_allreduce(comm, stream, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, p, p,
                          rank == bad_rank ? -1 : 16);
    gpuopt_last_error_message(msg, sizeof msg, NULL);
    printf("checked: rank %d answered %s (%s)\n", rank, gpuopt_status_name(st), msg);
    CHECK(gpuopt_comm_set_checked(comm, 0));
    CHECK(gpuopt_buffer_destroy(b));
    if (st != GPUOPT_ERROR_INVALID_ARGUMENT) return 1;
  }

  CHECK(gpuopt_grid_create(comm, 1, size, &grid));
  {
    gpuopt_dist_desc_t da, db, dc;
    gpuopt_gemm_dist_desc_t g;
    int64_t lr, lc_a, lc_b, lc_c;
    size_t ws_bytes = 0;
    gpuopt_buffer_t bA, bB, bC, bW;
    void *A, *B, *C, *W;
    double* hA = NULL;
    double* hB = NULL;
    double* hC = NULL;
    memset(&da, 0, sizeof da);
    da.struct_size = sizeof da;
    da.dtype = GPUOPT_DTYPE_F64;
    da.rows = da.cols = N;
    da.row_block = da.col_block = BLOCK;
    da.grid_rows = 1;
    da.grid_cols = size;
    CHECK(gpuopt_dist_local_shape(&da, 0, rank, &lr, &lc_a));
    da.ld = lr;
    db = da;
    dc = da;
    lc_b = lc_c = lc_a;
    CHECK(
        gpuopt_buffer_create(ctx, (size_t)(lr * (lc_a ? lc_a : 1)) * 8, GPUOPT_MEMORY_DEVICE, &bA));
    CHECK(
        gpuopt_buffer_create(ctx, (size_t)(lr * (lc_b ? lc_b : 1)) * 8, GPUOPT_MEMORY_DEVICE, &bB));
    CHECK(
        gpuopt_buffer_create(ctx, (size_t)(lr * (lc_c ? lc_c : 1)) * 8, GPUOPT_MEMORY_DEVICE, &bC));
    CHECK(gpuopt_buffer_device_pointer(bA, &A));
    CHECK(gpuopt_buffer_device_pointer(bB, &B));
    CHECK(gpuopt_buffer_device_pointer(bC, &C));
    if (rank == 0) {
      hA = malloc(sizeof(double) * N * N);
      hB = malloc(sizeof(double) * N * N);
      hC = malloc(sizeof(double) * N * N);
      if (!hA || !hB || !hC) return 1;
      for (uint64_t i = 0; i < (uint64_t)N * N; ++i) {
        hA[i] = gen(i);
        hB[i] = gen((uint64_t)N * N + i);
      }
    }
    CHECK(gpuopt_dist_scatter(grid, stream, &da, 0, hA, N, A));
    CHECK(gpuopt_dist_scatter(grid, stream, &db, 0, hB, N, B));
    memset(&g, 0, sizeof g);
    g.struct_size = sizeof g;
    g.m = g.n = g.k = N;
    g.alpha = 1.0;
    g.beta = 0.0;
    g.a_type = g.c_type = GPUOPT_DTYPE_F64;
    g.mb = g.nb = g.kb = BLOCK;
    g.lda = g.ldb = g.ldc = lr;
    CHECK(gpuopt_gemm_dist_workspace_size(grid, &g, &ws_bytes));
    CHECK(gpuopt_buffer_create(ctx, ws_bytes ? ws_bytes : 256, GPUOPT_MEMORY_DEVICE, &bW));
    CHECK(gpuopt_buffer_device_pointer(bW, &W));
    CHECK(gpuopt_gemm_dist(grid, stream, &g, A, B, C, W, ws_bytes));
    CHECK(gpuopt_dist_gather(grid, stream, &dc, 0, C, hC, N));
    CHECK(gpuopt_stream_synchronize(stream));
    if (rank == 0) {
      uint64_t hash = 1469598103934665603ull;
      const unsigned char* bytes = (const unsigned char*)hC;
      double worst = 0.0;
      for (size_t i = 0; i < sizeof(double) * N * N; ++i)
        hash = (hash ^ bytes[i]) * 1099511628211ull;
      for (int s = 0; s < 16; ++s) { /* a few elements against the host */
        const int i = (s * 977) % N, j = (s * 1543) % N;
        double ref = 0.0, err;
        for (int k = 0; k < N; ++k) ref += hA[i + (size_t)k * N] * hB[k + (size_t)j * N];
        err = fabs(hC[i + (size_t)j * N] - ref) / (fabs(ref) + 1e-300);
        worst = err > worst ? err : worst;
      }
      printf(
          "dist_gemm: %d ranks, C = A B of %d x %d, hash %016llx, worst sampled relative error "
          "%.2e\n",
          size, N, N, (unsigned long long)hash, worst);
      for (int i = 1; i + 1 < argc; ++i)
        if (strcmp(argv[i], "--hash-file") == 0) {
          FILE* f = fopen(argv[i + 1], "w");
          if (f) {
            fprintf(f, "%016llx\n", (unsigned long long)hash);
            fclose(f);
          }
        }
      if (worst > 1e-12) return 1;
    }
    free(hA);
    free(hB);
    free(hC);
    CHECK(gpuopt_buffer_destroy(bW));
    CHECK(gpuopt_buffer_destroy(bA));
    CHECK(gpuopt_buffer_destroy(bB));
    CHECK(gpuopt_buffer_destroy(bC));
  }
  CHECK(gpuopt_grid_destroy(grid));
  CHECK(gpuopt_comm_destroy(comm));
  CHECK(gpuopt_stream_destroy(stream));
  CHECK(gpuopt_context_destroy(ctx));
  return 0;
}
