// Per-call latency: kLatencyCalls calls of one small problem issued back to back on one stream,
// timed on the host from an idle stream to the end of the last call (so the figure is the
// larger of the host cost per call and the kernel time), gpuopt and its vendor counterpart
// alternating sample by sample so that clock drift hits both alike. Operands are plain
// cudaMalloc memory, as a framework passes them. Inputs make every result exact in f32, so each
// row is checked against its closed form. gpuopt runs twice per problem: with the context's
// default pointer checks ("gpuopt": every call asks the driver about each operand) and with
// GPUOPT_POINTER_CHECKS_CACHED ("gpuopt cached checks": what a framework integration whose
// allocator keeps memory mapped would set), each with its own bar against the vendor.
#include "suite_latency.hpp"

#include <cublas_v2.h>
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "check.hpp"
#include "launch_probe.hpp"
#include "reduce_data.hpp"

namespace bench {
namespace {

constexpr std::int64_t kAxpyN = 4096;
constexpr std::int64_t kSumN = 4096;
constexpr int kGemmSizes[] = {64, 256};

// cudaMalloc'd floats, set to `value`.
class Floats {
 public:
  Floats(std::int64_t n, float value) : n_(n) {
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(float)));
    set(value);
  }
  ~Floats() { cudaFree(p_); }
  Floats(const Floats&) = delete;
  Floats& operator=(const Floats&) = delete;
  float* get() const { return p_; }
  void set(float value) {
    std::vector<float> h(static_cast<size_t>(n_), value);
    CUDA_CHECK(cudaMemcpy(p_, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  // True when every element equals want.
  bool all_equal(float want) const {
    std::vector<float> h(static_cast<size_t>(n_));
    CUDA_CHECK(cudaMemcpy(h.data(), p_, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (float v : h)
      if (v != want) return false;
    return true;
  }

 private:
  float* p_ = nullptr;
  std::int64_t n_;
};

class Blas {
 public:
  explicit Blas(cudaStream_t s) {
    if (cublasCreate(&h_) != CUBLAS_STATUS_SUCCESS)
      throw BenchError(GPUOPT_ERROR_CUBLAS, "cublasCreate failed");
    cublasSetStream(h_, s);
  }
  ~Blas() { cublasDestroy(h_); }
  Blas(const Blas&) = delete;
  Blas& operator=(const Blas&) = delete;
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

void blas_check(cublasStatus_t st, const char* what) {
  if (st != CUBLAS_STATUS_SUCCESS)
    throw BenchError(GPUOPT_ERROR_CUBLAS, std::string(what) + ": " + cublasGetStatusName(st));
}

// Milliseconds for kLatencyCalls calls of issue() from an idle stream to the last one's end.
double time_batch(cudaStream_t s, const std::function<void()>& issue) {
  CUDA_CHECK(cudaStreamSynchronize(s));
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kLatencyCalls; ++i) issue();
  CUDA_CHECK(cudaStreamSynchronize(s));
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

// One row per side: name, the call, how to check it after `calls` calls from fresh inputs.
struct Side {
  std::string variant;
  bool is_vendor = false;
  std::function<void()> reset;  // fresh inputs
  std::function<void()> issue;  // one call
  std::function<bool(int calls)> check;
  std::function<void()> enter = [] {};  // before its calls: the context's pointer-check mode
};

constexpr const char* kCachedVariant = "gpuopt cached checks";
constexpr const char* kOneAllocationVariant = "gpuopt operands in one allocation";

void set_checks(const BenchEnv& env, gpuopt_pointer_checks_t mode) {
  GPUOPT_CHECK(gpuopt_context_set_pointer_checks(env.ctx, mode));
}

// gpuopt's side in the default mode, and the same calls under cached pointer checks.
std::vector<Side> gpuopt_sides(const BenchEnv& env, const Side& own) {
  Side full = own, cached = own;
  full.enter = [&env] { set_checks(env, GPUOPT_POINTER_CHECKS_FULL); };
  cached.variant = kCachedVariant;
  cached.enter = [&env] { set_checks(env, GPUOPT_POINTER_CHECKS_CACHED); };
  return {full, cached};
}

Row base_row(const std::string& shape) {
  Row r;
  r.op = "latency";
  r.dtype = "f32";
  r.shape = shape;
  r.memory = "device";
  r.data = "exact";
  r.calls = kLatencyCalls;
  r.roof_applies = false;  // launch-bound
  return r;
}

// Checks each side (gpuopt in both pointer-check modes, the extra sides, then the vendor), then
// times them in alternation (warm-up batches first). The context is left in its default mode.
void measure_sides(BenchEnv& env, const std::string& shape, const Side& own, const Side& vendor,
                   std::vector<Row>* rows, const std::vector<Side>& extra = {}) {
  std::vector<Side> sides = gpuopt_sides(env, own);
  for (const Side& e : extra) sides.push_back(e);
  sides.push_back(vendor);
  const std::size_t count = sides.size();
  std::vector<Row> out(count, base_row(shape));
  std::vector<std::vector<double>> samples(count);
  bool all_ok = true;
  for (std::size_t k = 0; k < count; ++k) {
    out[k].variant = sides[k].variant;
    out[k].is_vendor = sides[k].is_vendor;
    env.progress.start("latency " + shape + " " + sides[k].variant);
    if (env.broken()) {
      out[k].error = "not run: the device is in a sticky error state (" + env.broken_reason() + ")";
      all_ok = false;
      continue;
    }
    try {
      sides[k].enter();
      sides[k].reset();
      for (int i = 0; i < 3; ++i) sides[k].issue();
      CUDA_CHECK(cudaStreamSynchronize(env.cu));
      out[k].correct = sides[k].check(3);
      if (!out[k].correct) out[k].mismatch = "result differs from the exact value";
      out[k].bad_elements = out[k].correct ? 0 : 1;
    } catch (const BenchError& e) {
      out[k].error = e.what();
      all_ok = false;
      env.note_error();
    }
    env.progress.finish(out[k].error.empty() ? (out[k].correct ? "checked" : "WRONG") : "ERROR");
  }
  const int repeats = std::max(3, env.timer.repeats / 2);
  const auto timed = [&](std::size_t k) {
    sides[k].enter();
    return time_batch(env.cu, sides[k].issue);
  };
  if (all_ok) {
    try {
      for (std::size_t k = 0; k < count; ++k) timed(k);  // warm-up
      for (int i = 0; i < repeats; ++i)
        for (std::size_t k = 0; k < count; ++k) samples[k].push_back(timed(k));
    } catch (const BenchError& e) {
      for (Row& row : out) row.error = e.what();
      env.note_error();
    }
  }
  try {
    set_checks(env, GPUOPT_POINTER_CHECKS_FULL);
  } catch (const BenchError&) {
    env.note_error();
  }
  for (std::size_t k = 0; k < count; ++k) {
    if (!samples[k].empty()) {
      out[k].ms = median(samples[k]);
      out[k].ms_min = *std::min_element(samples[k].begin(), samples[k].end());
      out[k].ms_max = *std::max_element(samples[k].begin(), samples[k].end());
      out[k].repeats = static_cast<int>(samples[k].size());
      out[k].inner = kLatencyCalls;
      out[k].note = fmt("%.2f", out[k].ms * 1000.0 / kLatencyCalls) + " us per call";
    }
    rows->push_back(out[k]);
  }
}

void axpy_pair(BenchEnv& env, const Blas& blas, std::vector<Row>* rows) {
  Floats x(kAxpyN, 1.0f), y(kAxpyN, 0.0f);
  const float alpha = 0.5f;  // y = 0.5 * calls exactly
  Side own{"gpuopt", false, [&] { y.set(0.0f); },
           [&] {
             GPUOPT_CHECK(gpuopt_axpy(env.ctx, env.stream, GPUOPT_DTYPE_F32, kAxpyN, alpha, x.get(),
                                      1, y.get(), 1));
           },
           [&](int calls) { return y.all_equal(0.5f * calls); }};
  Side vendor{"cublas", true, [&] { y.set(0.0f); },
              [&] {
                blas_check(cublasSaxpy(blas.get(), kAxpyN, &alpha, x.get(), 1, y.get(), 1),
                           "cublasSaxpy");
              },
              [&](int calls) { return y.all_equal(0.5f * calls); }};
  // x and y carved from one allocation, as a framework's caching allocator hands out small
  // tensors from one pool segment: default (full) pointer checks, one buffer-ID read per call.
  Floats pool(2 * kAxpyN, 1.0f), pool_y(kAxpyN, 0.0f);
  float* const px = pool.get();
  float* const py = pool.get() + kAxpyN;
  const auto pool_y_reset = [&] {
    CUDA_CHECK(cudaMemcpy(py, pool_y.get(), kAxpyN * sizeof(float), cudaMemcpyDeviceToDevice));
  };
  Side pooled{
      kOneAllocationVariant, false, pool_y_reset,
      [&] {
        GPUOPT_CHECK(
            gpuopt_axpy(env.ctx, env.stream, GPUOPT_DTYPE_F32, kAxpyN, alpha, px, 1, py, 1));
      },
      [&](int calls) {
        CUDA_CHECK(cudaMemcpy(pool_y.get(), py, kAxpyN * sizeof(float), cudaMemcpyDeviceToDevice));
        const bool ok = pool_y.all_equal(0.5f * calls);
        pool_y.set(0.0f);
        return ok;
      }};
  pooled.enter = [&env] { set_checks(env, GPUOPT_POINTER_CHECKS_FULL); };
  measure_sides(env, "axpy n=4096", own, vendor, rows, {pooled});
}

void gemm_pair(BenchEnv& env, const Blas& blas, int n, std::vector<Row>* rows) {
  Floats a(std::int64_t{n} * n, 1.0f), b(std::int64_t{n} * n, 1.0f), c(std::int64_t{n} * n, 0.0f);
  gpuopt_gemm_desc_t d{};
  d.struct_size = sizeof d;
  d.trans_a = d.trans_b = GPUOPT_TRANS_N;
  d.m = d.n = d.k = n;
  d.alpha = 1.0;
  d.beta = 0.0;
  d.a_type = d.c_type = GPUOPT_DTYPE_F32;
  d.compute = GPUOPT_COMPUTE_DEFAULT;  // exact f32, as cublasSgemm
  d.lda = d.ldb = d.ldc = n;
  d.batch_count = 1;
  const float one = 1.0f, zero = 0.0f;
  const float want = static_cast<float>(n);  // C = A B of ones: k in every element
  Side own{"gpuopt", false, [&] { c.set(0.0f); },
           [&] { GPUOPT_CHECK(gpuopt_gemm(env.ctx, env.stream, &d, a.get(), b.get(), c.get())); },
           [&](int) { return c.all_equal(want); }};
  Side vendor{"cublas", true, [&] { c.set(0.0f); },
              [&] {
                blas_check(cublasSgemm(blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.get(),
                                       n, b.get(), n, &zero, c.get(), n),
                           "cublasSgemm");
              },
              [&](int) { return c.all_equal(want); }};
  const std::string s = std::to_string(n);
  measure_sides(env, "gemm " + s + "^3", own, vendor, rows);
}

void sum_pair(BenchEnv& env, std::vector<Row>* rows) {
  Floats in(kSumN, 1.0f), out(1, 0.0f);
  const std::size_t temp_bytes = cub_sum_f32_temp_bytes(kSumN);
  void* temp = nullptr;
  CUDA_CHECK(cudaMalloc(&temp, temp_bytes ? temp_bytes : 1));
  struct FreeTemp {
    void* p;
    ~FreeTemp() { cudaFree(p); }
  } free_temp{temp};
  gpuopt_reduce_desc_t d{};
  d.struct_size = sizeof d;
  d.op = GPUOPT_REDUCE_SUM;
  d.in_type = GPUOPT_DTYPE_F32;
  d.n = kSumN;
  const float want = static_cast<float>(kSumN);
  Side own{"gpuopt", false, [&] { out.set(0.0f); },
           [&] { GPUOPT_CHECK(gpuopt_reduce(env.ctx, env.stream, &d, in.get(), out.get())); },
           [&](int) { return out.all_equal(want); }};
  Side vendor{"cub", true, [&] { out.set(0.0f); },
              [&] { cub_sum_f32(temp, temp_bytes, in.get(), out.get(), kSumN, env.cu); },
              [&](int) { return out.all_equal(want); }};
  measure_sides(env, "sum n=4096", own, vendor, rows);
}

// r's timing fields from a warm-up batch and then the suite's repeats of batch() (ms per batch
// of kLatencyCalls).
void time_row(const BenchEnv& env, const std::function<double()>& batch, Row* r) {
  batch();  // warm-up
  std::vector<double> samples;
  const int repeats = std::max(3, env.timer.repeats / 2);
  for (int i = 0; i < repeats; ++i) samples.push_back(batch());
  r->ms = median(samples);
  r->ms_min = *std::min_element(samples.begin(), samples.end());
  r->ms_max = *std::max_element(samples.begin(), samples.end());
  r->repeats = repeats;
  r->inner = kLatencyCalls;
}

// Wrap + destroy of a caller's cudaStream_t, per pair; then one op on a wrapped stream must
// still run correctly.
void wrap_row(BenchEnv& env, std::vector<Row>* rows) {
  Row r = base_row("stream wrap");
  r.variant = "gpuopt";
  env.progress.start("latency stream wrap + destroy");
  cudaStream_t cs = nullptr;
  try {
    CUDA_CHECK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    auto pair = [&] {
      gpuopt_stream_t s = nullptr;
      GPUOPT_CHECK(gpuopt_stream_wrap(env.ctx, cs, &s));
      GPUOPT_CHECK(gpuopt_stream_destroy(s));
    };
    Floats x(kAxpyN, 1.0f), y(kAxpyN, 0.0f);
    gpuopt_stream_t s = nullptr;
    GPUOPT_CHECK(gpuopt_stream_wrap(env.ctx, cs, &s));
    const gpuopt_status_t st =
        gpuopt_axpy(env.ctx, s, GPUOPT_DTYPE_F32, kAxpyN, 0.5, x.get(), 1, y.get(), 1);
    GPUOPT_CHECK(gpuopt_stream_destroy(s));
    GPUOPT_CHECK(st);
    CUDA_CHECK(cudaStreamSynchronize(cs));
    r.correct = y.all_equal(0.5f);
    r.bad_elements = r.correct ? 0 : 1;
    time_row(
        env, [&] { return time_batch(cs, pair); }, &r);
    r.note = fmt("%.2f", r.ms * 1000.0 / kLatencyCalls) + " us per wrap + destroy";
  } catch (const BenchError& e) {
    r.error = e.what();
    env.note_error();
  }
  if (cs) cudaStreamDestroy(cs);
  env.progress.finish(r.error.empty() ? r.note : "ERROR");
  rows->push_back(r);
}

// What one driver or runtime query costs on this host, per call (2000 calls on a cudaMalloc
// pointer, median of the batches): the pointer checks of an op are made of these, so the rows
// say what each check costs next to the op rows above (docs/notes/latency.md).
template <class F>
void query_row(
    BenchEnv& env, const std::string& what, F&& query, std::vector<Row>* rows,
    const std::function<void()>& after_batch = [] {}) {
  Row r = base_row("host query " + what);
  r.variant = "driver";
  r.data = "-";
  env.progress.start("latency host query " + what);
  try {
    r.correct = query();
    r.bad_elements = r.correct ? 0 : 1;
    if (!r.correct) r.mismatch = "the query failed";
    auto batch = [&] {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kLatencyCalls; ++i) query();
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      after_batch();
      return ms;
    };
    time_row(env, batch, &r);
    r.note = fmt("%.0f", r.ms * 1e6 / kLatencyCalls) + " ns per call";
  } catch (const BenchError& e) {
    r.error = e.what();
    env.note_error();
  }
  env.progress.finish(r.error.empty() ? r.note : "ERROR");
  rows->push_back(r);
}

template <class Fn>
Fn driver_entry(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess || !p)
    throw BenchError(GPUOPT_ERROR_CUDA, std::string("no driver entry point ") + name);
  return reinterpret_cast<Fn>(p);
}

void query_rows(BenchEnv& env, std::vector<Row>* rows) {
  Floats x(kAxpyN, 0.0f);
  const auto ptr = reinterpret_cast<CUdeviceptr>(x.get());
  using GetAttribute = CUresult (*)(void*, CUpointer_attribute, CUdeviceptr);
  using GetAttributes = CUresult (*)(unsigned, CUpointer_attribute*, void**, CUdeviceptr);
  using GetRange = CUresult (*)(CUdeviceptr*, size_t*, CUdeviceptr);
  const auto get_attribute = driver_entry<GetAttribute>("cuPointerGetAttribute");
  const auto get_attributes = driver_entry<GetAttributes>("cuPointerGetAttributes");
  const auto get_range = driver_entry<GetRange>("cuMemGetAddressRange");
  query_row(
      env, "cuPointerGetAttribute(BUFFER_ID)",
      [&] {
        unsigned long long id = 0;
        return get_attribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, ptr) == CUDA_SUCCESS && id != 0;
      },
      rows);
  query_row(
      env, "cuPointerGetAttributes(BUFFER_ID, RANGE_START, RANGE_SIZE)",
      [&] {
        unsigned long long id = 0;
        CUdeviceptr start = 0;
        size_t size = 0;
        CUpointer_attribute a[] = {CU_POINTER_ATTRIBUTE_BUFFER_ID,
                                   CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                   CU_POINTER_ATTRIBUTE_RANGE_SIZE};
        void* d[] = {&id, &start, &size};
        return get_attributes(3, a, d, ptr) == CUDA_SUCCESS && id != 0 && start == ptr;
      },
      rows);
  query_row(
      env, "cudaPointerGetAttributes",
      [&] {
        cudaPointerAttributes attr{};
        return cudaPointerGetAttributes(&attr, x.get()) == cudaSuccess &&
               attr.type == cudaMemoryTypeDevice;
      },
      rows);
  query_row(
      env, "cuMemGetAddressRange",
      [&] {
        CUdeviceptr base = 0;
        size_t size = 0;
        return get_range(&base, &size, ptr) == CUDA_SUCCESS && base == ptr;
      },
      rows);
  query_row(
      env, "cudaGetDevice",
      [&] {
        int d = -1;
        return cudaGetDevice(&d) == cudaSuccess && d >= 0;
      },
      rows);
  // Launches: issue cost on the host while the queue fills (the device runs an empty kernel in
  // about a microsecond), the stream drained between batches.
  const auto drain = [&] { CUDA_CHECK(cudaStreamSynchronize(env.cu)); };
  query_row(
      env, "empty kernel, triple chevron", [&] { return launch_empty_runtime(env.cu); }, rows,
      drain);
  query_row(
      env, "empty kernel, cuLaunchKernel", [&] { return launch_empty_driver(env.cu); }, rows,
      drain);
}

// Runs rows_of(); a setup that throws leaves one error row (shape, variant) instead.
void setup_guarded(BenchEnv& env, const char* shape, const char* variant,
                   const std::function<void()>& rows_of, std::vector<Row>* rows) {
  try {
    rows_of();
  } catch (const BenchError& e) {
    Row r = base_row(shape);
    r.variant = variant;
    r.error = std::string("setup failed: ") + e.what();
    env.note_error();
    rows->push_back(r);
  }
}

// The correct, timed latency row of shape: the vendor's (variant NULL) or gpuopt's variant.
const Row* find(const Results& r, const std::string& shape, const char* variant) {
  for (const Row& row : r.rows)
    if (row.op == "latency" && row.shape == shape &&
        (variant ? !row.is_vendor && row.variant == variant : row.is_vendor) && row.error.empty() &&
        row.correct && std::isfinite(row.ms))
      return &row;
  return nullptr;
}

}  // namespace

int latency_row_count(const Options& opt) {
  return opt.wants_op("latency") && opt.variants.empty() && opt.wants_dtype(GPUOPT_DTYPE_F32) ? 21
                                                                                              : 0;
}

void run_latency_suite(BenchEnv& env, std::vector<Row>* rows) {
  if (latency_row_count(env.opt) == 0) return;
  try {
    Blas blas(env.cu);
    axpy_pair(env, blas, rows);
    for (int n : kGemmSizes) gemm_pair(env, blas, n, rows);
  } catch (const BenchError& e) {
    Row r = base_row("setup");
    r.variant = "gpuopt";
    r.error = e.what();
    env.note_error();
    rows->push_back(r);
  }
  setup_guarded(
      env, "sum n=4096", "gpuopt", [&] { sum_pair(env, rows); }, rows);
  wrap_row(env, rows);
  setup_guarded(
      env, "host query", "driver", [&] { query_rows(env, rows); }, rows);
}

void compute_latency_bars(Results& r, const Options& opt) {
  if (latency_row_count(opt) == 0) return;
  struct Pair {
    const char* shape;
    const char* bar;  // the default mode's bar; the cached mode's inserts its clause before ':'
    const char* vendor;
  };
  const Pair pairs[] = {
      {"axpy n=4096", "latency axpy f32 n=4096", "cublas"},
      {"gemm 64^3", "latency gemm f32 64^3", "cublas"},
      {"gemm 256^3", "latency gemm f32 256^3", "cublas"},
      {"sum n=4096", "latency sum f32 n=4096", "cub"},
  };
  struct Mode {
    const char* variant;
    const char* clause;
  };
  const Mode modes[] = {{"gpuopt", ""}, {kCachedVariant, ", cached pointer checks"}};
  for (const Mode& m : modes)
    for (const Pair& p : pairs) {
      Bar b;
      b.name = std::string(p.bar) + m.clause + ": gpuopt us / " + p.vendor + " us";
      b.target = "<= 1.0";
      b.max = 1.0;
      const Row* own = find(r, p.shape, m.variant);
      const Row* vendor = find(r, p.shape, nullptr);
      if (own && vendor) {
        b.value = own->ms / vendor->ms;
        b.note = fmt("%.2f", own->ms * 1000.0 / own->calls) + " vs " +
                 fmt("%.2f", vendor->ms * 1000.0 / vendor->calls) + " us per call";
      } else {
        b.note = "no correct row pair";
      }
      judge(&b);
      r.bars.push_back(b);
    }
  // Operands a framework carves from one pool segment: one buffer-ID read covers both.
  Bar one;
  one.name = "latency axpy f32 n=4096, operands in one allocation: gpuopt us / cublas us";
  one.target = "<= 1.0";
  one.max = 1.0;
  const Row* own = find(r, "axpy n=4096", kOneAllocationVariant);
  const Row* vendor = find(r, "axpy n=4096", nullptr);
  if (own && vendor) {
    one.value = own->ms / vendor->ms;
    one.note = fmt("%.2f", own->ms * 1000.0 / own->calls) + " vs " +
               fmt("%.2f", vendor->ms * 1000.0 / vendor->calls) +
               " us per call; default (full) pointer checks";
  } else {
    one.note = "no correct row pair";
  }
  judge(&one);
  r.bars.push_back(one);
  Bar w;
  w.name = "latency stream wrap: us";
  w.target = "<= 10";
  w.max = 10.0;
  if (const Row* row = find(r, "stream wrap", "gpuopt")) {
    w.value = row->ms * 1000.0 / row->calls;
    w.note = "gpuopt_stream_wrap + gpuopt_stream_destroy of a cudaStream_t";
  } else {
    w.note = "no correct row";
  }
  judge(&w);
  r.bars.push_back(w);
}

}  // namespace bench
