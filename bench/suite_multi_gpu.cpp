#include "suite_multi_gpu.hpp"

#include <cuda_runtime_api.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <string>

#include "data.hpp"

#if GPUOPT_BENCH_NCCL
#include <nccl.h>
#endif

extern char** environ;

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

std::string msg() {
  size_t len = 0;
  gpuopt_last_error_message(nullptr, 0, &len);
  std::string s(len + 1, '\0');
  gpuopt_last_error_message(&s[0], s.size(), nullptr);
  s.resize(len);
  return s;
}

void ok(gpuopt_status_t st, const char* what) {
  if (st != GPUOPT_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + gpuopt_status_name(st) + ": " + msg());
}

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Contexts, streams and one communicator over devices 0 .. n-1.
struct World {
  std::vector<gpuopt_context_t> ctx;
  std::vector<gpuopt_stream_t> stream;
  std::vector<gpuopt_comm_t> comm;
  explicit World(int n) : ctx(n), stream(n), comm(n) {
    for (int r = 0; r < n; ++r) {
      ok(gpuopt_context_create(r, &ctx[r]), "gpuopt_context_create");
      ok(gpuopt_stream_create(ctx[r], &stream[r]), "gpuopt_stream_create");
    }
    ok(gpuopt_comm_create_local(ctx.data(), n, comm.data()), "gpuopt_comm_create_local");
  }
  ~World() {
    for (size_t r = 0; r < ctx.size(); ++r) {
      gpuopt_comm_destroy(comm[r]);
      gpuopt_stream_destroy(stream[r]);
      gpuopt_context_destroy(ctx[r]);
    }
  }
  int size() const { return static_cast<int>(ctx.size()); }
  void sync() {
    for (gpuopt_stream_t s : stream) ok(gpuopt_stream_synchronize(s), "gpuopt_stream_synchronize");
  }
  // body(rank) on a thread per rank; rethrows the first failure.
  void each(const std::function<void(int)>& body) {
    std::vector<std::future<void>> f;
    for (int r = 0; r < size(); ++r) f.push_back(std::async(std::launch::async, body, r));
    for (auto& x : f) x.get();
  }
};

int gpu_count(const Options& opt) {
  int n = 0;
  gpuopt_device_count(&n);
  return opt.gpus > 0 && opt.gpus < n ? opt.gpus : n;
}

// ---- allreduce -------------------------------------------------------------------------------

// Seconds per call of `call` (issued to every rank, then all synchronized): enough calls to
// last 20 ms, after warm-up.
double time_calls(World& w, const std::function<void()>& call, int warmup) {
  for (int i = 0; i < warmup; ++i) call();
  w.sync();
  int iters = 1;
  for (;;) {
    const auto t0 = Clock::now();
    for (int i = 0; i < iters; ++i) call();
    w.sync();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (s >= 0.02 || iters >= 1 << 14) return s / iters;
    iters *= s > 0 ? std::min(16, static_cast<int>(0.03 / s) + 1) : 16;
  }
}

void allreduce_rows(BenchEnv& env, int P, std::vector<Row>* rows) {
  World w(P);
  const std::int64_t max_bytes = std::int64_t{1} << 30;
  std::vector<void*> send(P), recv(P);
  for (int r = 0; r < P; ++r) {
    cuda_ok(cudaSetDevice(r), "cudaSetDevice");
    cuda_ok(cudaMalloc(&send[r], max_bytes), "cudaMalloc");
    cuda_ok(cudaMalloc(&recv[r], max_bytes), "cudaMalloc");
    cuda_ok(cudaMemset(send[r], 0x3c, max_bytes), "cudaMemset");  // 0x3c3c3c3c: 0.0115 in f32
  }
#if GPUOPT_BENCH_NCCL
  std::vector<ncclComm_t> nc(P);
  std::vector<int> devs(P);
  std::vector<cudaStream_t> cs(P);
  for (int r = 0; r < P; ++r) {
    devs[r] = r;
    void* s = nullptr;
    gpuopt_stream_native(w.stream[r], &s);
    cs[r] = static_cast<cudaStream_t>(s);
  }
  const bool have_nccl = ncclCommInitAll(nc.data(), P, devs.data()) == ncclSuccess;
#else
  const bool have_nccl = false;
#endif
  for (std::int64_t bytes = 8; bytes <= max_bytes; bytes *= 2) {
    const std::int64_t count = bytes / 4;
    env.progress.start("allreduce f32 " + std::to_string(bytes) + " B, " + std::to_string(P) +
                       " GPUs");
    for (int vendor = 0; vendor < 2; ++vendor) {
      Row row;
      row.op = "allreduce";
      row.dtype = "f32";
      row.shape = "bytes=" + std::to_string(bytes) + " gpus=" + std::to_string(P);
      row.n = count;
      row.variant = vendor ? "nccl" : "gpuopt";
      row.is_vendor = vendor == 1;
      row.memory = "device";
      row.data = "patterned";
      row.roof_applies = false;
      row.bytes = static_cast<double>(bytes) * 2.0 * (P - 1) / P;  // GB/s of the row: busbw
      if (vendor && !have_nccl) {
        row.skipped = true;
        row.error = "NCCL headers or library not found when gpuopt-bench was built";
        rows->push_back(row);
        continue;
      }
      try {
        std::function<void()> call = [&] {
          ok(gpuopt_group_begin(), "gpuopt_group_begin");
          for (int r = 0; r < P; ++r)
            ok(gpuopt_allreduce(w.comm[r], w.stream[r], GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM,
                                send[r], recv[r], count),
               "gpuopt_allreduce");
          ok(gpuopt_group_end(), "gpuopt_group_end");
        };
#if GPUOPT_BENCH_NCCL
        if (vendor)
          call = [&] {
            ncclGroupStart();
            for (int r = 0; r < P; ++r)
              ncclAllReduce(send[r], recv[r], static_cast<size_t>(count), ncclFloat32, ncclSum,
                            nc[r], cs[r]);
            if (ncclGroupEnd() != ncclSuccess) throw std::runtime_error("ncclAllReduce failed");
          };
#endif
        const double s = time_calls(w, call, 3);
        row.ms = s * 1e3;
        row.ms_min = row.ms_max = row.ms;
        const double algbw = bytes / s / 1e9;
        float got = 0, one = 0;
        std::memset(&one, 0x3c, 4);
        cuda_ok(cudaSetDevice(P - 1), "cudaSetDevice");
        cuda_ok(cudaMemcpy(&got, static_cast<char*>(recv[P - 1]) + bytes - 4, 4,
                           cudaMemcpyDeviceToHost),
                "cudaMemcpy");
        row.correct = got == one * P;
        if (!row.correct)
          row.mismatch = "last element " + fmt("%g", got) + ", expected " + fmt("%g", one * P);
        row.note = "latency " + fmt("%.1f", s * 1e6) + " us, algbw " + fmt("%.1f", algbw) +
                   " GB/s, busbw " + fmt("%.1f", algbw * 2.0 * (P - 1) / P) + " GB/s";
      } catch (const std::exception& e) {
        row.error = e.what();
      }
      rows->push_back(row);
    }
    env.progress.finish(rows->back().note);
  }
#if GPUOPT_BENCH_NCCL
  if (have_nccl)
    for (ncclComm_t c : nc) ncclCommDestroy(c);
#endif
  for (int r = 0; r < P; ++r) {
    cudaSetDevice(r);
    cudaFree(send[r]);
    cudaFree(recv[r]);
  }
}

// ---- gemm_dist -------------------------------------------------------------------------------

struct DistRun {
  double seconds = NAN;
  std::string error;
};

// gpuopt_gemm_dist of f64 n x n x n on a pr x pc grid of one rank (this thread or process):
// local matrices filled at random, one warm-up, then `reps` timed calls (wall clock, synchronized
// by `barrier` around them). mb = n / pr, nb = n / pc, kb = 2048.
struct DistRank {
  gpuopt_grid_t grid = nullptr;
  void *A = nullptr, *B = nullptr, *C = nullptr, *W = nullptr;
  gpuopt_gemm_dist_desc_t g{};
  size_t ws = 0;
  int device = 0;
  void setup(gpuopt_comm_t comm, gpuopt_stream_t s, int device_, int pr, int pc, std::int64_t n) {
    device = device_;
    ok(gpuopt_grid_create(comm, pr, pc, &grid), "gpuopt_grid_create");
    int row = 0, col = 0;
    ok(gpuopt_grid_info(grid, nullptr, nullptr, &row, &col), "gpuopt_grid_info");
    gpuopt_dist_desc_t d{};
    d.struct_size = sizeof d;
    d.dtype = GPUOPT_DTYPE_F64;
    d.rows = d.cols = n;
    d.row_block = (n + pr - 1) / pr;
    d.col_block = (n + pc - 1) / pc;
    d.grid_rows = pr;
    d.grid_cols = pc;
    std::int64_t lr = 0, lc = 0, lk_a = 0, lk_b = 0;
    ok(gpuopt_dist_local_shape(&d, row, col, &lr, &lc), "gpuopt_dist_local_shape");
    g.struct_size = sizeof g;
    g.m = g.n = g.k = n;
    g.alpha = 1.0;
    g.beta = 0.0;
    g.a_type = g.c_type = GPUOPT_DTYPE_F64;
    g.mb = d.row_block;
    g.nb = d.col_block;
    g.kb = 2048;
    gpuopt_dist_desc_t dk = d;
    dk.row_block = dk.col_block = g.kb;
    ok(gpuopt_dist_local_shape(&dk, row, col, &lk_b, &lk_a), "gpuopt_dist_local_shape");
    g.lda = g.ldc = lr > 0 ? lr : 1;
    g.ldb = lk_b > 0 ? lk_b : 1;
    ok(gpuopt_gemm_dist_workspace_size(grid, &g, &ws), "gpuopt_gemm_dist_workspace_size");
    cuda_ok(cudaSetDevice(device), "cudaSetDevice");
    void* native = nullptr;
    gpuopt_stream_native(s, &native);
    auto alloc = [&](void** p, std::int64_t rows, std::int64_t cols) {
      const std::int64_t elems = std::max<std::int64_t>(rows * cols, 1);
      cuda_ok(cudaMalloc(p, static_cast<size_t>(elems) * 8), "cudaMalloc");
      fill_device(*p, GPUOPT_DTYPE_F64, elems, DataKind::kRandom, 42,
                  static_cast<std::uint32_t>(device), 0, static_cast<cudaStream_t>(native));
    };
    alloc(&A, lr, lk_a);
    alloc(&B, lk_b, lc);
    alloc(&C, lr, lc);
    cuda_ok(cudaMalloc(&W, ws ? ws : 256), "cudaMalloc");
    ok(gpuopt_stream_synchronize(s), "gpuopt_stream_synchronize");
  }
  void call(gpuopt_stream_t s) {
    ok(gpuopt_gemm_dist(grid, s, &g, A, B, C, W, ws), "gpuopt_gemm_dist");
  }
  ~DistRank() {
    cudaSetDevice(device);
    for (void* p : {A, B, C, W}) cudaFree(p);
    gpuopt_grid_destroy(grid);
  }
};

constexpr int kDistReps = 3;

DistRun time_dist_single(int P, int pr, int pc, std::int64_t n) {
  DistRun out;
  try {
    World w(P);
    std::vector<DistRank> ranks(P);
    w.each([&](int r) {
      ranks[r].setup(w.comm[r], w.stream[r], r, pr, pc, n);
      ranks[r].call(w.stream[r]);  // warm-up
      ok(gpuopt_stream_synchronize(w.stream[r]), "gpuopt_stream_synchronize");
    });
    const auto t0 = Clock::now();
    w.each([&](int r) {
      for (int i = 0; i < kDistReps; ++i) ranks[r].call(w.stream[r]);
      ok(gpuopt_stream_synchronize(w.stream[r]), "gpuopt_stream_synchronize");
    });
    out.seconds = std::chrono::duration<double>(Clock::now() - t0).count() / kDistReps;
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

// The best one-GPU rate: gpuopt_gemm auto and forced to cublas, f64 n^3 on device 0.
void one_gpu_rows(BenchEnv& env, std::int64_t n, std::vector<Row>* rows) {
  void *A = nullptr, *B = nullptr, *C = nullptr;
  const size_t bytes = static_cast<size_t>(n * n) * 8;
  cudaSetDevice(0);
  cuda_ok(cudaMalloc(&A, bytes), "cudaMalloc");
  cuda_ok(cudaMalloc(&B, bytes), "cudaMalloc");
  cuda_ok(cudaMalloc(&C, bytes), "cudaMalloc");
  fill_device(A, GPUOPT_DTYPE_F64, n * n, DataKind::kRandom, 42, 0, 0, env.cu);
  fill_device(B, GPUOPT_DTYPE_F64, n * n, DataKind::kRandom, 43, 0, 0, env.cu);
  gpuopt_gemm_desc_t d{};
  d.struct_size = sizeof d;
  d.m = d.n = d.k = n;
  d.alpha = 1.0;
  d.a_type = d.c_type = GPUOPT_DTYPE_F64;
  d.lda = d.ldb = d.ldc = n;
  for (const char* variant : {"auto", "cublas"}) {
    Row row;
    row.op = "gemm_dist";
    row.dtype = "f64";
    row.shape = "n=" + std::to_string(n) + " gpus=1";
    row.n = row.m = row.k = n;
    row.variant = std::string("one_gpu_") + variant;
    row.memory = "device";
    row.data = "random";
    row.flops = 2.0 * n * n * n;
    row.roof_applies = false;
    env.progress.start("gemm f64 n=" + std::to_string(n) + " one GPU, " + variant);
    try {
      ok(gpuopt_context_set_variant(env.ctx, GPUOPT_OP_GEMM, variant),
         "gpuopt_context_set_variant");
      ok(gpuopt_gemm(env.ctx, env.stream, &d, A, B, C), "gpuopt_gemm");  // warm-up
      ok(gpuopt_stream_synchronize(env.stream), "sync");
      const auto t0 = Clock::now();
      for (int i = 0; i < kDistReps; ++i)
        ok(gpuopt_gemm(env.ctx, env.stream, &d, A, B, C), "gpuopt_gemm");
      ok(gpuopt_stream_synchronize(env.stream), "sync");
      row.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / kDistReps;
      const char* ran = nullptr;
      gpuopt_last_variant(env.ctx, GPUOPT_OP_GEMM, &ran);
      row.ran_variant = ran ? ran : "";
      row.correct = true;
      row.note = "correctness: tests/gpu (gemm)";
    } catch (const std::exception& e) {
      row.error = e.what();
    }
    gpuopt_context_set_variant(env.ctx, GPUOPT_OP_GEMM, "auto");
    env.progress.finish(row.error.empty() ? fmt("%.1f TFLOP/s", row.flops / row.ms / 1e9)
                                          : "ERROR");
    rows->push_back(row);
  }
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
}

Row dist_row(std::int64_t n, int P, int pr, int pc, const char* variant, const DistRun& run) {
  Row row;
  row.op = "gemm_dist";
  row.dtype = "f64";
  row.shape = "n=" + std::to_string(n) + " gpus=" + std::to_string(P) +
              " grid=" + std::to_string(pr) + "x" + std::to_string(pc);
  row.n = row.m = row.k = n;
  row.variant = variant;
  row.memory = "device";
  row.data = "random";
  row.flops = 2.0 * n * n * n;
  row.roof_applies = false;
  row.ms = run.seconds * 1e3;
  row.error = run.error;
  row.correct = run.error.empty();
  row.note = "SUMMA, kb 2048, look-ahead 1; correctness: tests/gpu/multi";
  return row;
}

// The 2-process run: this program re-executed twice as --dist-worker; rank 0's rate.
DistRun time_dist_processes(std::int64_t n) {
  DistRun out;
  gpuopt_comm_id_t id{};
  char hex[GPUOPT_COMM_ID_HEX_SIZE];
  if (gpuopt_comm_id_create(&id) != GPUOPT_SUCCESS ||
      gpuopt_comm_id_to_hex(&id, hex, sizeof hex) != GPUOPT_SUCCESS) {
    out.error = "gpuopt_comm_id_create: " + msg();
    return out;
  }
  const std::string nstr = std::to_string(n);
  int fds[2];
  if (pipe(fds) != 0) {
    out.error = "pipe failed";
    return out;
  }
  std::vector<pid_t> pids;
  for (int r = 0; r < 2; ++r) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (r == 0) posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    const std::string rank = std::to_string(r);
    std::vector<char*> argv = {const_cast<char*>("gpuopt-bench"),
                               const_cast<char*>("--dist-worker"),
                               const_cast<char*>(rank.c_str()),
                               const_cast<char*>("2"),
                               hex,
                               const_cast<char*>(nstr.c_str()),
                               nullptr};
    pid_t pid = 0;
    if (posix_spawn(&pid, "/proc/self/exe", &fa, nullptr, argv.data(), environ) == 0)
      pids.push_back(pid);
    posix_spawn_file_actions_destroy(&fa);
  }
  close(fds[1]);
  std::string text;
  char buf[256];
  for (ssize_t got; (got = read(fds[0], buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<size_t>(got));
  close(fds[0]);
  bool all_ok = pids.size() == 2;
  for (pid_t p : pids) {
    int status = 0;
    waitpid(p, &status, 0);
    all_ok = all_ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  const size_t at = text.find("seconds ");
  if (!all_ok || at == std::string::npos) {
    out.error = "the 2-process run failed: " + text;
    return out;
  }
  out.seconds = std::atof(text.c_str() + at + 8);
  return out;
}

}  // namespace

int dist_worker_main(int argc, char** argv) {
  if (argc != 6) return 2;
  const int rank = std::atoi(argv[2]), nranks = std::atoi(argv[3]);
  const std::int64_t n = std::atoll(argv[5]);
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  try {
    gpuopt_comm_id_t id{};
    ok(gpuopt_comm_id_from_hex(argv[4], &id), "gpuopt_comm_id_from_hex");
    gpuopt_context_t ctx = nullptr;
    gpuopt_stream_t s = nullptr;
    gpuopt_comm_t comm = nullptr;
    ok(gpuopt_context_create(rank, &ctx), "gpuopt_context_create");
    ok(gpuopt_stream_create(ctx, &s), "gpuopt_stream_create");
    ok(gpuopt_comm_create(ctx, &id, nranks, rank, &comm), "gpuopt_comm_create");
    double seconds = 0;
    {
      DistRank dr;
      dr.setup(comm, s, rank, 1, nranks, n);
      dr.call(s);
      ok(gpuopt_stream_synchronize(s), "sync");
      // Line the ranks up: a tiny all-reduce completes only when both got here.
      ok(gpuopt_allreduce(comm, s, GPUOPT_DTYPE_F64, GPUOPT_REDUCE_SUM, dr.W, dr.W, 1),
         "allreduce");
      ok(gpuopt_stream_synchronize(s), "sync");
      const auto t0 = Clock::now();
      for (int i = 0; i < kDistReps; ++i) dr.call(s);
      ok(gpuopt_stream_synchronize(s), "sync");
      seconds = std::chrono::duration<double>(Clock::now() - t0).count() / kDistReps;
    }
    if (rank == 0) std::printf("seconds %.9f\n", seconds);
    std::fflush(stdout);
    gpuopt_comm_destroy(comm);
    gpuopt_stream_destroy(s);
    gpuopt_context_destroy(ctx);
  } catch (const std::exception& e) {
    std::printf("worker %d: %s\n", rank, e.what());
    return 1;
  }
  return 0;
}

void run_multi_gpu_suites(BenchEnv& env, Results* res) {
  const bool ar = env.opt.op == "allreduce" || env.opt.op == "multi_gpu";
  const bool gd = env.opt.op == "gemm_dist" || env.opt.op == "multi_gpu";
  if (!ar && !gd) return;
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  const int P = gpu_count(env.opt);
  int version = 0;
  if (P < 2 || gpuopt_comm_nccl_version(&version) != GPUOPT_SUCCESS) {
    Row row;
    row.op = ar ? "allreduce" : "gemm_dist";
    row.skipped = true;
    row.error = P < 2 ? "needs 2 or more GPUs, this machine has " + std::to_string(P) : msg();
    res->rows.push_back(row);
    return;
  }
  if (ar) allreduce_rows(env, P, &res->rows);
  if (!gd) return;
  const std::int64_t n = 32768;
  one_gpu_rows(env, n, &res->rows);
  const int pr = P == 4 ? 2 : 1, pc = P / pr;
  env.progress.start("gemm_dist f64 n=32768 on " + std::to_string(P) + " GPUs");
  res->rows.push_back(dist_row(n, P, pr, pc, "summa", time_dist_single(P, pr, pc, n)));
  env.progress.finish(res->rows.back().error.empty() ? "done" : "ERROR");
  if (P == 4) {
    env.progress.start("gemm_dist f64 n=65536 on 4 GPUs");
    res->rows.push_back(dist_row(2 * n, 4, 2, 2, "summa", time_dist_single(4, 2, 2, 2 * n)));
    env.progress.finish(res->rows.back().error.empty() ? "done" : "ERROR");
    env.progress.start("gemm_dist f64 n=32768 on 2 GPUs, one process");
    res->rows.push_back(dist_row(n, 2, 1, 2, "summa", time_dist_single(2, 1, 2, n)));
    env.progress.finish(res->rows.back().error.empty() ? "done" : "ERROR");
  }
  env.progress.start("gemm_dist f64 n=32768 on 2 GPUs, 2 processes");
  res->rows.push_back(dist_row(n, 2, 1, 2, "summa_2_processes", time_dist_processes(n)));
  env.progress.finish(res->rows.back().error.empty() ? "done" : "ERROR " + res->rows.back().error);
}

void compute_multi_gpu_bars(Results& r) {
  auto find = [&](const std::string& op, const std::string& shape_prefix,
                  const std::string& variant) -> const Row* {
    for (const Row& row : r.rows)
      if (row.op == op && row.shape.rfind(shape_prefix, 0) == 0 && row.variant == variant &&
          row.error.empty() && std::isfinite(row.ms))
        return &row;
    return nullptr;
  };
  // allreduce 1 GiB: gpuopt busbw / nccl busbw = nccl ms / gpuopt ms.
  for (int P : {2, 4, 8}) {
    const std::string shape = "bytes=1073741824 gpus=" + std::to_string(P);
    const Row* own = find("allreduce", shape, "gpuopt");
    const Row* nc = find("allreduce", shape, "nccl");
    if (!own && !nc) continue;
    Bar b;
    b.name = "allreduce f32 1 GiB, " + std::to_string(P) + " GPUs: busbw / nccl busbw";
    b.min = 0.95;
    b.target = ">= 0.95";
    if (own && nc) {
      b.value = nc->ms / own->ms;
      b.note = own->note + " vs nccl " + nc->note;
    } else {
      b.note = "missing row";
    }
    judge(&b);
    r.bars.push_back(b);
  }
  const Row* a = find("gemm_dist", "n=32768 gpus=1", "one_gpu_auto");
  const Row* c = find("gemm_dist", "n=32768 gpus=1", "one_gpu_cublas");
  const Row* one = a && (!c || a->ms <= c->ms) ? a : c;
  // The ratio of the two rows' TFLOP/s.
  auto ratio_bar = [&](const std::string& name, double min, const Row* num, const Row* den) {
    Bar b;
    b.name = name;
    b.min = min;
    b.target = ">= " + fmt("%.2f", min);
    if (num && den) {
      b.value = (num->flops / num->ms) / (den->flops / den->ms);
      b.note = fmt("%.1f", num->flops / num->ms / 1e9) + " vs " +
               fmt("%.1f", den->flops / den->ms / 1e9) + " TFLOP/s (" + den->variant + ")";
    } else {
      b.note = "missing row";
    }
    judge(&b);
    r.bars.push_back(b);
  };
  for (int P : {2, 4}) {
    const Row* d = find("gemm_dist", "n=32768 gpus=" + std::to_string(P), "summa");
    if (!d) continue;
    ratio_bar("gemm_dist f64 n=32768, " + std::to_string(P) + " GPUs: TFLOP/s / one GPU",
              P == 2 ? 1.85 : 3.5, d, one);
  }
  if (const Row* big = find("gemm_dist", "n=65536 gpus=4", "summa"))
    ratio_bar("gemm_dist f64 n=65536, 4 GPUs: TFLOP/s / one GPU at n=32768", 3.5, big, one);
  const Row* procs = find("gemm_dist", "n=32768 gpus=2", "summa_2_processes");
  const Row* single = find("gemm_dist", "n=32768 gpus=2", "summa");
  if (procs || single)
    ratio_bar("gemm_dist f64 n=32768, 2 processes: TFLOP/s / single process", 0.97, procs, single);
}

}  // namespace bench
