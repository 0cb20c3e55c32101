// Stress: 16 threads, each with its own stream on ONE shared context, run thousands of mixed
// operations (axpy, small GEMMs, reductions, captured graphs), every result checked exactly
// against a host reference (small integers: every op is exact in its arithmetic); then the same
// with one context per thread. Each test prints "[  STRESS  ] ... ops=N mismatches=M" for
// docs/reliability.md.
//
// Adding an op: write a StressOp (setup sizes and host data, enqueue on the stream, check the
// result) and add one line to kOps.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gpu_fixture.hpp"

namespace {

// Device scratch owned by one thread: three gpuopt buffers of kScratchBytes, reused by every op.
constexpr std::size_t kScratchBytes = std::size_t{1} << 22;

struct Scratch {
  void* d[3] = {};
  gpuopt_buffer_t buf[3] = {};  // gpuopt device buffers behind d
  cudaStream_t stream = nullptr;
  gpuopt_context_t ctx = nullptr;
  gpuopt_stream_t s = nullptr;
};

// One operation: returns "" when it ran and matched, else what went wrong.
using StressOp = std::string (*)(Scratch&, gput::Rng&);

template <class T>
std::vector<T> ints(gput::Rng& rng, std::size_t n, int lo, int hi) {
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(rng.integer(lo, hi));
  return v;
}

std::string status_text(const char* what) {
  return std::string(what) + ": " + gput::last_message();
}

template <class T>
std::string upload(Scratch& s, int slot, const std::vector<T>& v) {
  if (cudaMemcpyAsync(s.d[slot], v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice,
                      s.stream) != cudaSuccess)
    return "cudaMemcpyAsync to the device failed";
  return "";
}

template <class T>
std::string download(Scratch& s, int slot, std::vector<T>& v) {
  if (cudaMemcpyAsync(v.data(), s.d[slot], v.size() * sizeof(T), cudaMemcpyDeviceToHost,
                      s.stream) != cudaSuccess)
    return "cudaMemcpyAsync to the host failed";
  if (gpuopt_stream_synchronize(s.s) != GPUOPT_SUCCESS) return status_text("synchronize");
  return "";
}

// Exact comparison by value (0 == -0: a GEMM with beta = 0 never reads C, so the sign of a zero
// sum is not specified).
template <class T>
std::string compare(const char* op, const std::vector<T>& got, const std::vector<T>& want) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!(got[i] == want[i]))
      return std::string(op) + ": mismatch at " + std::to_string(i) + ": got " +
             std::to_string(got[i]) + ", want " + std::to_string(want[i]);
  return "";
}

// y = alpha x + y, f32, n up to 100k (tails of every size).
std::string op_axpy(Scratch& s, gput::Rng& rng) {
  const std::size_t n = static_cast<std::size_t>(rng.integer(1, 100000));
  const double alpha = rng.dyadic_alpha();
  auto x = ints<float>(rng, n, -64, 64), y = ints<float>(rng, n, -64, 64);
  std::string e = upload(s, 0, x) + upload(s, 1, y);
  if (!e.empty()) return e;
  if (gpuopt_axpy(s.ctx, s.s, GPUOPT_DTYPE_F32, static_cast<int64_t>(n), alpha, s.d[0], 1, s.d[1],
                  1) != GPUOPT_SUCCESS)
    return status_text("gpuopt_axpy");
  std::vector<float> got(n);
  if (!(e = download(s, 1, got)).empty()) return e;
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(alpha * x[i] + y[i]);
  return compare("axpy", got, y);
}

// C = A B + beta C, f32 (exact FMA), m, n, k up to 64, column-major, random transposes.
std::string op_gemm(Scratch& s, gput::Rng& rng) {
  const int64_t m = rng.integer(1, 64), n = rng.integer(1, 64), k = rng.integer(1, 64);
  const bool ta = rng.integer(0, 1) != 0, tb = rng.integer(0, 1) != 0;
  const double beta = rng.integer(0, 1) ? 1.0 : 0.0;
  auto A = ints<float>(rng, static_cast<std::size_t>(m * k), -3, 3);
  auto B = ints<float>(rng, static_cast<std::size_t>(k * n), -3, 3);
  auto C = ints<float>(rng, static_cast<std::size_t>(m * n), -3, 3);
  std::string e = upload(s, 0, A) + upload(s, 1, B) + upload(s, 2, C);
  if (!e.empty()) return e;
  gpuopt_gemm_desc_t d{};
  d.struct_size = sizeof d;
  d.trans_a = ta ? GPUOPT_TRANS_T : GPUOPT_TRANS_N;
  d.trans_b = tb ? GPUOPT_TRANS_T : GPUOPT_TRANS_N;
  d.m = m;
  d.n = n;
  d.k = k;
  d.alpha = 1.0;
  d.beta = beta;
  d.a_type = d.c_type = GPUOPT_DTYPE_F32;
  d.compute = GPUOPT_COMPUTE_F32;
  d.lda = ta ? k : m;
  d.ldb = tb ? n : k;
  d.ldc = m;
  if (gpuopt_gemm(s.ctx, s.s, &d, s.d[0], s.d[1], s.d[2]) != GPUOPT_SUCCESS)
    return status_text("gpuopt_gemm");
  std::vector<float> got(C.size());
  if (!(e = download(s, 2, got)).empty()) return e;
  std::vector<float> want(C.size());
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double acc = beta * C[static_cast<std::size_t>(i + j * m)];
      for (int64_t p = 0; p < k; ++p) {
        const double a =
            ta ? A[static_cast<std::size_t>(p + i * k)] : A[static_cast<std::size_t>(i + p * m)];
        const double b =
            tb ? B[static_cast<std::size_t>(j + p * n)] : B[static_cast<std::size_t>(p + j * k)];
        acc += a * b;
      }
      want[static_cast<std::size_t>(i + j * m)] = static_cast<float>(acc);
    }
  return compare("gemm", got, want);
}

// Sum of i32 (i64 result), one or several fixed segments.
std::string op_reduce(Scratch& s, gput::Rng& rng) {
  const int64_t segs = rng.integer(1, 8);
  const int64_t n = rng.integer(1, 100000);
  auto x = ints<int32_t>(rng, static_cast<std::size_t>(segs * n), -1000, 1000);
  std::string e = upload(s, 0, x);
  if (!e.empty()) return e;
  gpuopt_reduce_desc_t d{};
  d.struct_size = sizeof d;
  d.op = GPUOPT_REDUCE_SUM;
  d.in_type = GPUOPT_DTYPE_I32;
  d.n = n;
  d.num_segments = segs;
  d.segment_stride = n;
  if (gpuopt_reduce(s.ctx, s.s, &d, s.d[0], s.d[1]) != GPUOPT_SUCCESS)
    return status_text("gpuopt_reduce");
  std::vector<int64_t> got(static_cast<std::size_t>(segs)), want(got.size(), 0);
  if (!(e = download(s, 1, got)).empty()) return e;
  for (int64_t g = 0; g < segs; ++g)
    for (int64_t i = 0; i < n; ++i)
      want[static_cast<std::size_t>(g)] += x[static_cast<std::size_t>(g * n + i)];
  return compare("reduce", got, want);
}

// A graph captured from the thread's stream (two axpys), launched twice.
std::string op_graph(Scratch& s, gput::Rng& rng) {
  const std::size_t n = static_cast<std::size_t>(rng.integer(1, 50000));
  const double alpha = rng.dyadic_alpha();
  auto x = ints<float>(rng, n, -16, 16), y = ints<float>(rng, n, -16, 16);
  std::string e = upload(s, 0, x) + upload(s, 1, y);
  if (!e.empty()) return e;
  if (gpuopt_stream_synchronize(s.s) != GPUOPT_SUCCESS) return status_text("synchronize");
  if (gpuopt_graph_begin(s.ctx, s.s) != GPUOPT_SUCCESS) return status_text("gpuopt_graph_begin");
  gpuopt_status_t st = gpuopt_axpy(s.ctx, s.s, GPUOPT_DTYPE_F32, static_cast<int64_t>(n), alpha,
                                   s.d[0], 1, s.d[1], 1);
  if (st == GPUOPT_SUCCESS)
    st = gpuopt_axpy(s.ctx, s.s, GPUOPT_DTYPE_F32, static_cast<int64_t>(n), alpha, s.d[0], 1,
                     s.d[1], 1);
  const std::string axpy_error = st == GPUOPT_SUCCESS ? "" : status_text("gpuopt_axpy in capture");
  gpuopt_graph_t g = nullptr;
  if (gpuopt_graph_end(s.s, &g) != GPUOPT_SUCCESS) return status_text("gpuopt_graph_end");
  if (!axpy_error.empty()) {
    gpuopt_graph_destroy(g);
    return axpy_error;
  }
  for (int r = 0; r < 2 && e.empty(); ++r)
    if (gpuopt_graph_launch(g, s.s) != GPUOPT_SUCCESS) e = status_text("gpuopt_graph_launch");
  std::vector<float> got(n);
  if (e.empty()) e = download(s, 1, got);
  if (gpuopt_graph_destroy(g) != GPUOPT_SUCCESS && e.empty())
    e = status_text("gpuopt_graph_destroy");
  if (!e.empty()) return e;
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(4 * alpha * x[i] + y[i]);
  return compare("graph(axpy x4)", got, y);
}

// Stable ascending sort of fixed segments of i32 keys with 4-byte values (the key's index), the
// workspace in the third scratch array.
std::string op_sort(Scratch& s, gput::Rng& rng) {
  const int64_t seg = rng.integer(1, 1024), segs = rng.integer(1, 16);
  const std::size_t n = static_cast<std::size_t>(seg * segs);
  auto keys = ints<int32_t>(rng, n, -20, 20);  // many duplicates: stability shows
  std::vector<int32_t> vals(n);
  for (std::size_t i = 0; i < n; ++i) vals[i] = static_cast<int32_t>(i);
  gpuopt_segmented_sort_desc_t d{};
  d.struct_size = sizeof d;
  d.key_type = GPUOPT_DTYPE_I32;
  d.value_bytes = 4;
  d.order = GPUOPT_SORT_ASCENDING;
  d.num_items = static_cast<int64_t>(n);
  d.num_segments = segs;
  d.segment_size = seg;
  size_t ws = 0;
  if (gpuopt_segmented_sort_workspace_size(s.ctx, &d, &ws) != GPUOPT_SUCCESS)
    return status_text("gpuopt_segmented_sort_workspace_size");
  if (ws > kScratchBytes) return "sort workspace " + std::to_string(ws) + " exceeds the scratch";
  // Keys in d[0], values in the upper half of d[1] (n <= 16384 values), outputs after them.
  char* base = static_cast<char*>(s.d[1]);
  const std::size_t half = kScratchBytes / 2;
  std::string e = upload(s, 0, keys);
  if (!e.empty()) return e;
  if (cudaMemcpyAsync(base + half, vals.data(), n * 4, cudaMemcpyHostToDevice, s.stream) !=
      cudaSuccess)
    return "cudaMemcpyAsync to the device failed";
  void* keys_out = static_cast<char*>(s.d[0]) + half;
  if (gpuopt_segmented_sort(s.ctx, s.s, &d, s.d[0], keys_out, base + half, base, s.d[2], ws) !=
      GPUOPT_SUCCESS)
    return status_text("gpuopt_segmented_sort");
  std::vector<int32_t> got_k(n), got_v(n);
  if (cudaMemcpyAsync(got_k.data(), keys_out, n * 4, cudaMemcpyDeviceToHost, s.stream) !=
      cudaSuccess)
    return "cudaMemcpyAsync to the host failed";
  if (!(e = download(s, 1, got_v)).empty()) return e;
  std::vector<int32_t> want_v(vals);
  for (int64_t g = 0; g < segs; ++g)
    std::stable_sort(want_v.begin() + g * seg, want_v.begin() + (g + 1) * seg,
                     [&](int32_t a, int32_t b) { return keys[a] < keys[b]; });
  std::vector<int32_t> want_k(n);
  for (std::size_t i = 0; i < n; ++i) want_k[i] = keys[static_cast<std::size_t>(want_v[i])];
  e = compare("sort keys", got_k, want_k);
  return e.empty() ? compare("sort values", got_v, want_v) : e;
}

// B = A^T, f32, rows and cols up to 300, leading dimensions with padding.
std::string op_transpose(Scratch& s, gput::Rng& rng) {
  const int64_t rows = rng.integer(1, 300), cols = rng.integer(1, 300);
  const int64_t lda = rows + rng.integer(0, 3), ldb = cols + rng.integer(0, 3);
  auto A = ints<float>(rng, static_cast<std::size_t>(lda * cols), -1000, 1000);
  std::string e = upload(s, 0, A);
  if (!e.empty()) return e;
  gpuopt_transpose_desc_t d{};
  d.struct_size = sizeof d;
  d.dtype = GPUOPT_DTYPE_F32;
  d.rows = rows;
  d.cols = cols;
  d.lda = lda;
  d.ldb = ldb;
  if (gpuopt_transpose(s.ctx, s.s, &d, s.d[0], s.d[1]) != GPUOPT_SUCCESS)
    return status_text("gpuopt_transpose");
  std::vector<float> got(static_cast<std::size_t>(ldb * rows));
  if (!(e = download(s, 1, got)).empty()) return e;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (got[static_cast<std::size_t>(j + i * ldb)] != A[static_cast<std::size_t>(i + j * lda)])
        return "transpose: mismatch at (" + std::to_string(j) + ", " + std::to_string(i) + ")";
  return "";
}

// 2D star stencil, f32, zero boundary, radius 1-8: integer inputs and dyadic coefficients, so
// the f32 sums are exact and the comparison is exact.
std::string op_stencil(Scratch& s, gput::Rng& rng) {
  const int r = static_cast<int>(rng.integer(1, 8));
  const int64_t nx = rng.integer(1, 200), ny = rng.integer(1, 200);
  auto in = ints<float>(rng, static_cast<std::size_t>(nx * ny), -16, 16);
  std::vector<double> c(static_cast<std::size_t>(1 + 4 * r));
  for (auto& v : c) v = static_cast<double>(rng.integer(-8, 8)) / 8.0;
  std::string e = upload(s, 0, in);
  if (!e.empty()) return e;
  gpuopt_stencil_desc_t d{};
  d.struct_size = sizeof d;
  d.dtype = GPUOPT_DTYPE_F32;
  d.dims = 2;
  d.radius = r;
  d.boundary = GPUOPT_BOUNDARY_ZERO;
  d.nx = nx;
  d.ny = ny;
  d.nz = 1;
  d.in_pitch = d.out_pitch = nx;
  d.in_slice_pitch = d.out_slice_pitch = nx * ny;
  d.coeffs = c.data();
  if (gpuopt_stencil(s.ctx, s.s, &d, s.d[0], s.d[1]) != GPUOPT_SUCCESS)
    return status_text("gpuopt_stencil");
  std::vector<float> got(in.size()), want(in.size());
  if (!(e = download(s, 1, got)).empty()) return e;
  auto at = [&](int64_t x, int64_t y) -> double {
    return x < 0 || y < 0 || x >= nx || y >= ny ? 0.0 : in[static_cast<std::size_t>(x + y * nx)];
  };
  for (int64_t y = 0; y < ny; ++y)
    for (int64_t x = 0; x < nx; ++x) {
      double acc = c[0] * at(x, y);
      for (int o = 1; o <= r; ++o) {
        acc += c[static_cast<std::size_t>(1 + r - o)] * at(x - o, y) +
               c[static_cast<std::size_t>(r + o)] * at(x + o, y) +
               c[static_cast<std::size_t>(1 + 3 * r - o)] * at(x, y - o) +
               c[static_cast<std::size_t>(3 * r + o)] * at(x, y + o);
      }
      want[static_cast<std::size_t>(x + y * nx)] = static_cast<float>(acc);
    }
  return compare("stencil", got, want);
}

struct NamedOp {
  const char* name;
  StressOp run;
};

// One line per op (gdn is left out: its results are checked to a tolerance, not exactly).
const NamedOp kOps[] = {
    {"axpy", op_axpy},       {"gemm", op_gemm},           {"reduce", op_reduce},
    {"graph", op_graph},     {"segmented_sort", op_sort}, {"transpose", op_transpose},
    {"stencil", op_stencil},
};
constexpr int kOpCount = sizeof kOps / sizeof kOps[0];

// All threads set up (streams, scratch) before any runs work; each tears down as soon as it is
// done, while others still capture graphs: its frees (gpuopt_buffer_destroy,
// gpuopt_stream_destroy) go through gpuopt's free gate, which defers them past open captures
// (docs/threading.md; before the gate, the first stress run on the H200 saw 3 of 849 captures
// invalidated by such frees).
class Barrier {
 public:
  explicit Barrier(int n) : n_(n) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mu_);
    const int gen = gen_;
    if (++count_ == n_) {
      count_ = 0;
      ++gen_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return gen != gen_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_, count_ = 0, gen_ = 0;
};

struct Totals {
  std::atomic<long> ops{0};
  std::atomic<long> mismatches{0};
  std::atomic<long> per_op[kOpCount] = {};
};

// Runs `calls` random ops on the thread's own stream of ctx; records the first error.
void worker(gpuopt_context_t ctx, std::uint64_t seed, int calls, Totals& totals, Barrier& phase,
            std::string& error) {
  gput::Rng rng(seed);
  Scratch s;
  s.ctx = ctx;
  if (ctx && gpuopt_stream_create(ctx, &s.s) != GPUOPT_SUCCESS) {
    error = status_text("gpuopt_stream_create");
  } else if (ctx) {
    void* native = nullptr;
    gpuopt_stream_native(s.s, &native);
    s.stream = static_cast<cudaStream_t>(native);
    for (int i = 0; i < 3 && error.empty(); ++i) {
      if (gpuopt_buffer_create(ctx, kScratchBytes, GPUOPT_MEMORY_DEVICE, &s.buf[i]) !=
              GPUOPT_SUCCESS ||
          gpuopt_buffer_device_pointer(s.buf[i], &s.d[i]) != GPUOPT_SUCCESS)
        error = status_text("gpuopt_buffer_create of the scratch");
    }
  }
  phase.arrive_and_wait();  // every thread set up
  for (int i = 0; i < calls && error.empty(); ++i) {
    const int k = static_cast<int>(rng.integer(0, kOpCount - 1));
    const std::string e = kOps[k].run(s, rng);
    totals.ops.fetch_add(1);
    totals.per_op[k].fetch_add(1);
    if (!e.empty()) {
      totals.mismatches.fetch_add(1);
      error = e;
    }
  }
  // No barrier: these frees meet other threads' open captures, and must not invalidate them.
  for (gpuopt_buffer_t b : s.buf)
    if (b && gpuopt_buffer_destroy(b) != GPUOPT_SUCCESS && error.empty())
      error = status_text("gpuopt_buffer_destroy");
  if (s.s && gpuopt_stream_destroy(s.s) != GPUOPT_SUCCESS && error.empty())
    error = status_text("gpuopt_stream_destroy");
}

void report(const char* test, const Totals& t, int threads, double seconds) {
  std::printf("[  STRESS  ] %s: threads=%d ops=%ld mismatches=%ld seconds=%.1f (", test, threads,
              t.ops.load(), t.mismatches.load(), seconds);
  for (int k = 0; k < kOpCount; ++k)
    std::printf("%s%s=%ld", k ? " " : "", kOps[k].name, t.per_op[k].load());
  std::printf(")\n");
}

constexpr int kThreads = 16;
constexpr int kCallsPerThread = 625;  // 10000 operations with one shared context

class Stress : public gput::GpuTest {};

TEST_F(Stress, SixteenThreadsOneSharedContext) {
  Totals totals;
  Barrier phase(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::uint64_t> seeds;
  for (int t = 0; t < kThreads; ++t) seeds.push_back(rng_.split());
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back(worker, ctx_, seeds[t], kCallsPerThread, std::ref(totals), std::ref(phase),
                         std::ref(errors[t]));
  for (auto& th : threads) th.join();
  report("one shared context", totals, kThreads,
         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
  EXPECT_EQ(totals.mismatches.load(), 0);
  EXPECT_EQ(totals.ops.load(), long{kThreads} * kCallsPerThread);
}

TEST_F(Stress, SixteenThreadsOneContextEach) {
  Totals totals;
  Barrier phase(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::uint64_t> seeds;
  for (int t = 0; t < kThreads; ++t) seeds.push_back(rng_.split());
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      gpuopt_context_t c = nullptr;
      if (gpuopt_context_create(0, &c) != GPUOPT_SUCCESS) {
        errors[t] = status_text("gpuopt_context_create");
        c = nullptr;  // the worker still meets the barriers
      }
      worker(c, seeds[t], kCallsPerThread / 2, totals, phase, errors[t]);
      if (!c) return;
      if (gpuopt_context_destroy(c) != GPUOPT_SUCCESS && errors[t].empty())
        errors[t] = status_text("gpuopt_context_destroy");
    });
  for (auto& th : threads) th.join();
  report("one context per thread", totals, kThreads,
         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
  EXPECT_EQ(totals.mismatches.load(), 0);
}

}  // namespace
