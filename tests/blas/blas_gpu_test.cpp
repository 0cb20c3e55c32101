// GPU tests of the drop-in BLAS (label gpu; every case skips without a device). ctest runs this
// binary with GPUOPT_BLAS_FORCE=gpu, so every level-3 call below takes the GPU path; results are
// compared with the CPU BLAS the shim forwards to (loaded here by path) or a direct sum.
//   HostTiled.*  the pipeline itself with small tiles (many tiles, k chunks, both slots, several
//                streams): every transpose pair, beta = 0 and not, padded leading dimensions,
//                f32/f64, device operands, an injected failure finished on the CPU (also one in a
//                deferred finish); in both orders of tile_plan.hpp (tiles, and panels: resident
//                B panels, gangs); the deferred finish on one GPU and on two
//   Blas.*       the entry points: host arrays, device and managed pointers in place, the other
//                level-3 routines, concurrent callers, a child after fork()
//   Blocked.*    symm, syrk, syr2k, trmm and trsm, f64 and f32, every flag combination on odd
//                sizes against the CPU BLAS (level3_cases.hpp); with GPUOPT_BLAS_OOC_BLOCK=64 and
//                GPUOPT_BLAS_LOG=1 (ctest's blas.gpu.blocked_out_of_core) every call must also
//                have taken the blocked out-of-core path, all of it on the GPU; with
//                GPUOPT_BLAS_OOC_FAIL_STEP=3 too (blas.gpu.blocked_out_of_core_faults) the third
//                step of every call fails and the call is finished on the CPU, still right
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "blas_prototypes.h"
#include "copy_pool.hpp"
#include "host_tiled_gemm.hpp"
#include "level3_cases.hpp"

namespace {

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

#define SKIP_WITHOUT_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device"

std::vector<double> fill(size_t n, double seed) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(seed + 0.731 * static_cast<double>(i)) + 0.05;
  return v;
}

// C = alpha op(A) op(B) + beta C, by direct sums (long double), column-major.
template <class T>
void reference_gemm(char ta, char tb, int m, int n, int k, double alpha, const T* A, int lda,
                    const T* B, int ldb, double beta, T* C, int ldc) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      long double s = 0;
      for (int l = 0; l < k; ++l) {
        long double a =
            ta == 'N' ? A[i + static_cast<long>(l) * lda] : A[l + static_cast<long>(i) * lda];
        long double b =
            tb == 'N' ? B[l + static_cast<long>(j) * ldb] : B[j + static_cast<long>(l) * ldb];
        s += a * b;
      }
      T& c = C[i + static_cast<long>(j) * ldc];
      c = static_cast<T>(alpha * static_cast<double>(s) + (beta == 0 ? 0.0 : beta * c));
    }
}

// Largest |x - y| over the m x n parts, relative to the largest |y|.
template <class T>
double rel_diff(int m, int n, const T* x, int ldx, const T* y, int ldy) {
  double worst = 0, scale = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double a = x[i + static_cast<long>(j) * ldx], b = y[i + static_cast<long>(j) * ldy];
      worst = std::fmax(worst, std::fabs(a - b));
      scale = std::fmax(scale, std::fabs(b));
    }
  return scale > 0 ? worst / scale : worst;
}

// ---------------------------------------------------------------------------------------------
// The staging copies' thread pool (host only: runs without a GPU too).

TEST(CopyPool, Copy2dEveryShapeAndThreadCount) {
  for (int threads : {1, 3, 8}) {
    gpuopt_host_tiled::CopyPool pool(threads - 1);
    EXPECT_EQ(pool.threads(), threads);
    for (int64_t rows : {1, 7, 64, 300, 301})
      for (int64_t cols : {1, 5, 129})
        for (int64_t pad : {0, 3})
          for (size_t piece : {size_t(1), size_t(100), size_t(1) << 20}) {
            const int64_t lds = rows + pad, ldd = rows + 2 * pad;
            std::vector<double> src(static_cast<size_t>(lds * cols)),
                dst(static_cast<size_t>(ldd * cols), -1);
            for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<double>(i);
            gpuopt_host_tiled::copy_2d(&pool, piece, dst.data(), ldd, src.data(), lds, rows, cols,
                                       8);
            for (int64_t j = 0; j < cols; ++j)
              for (int64_t i = 0; i < ldd; ++i)
                ASSERT_EQ(dst[static_cast<size_t>(i + j * ldd)],
                          i < rows ? src[static_cast<size_t>(i + j * lds)] : -1.0)
                    << threads << " threads, " << rows << "x" << cols << " pad " << pad;
          }
  }
}

// 4-byte elements at every alignment of source and destination (the streaming stores' head and
// tail), flat and strided.
TEST(CopyPool, Copy2dUnalignedFloats) {
  gpuopt_host_tiled::CopyPool pool(2);
  for (int64_t so = 0; so < 4; ++so)
    for (int64_t doff = 0; doff < 4; ++doff)
      for (int64_t rows : {67, 333})
        for (int64_t pad : {0, 1}) {
          const int64_t cols = 9, lds = rows + pad, ldd = rows + pad;
          std::vector<float> src(static_cast<size_t>(lds * cols + 8)),
              dst(static_cast<size_t>(ldd * cols + 8), -1.0f);
          for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i);
          gpuopt_host_tiled::copy_2d(&pool, 64, dst.data() + doff, ldd, src.data() + so, lds, rows,
                                     cols, 4);
          for (int64_t j = 0; j < cols; ++j)
            for (int64_t i = 0; i < rows; ++i)
              ASSERT_EQ(dst[static_cast<size_t>(doff + i + j * ldd)],
                        src[static_cast<size_t>(so + i + j * lds)])
                  << so << " " << doff << " " << rows << " " << pad;
          for (int64_t i = 0; i < doff; ++i) ASSERT_EQ(dst[static_cast<size_t>(i)], -1.0f);
        }
}

// C = D + beta C (the pipeline's epilogue for pageable C), f64 and f32, padded, on 1-3 threads.
TEST(CopyPool, AddScaled2d) {
  for (int threads : {1, 3}) {
    gpuopt_host_tiled::CopyPool pool(threads - 1);
    const int64_t rows = 37, cols = 23, ldc = 40, ldd = 37;
    std::vector<double> c(static_cast<size_t>(ldc * cols)), d(static_cast<size_t>(ldd * cols));
    for (size_t i = 0; i < c.size(); ++i) c[i] = 0.25 * static_cast<double>(i);
    for (size_t i = 0; i < d.size(); ++i) d[i] = 1.0 + static_cast<double>(i);
    std::vector<float> cf(c.begin(), c.end()), df(d.begin(), d.end());
    const std::vector<double> c0 = c;
    gpuopt_host_tiled::add_scaled_2d(&pool, 16, c.data(), ldc, d.data(), ldd, rows, cols, 8, -2.0);
    gpuopt_host_tiled::add_scaled_2d(&pool, 16, cf.data(), ldc, df.data(), ldd, rows, cols, 4,
                                     -2.0);
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t i = 0; i < ldc; ++i) {
        const size_t at = static_cast<size_t>(i + j * ldc);
        const double want =
            i < rows ? d[static_cast<size_t>(i + j * ldd)] - 2.0 * c0[at] : c0[at];  // padding kept
        ASSERT_EQ(c[at], want) << i << "," << j;
        ASSERT_EQ(cf[at], static_cast<float>(want)) << i << "," << j;
      }
  }
}

TEST(CopyPool, ConcurrentCallersEachGetAllTheirPieces) {
  gpuopt_host_tiled::CopyPool pool(3);
  std::vector<std::thread> callers;
  std::vector<int> ok(6, 0);
  for (int t = 0; t < 6; ++t)
    callers.emplace_back([&, t] {
      for (int rep = 0; rep < 200; ++rep) {
        std::vector<std::atomic<int>> hits(37);
        for (auto& h : hits) h = 0;
        pool.run(37, [&](int64_t p) { hits[static_cast<size_t>(p)]++; });
        for (auto& h : hits)
          if (h != 1) return;
      }
      ok[static_cast<size_t>(t)] = 1;
    });
  for (auto& c : callers) c.join();
  for (int v : ok) EXPECT_EQ(v, 1);
}

using level3_cases::cpu_blas;  // the CPU BLAS the shim forwards to, for reference results

template <class F>
F cpu_fn(const char* name) {
  void* h = cpu_blas();
  return h ? reinterpret_cast<F>(dlsym(h, name)) : nullptr;
}

// ---------------------------------------------------------------------------------------------
// The pipeline with small tiles.

struct PipeCase {
  char ta, tb;
  int m, n, k;
  double beta;
  int pad;
};

// Where run_pipeline_case puts A, B and C: pageable host vectors, page-locked host copies
// (cudaMallocHost: copied by the copy engines, no staging), device copies, or a mix (A and C
// page-locked, B pageable).
enum class Place { kPageable, kPinned, kDevice, kMixed };

template <class T>
void run_pipeline_case(gpuopt_host_tiled::Pipeline& p, const PipeCase& pc,
                       Place place = Place::kPageable) {
  const bool panels = p.options().order == gpuopt_host_tiled::Order::kPanels;
  const int ar = pc.ta == 'N' ? pc.m : pc.k, ac = pc.ta == 'N' ? pc.k : pc.m;
  const int br = pc.tb == 'N' ? pc.k : pc.n, bc = pc.tb == 'N' ? pc.n : pc.k;
  const int lda = ar + pc.pad, ldb = br + pc.pad, ldc = pc.m + pc.pad;
  std::vector<T> A(static_cast<size_t>(lda) * ac), B(static_cast<size_t>(ldb) * bc),
      C(static_cast<size_t>(ldc) * pc.n);
  auto fa = fill(A.size(), 1.0), fb = fill(B.size(), 2.0), fc = fill(C.size(), 3.0);
  for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<T>(fa[i]);
  for (size_t i = 0; i < B.size(); ++i) B[i] = static_cast<T>(fb[i]);
  for (size_t i = 0; i < C.size(); ++i) C[i] = static_cast<T>(fc[i]);
  if (pc.beta == 0)  // beta = 0 must not read C
    for (int j = 0; j < pc.n; ++j)
      for (int i = 0; i < pc.m; ++i) C[i + static_cast<size_t>(j) * ldc] = static_cast<T>(NAN);
  std::vector<T> R = C;
  reference_gemm<T>(pc.ta, pc.tb, pc.m, pc.n, pc.k, 0.75, A.data(), lda, B.data(), ldb, pc.beta,
                    R.data(), ldc);
  gpuopt_host_tiled::Call c;
  c.dtype = sizeof(T) == 8 ? GPUOPT_DTYPE_F64 : GPUOPT_DTYPE_F32;
  c.transa = pc.ta;
  c.transb = pc.tb;
  c.m = pc.m;
  c.n = pc.n;
  c.k = pc.k;
  c.alpha = 0.75;
  c.beta = pc.beta;
  c.lda = lda;
  c.ldb = ldb;
  c.ldc = ldc;
  c.A = A.data();
  c.B = B.data();
  c.C = C.data();
  // A copy of v in device (or page-locked host) memory, freed at the end.
  std::vector<void*> made;
  auto copy_of = [&](std::vector<T>& v, bool device, gpuopt_host_tiled::Memory* mem) -> void* {
    void* q = nullptr;
    cudaError_t e =
        device ? cudaMalloc(&q, v.size() * sizeof(T)) : cudaMallocHost(&q, v.size() * sizeof(T));
    EXPECT_EQ(e, cudaSuccess);
    if (e != cudaSuccess) return v.data();
    made.push_back(q);
    cudaMemcpy(q, v.data(), v.size() * sizeof(T), cudaMemcpyDefault);
    *mem = device ? gpuopt_host_tiled::Memory::kDevice : gpuopt_host_tiled::Memory::kPinned;
    return q;
  };
  if (place != Place::kPageable) {
    const bool dev = place == Place::kDevice;
    c.A = copy_of(A, dev, &c.a_mem);
    if (place != Place::kMixed) c.B = copy_of(B, dev, &c.b_mem);
    c.C = copy_of(C, dev, &c.c_mem);
  }
  gpuopt_host_tiled::Result r =
      p.gemm(c, [](const gpuopt_host_tiled::Call&, int64_t, int64_t, int64_t, int64_t) {
        FAIL() << "no CPU tile expected";
      });
  EXPECT_TRUE(r.ok) << r.error;
  // Forced panels run as panels (every case here fits them); the tiles order otherwise.
  EXPECT_EQ(r.plan.rfind(panels ? "panels " : "tiles ", 0), 0u) << r.plan;
  if (c.C != C.data()) cudaMemcpy(C.data(), c.C, C.size() * sizeof(T), cudaMemcpyDefault);
  for (void* q : made) {
    cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, q) == cudaSuccess && at.type == cudaMemoryTypeDevice)
      cudaFree(q);
    else
      cudaFreeHost(q);
  }
  const double tol = sizeof(T) == 8 ? 1e-12 : 2e-5;
  EXPECT_LE(rel_diff(pc.m, pc.n, C.data(), ldc, R.data(), ldc), tol)
      << pc.ta << pc.tb << " m=" << pc.m << " n=" << pc.n << " k=" << pc.k << " beta=" << pc.beta;
  for (int j = 0; j < pc.n; ++j)  // the padding rows are never written
    for (int i = pc.m; i < ldc; ++i)
      ASSERT_EQ(C[i + static_cast<size_t>(j) * ldc],
                static_cast<T>(fc[i + static_cast<size_t>(j) * ldc]));
}

std::vector<int> all_devices() {
  int n = 0;
  cudaGetDeviceCount(&n);
  std::vector<int> d;
  for (int i = 0; i < n && i < 2; ++i) d.push_back(i);
  return d;
}

// Small tiles; the staging copies cut into many pieces over several threads and copied in as
// several blocks (the sizes that make them happen at 4096 tiles, scaled down).
std::unique_ptr<gpuopt_host_tiled::Pipeline> pipeline_on(const std::vector<int>& devices,
                                                         gpuopt_host_tiled::Order order,
                                                         int workers) {
  gpuopt_host_tiled::Options o;
  o.order = order;
  o.tile_mn = 96;
  o.tile_k = 40;
  o.streams_per_device = workers;
  o.copy_threads = 4;
  o.copy_piece_bytes = 200;
  o.staging_block_bytes = 1000;
  std::string err;
  auto p = gpuopt_host_tiled::Pipeline::create(devices, o, &err);
  EXPECT_TRUE(p) << err;
  return p;
}

std::unique_ptr<gpuopt_host_tiled::Pipeline> small_pipeline(
    gpuopt_host_tiled::Order order = gpuopt_host_tiled::Order::kTiles) {
  return pipeline_on(all_devices(), order, 3);
}

void every_transpose_beta_and_padding(gpuopt_host_tiled::Pipeline& p) {
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'})
      for (double beta : {0.0, 0.5}) {
        run_pipeline_case<double>(p, {ta, tb, 301, 257, 203, beta, 3});
        run_pipeline_case<float>(p, {ta, tb, 150, 97, 81, beta, 0});
      }
  run_pipeline_case<double>(p, {'N', 'N', 1, 1, 1, 0.0, 0});
  run_pipeline_case<double>(p, {'N', 'N', 96, 96, 40, 1.0, 0});  // exactly one tile
}

void operands_in_place(gpuopt_host_tiled::Pipeline& p) {
  run_pipeline_case<double>(p, {'T', 'N', 200, 190, 130, 0.5, 2}, Place::kDevice);
  for (double beta : {0.0, 0.5}) {
    run_pipeline_case<double>(p, {'N', 'T', 211, 190, 130, beta, 2}, Place::kPinned);
    run_pipeline_case<float>(p, {'T', 'N', 150, 97, 81, beta, 1}, Place::kPinned);
    run_pipeline_case<double>(p, {'T', 'T', 97, 203, 77, beta, 3}, Place::kMixed);
  }
}

TEST(HostTiled, EveryTransposeBetaAndPadding) {
  SKIP_WITHOUT_GPU();
  auto p = small_pipeline();
  ASSERT_TRUE(p);
  every_transpose_beta_and_padding(*p);
}

// Device, page-locked and mixed operands; page-locked host operands skip the staging.
TEST(HostTiled, OperandsInPlace) {
  SKIP_WITHOUT_GPU();
  auto p = small_pipeline();
  ASSERT_TRUE(p);
  operands_in_place(*p);
}

// The panels order (tile_plan.hpp): B panels resident per device, loaded chunk by chunk through
// the pinned ring by whichever gang needs them first (3 gangs here), A chunks packed once and
// copied to every device; row tiles of 9216 / (n / devices) rows.
TEST(HostTiled, PanelsEveryTransposeBetaAndPadding) {
  SKIP_WITHOUT_GPU();
  auto p = small_pipeline(gpuopt_host_tiled::Order::kPanels);
  ASSERT_TRUE(p);
  every_transpose_beta_and_padding(*p);
}

TEST(HostTiled, PanelsOperandsInPlace) {
  SKIP_WITHOUT_GPU();
  auto p = small_pipeline(gpuopt_host_tiled::Order::kPanels);
  ASSERT_TRUE(p);
  operands_in_place(*p);
}

// The default copy settings (one staging thread per CPU, 1 MiB pieces, 8 MiB blocks) at tiles
// of 1024: f64 C tiles of 8 MiB (one block in 8 pieces), chunks of 4 MiB, ragged edges, padding.
TEST(HostTiled, DefaultStagingOnLargerTiles) {
  SKIP_WITHOUT_GPU();
  gpuopt_host_tiled::Options o;
  o.tile_mn = 1024;
  o.tile_k = 512;
  o.streams_per_device = 2;
  std::string err;
  for (auto order : {gpuopt_host_tiled::Order::kTiles, gpuopt_host_tiled::Order::kPanels}) {
    o.order = order;
    auto p = gpuopt_host_tiled::Pipeline::create(all_devices(), o, &err);
    ASSERT_TRUE(p) << err;
    run_pipeline_case<double>(*p, {'N', 'N', 1100, 1030, 600, 0.5, 5});
    run_pipeline_case<float>(*p, {'T', 'T', 1025, 700, 300, 0.0, 0});
  }
}

// The deferred finish (src/host_tiled/deferred_finish.hpp): each worker (gang) goes on to its next
// tile while a thread of its own waits for the last tile's copy out and unpacks it into C. Odd
// sizes over many small tiles, beta = 0 (C holds NaN: never read) and beta != 0 (C read exactly
// once: a part written twice would show beta twice), one worker per device (every tile after the
// first finds its own previous finish in flight) and three, pageable C (unpacked by the finish) and
// page-locked / device C (the next tile's staging of C waits for the previous copy out).
void deferred_finish_cases(const std::vector<int>& devices) {
  for (auto order : {gpuopt_host_tiled::Order::kTiles, gpuopt_host_tiled::Order::kPanels})
    for (int workers : {1, 3}) {
      auto p = pipeline_on(devices, order, workers);
      ASSERT_TRUE(p);
      for (double beta : {0.0, 0.7}) {
        run_pipeline_case<double>(*p, {'N', 'N', 487, 389, 123, beta, 3});
        run_pipeline_case<double>(*p, {'T', 'N', 401, 293, 81, beta, 0});
        run_pipeline_case<float>(*p, {'N', 'T', 293, 487, 57, beta, 1});
        run_pipeline_case<double>(*p, {'N', 'N', 301, 211, 77, beta, 2}, Place::kPinned);
        run_pipeline_case<double>(*p, {'T', 'T', 211, 301, 45, beta, 1}, Place::kDevice);
      }
    }
}

TEST(HostTiled, DeferredFinishOneGpu) {
  SKIP_WITHOUT_GPU();
  deferred_finish_cases({0});
}

TEST(HostTiled, DeferredFinishTwoGpus) {
  SKIP_WITHOUT_GPU();
  int n = 0;
  cudaGetDeviceCount(&n);
  if (n < 2) GTEST_SKIP() << "needs two GPUs";
  deferred_finish_cases({0, 1});
}

// A failure injected when the worker starts a tile (@p in_finish false), or in the deferred
// finish of that tile while its worker has gone on (@p in_finish true: nothing of it written).
void injected_failure_is_finished_on_the_cpu(gpuopt_host_tiled::Order order, int64_t tile,
                                             bool in_finish = false, int workers = 3) {
  auto p = pipeline_on(all_devices(), order, workers);
  ASSERT_TRUE(p);
  const int m = 300, n = 280, k = 90;
  auto A = fill(static_cast<size_t>(m) * k, 1), B = fill(static_cast<size_t>(k) * n, 2),
       C = fill(static_cast<size_t>(m) * n, 3);
  std::vector<double> R = C;
  reference_gemm<double>('N', 'N', m, n, k, 1.0, A.data(), m, B.data(), k, 0.5, R.data(), m);
  gpuopt_host_tiled::Call c;
  c.m = m;
  c.n = n;
  c.k = k;
  c.alpha = 1;
  c.beta = 0.5;
  c.A = A.data();
  c.lda = m;
  c.B = B.data();
  c.ldb = k;
  c.C = C.data();
  c.ldc = m;
  if (in_finish)
    p->inject_failure_at_finish(tile);
  else
    p->inject_failure_at_tile(tile);
  gpuopt_host_tiled::Result r = p->gemm(c, [&](const gpuopt_host_tiled::Call& cc, int64_t i0,
                                               int64_t j0, int64_t rows, int64_t cols) {
    reference_gemm<double>('N', 'N', static_cast<int>(rows), static_cast<int>(cols), k, cc.alpha,
                           A.data() + i0, m, B.data() + j0 * k, k, cc.beta, C.data() + i0 + j0 * m,
                           m);
  });
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find(in_finish ? "in a deferred finish" : "injected failure"),
            std::string::npos)
      << r.error;
  EXPECT_GE(r.cpu_tiles, 1);
  EXPECT_LE(rel_diff(m, n, C.data(), m, R.data(), m), 1e-12);
}

TEST(HostTiled, InjectedFailureIsFinishedOnTheCpu) {
  SKIP_WITHOUT_GPU();
  injected_failure_is_finished_on_the_cpu(gpuopt_host_tiled::Order::kTiles, 5);
}

// Row tile 2 (of 10 row tiles of 32 rows on one GPU, 5 of 65 on two): the gangs waiting for panel
// chunks stop too, and every part not written is redone.
TEST(HostTiled, PanelsInjectedFailureIsFinishedOnTheCpu) {
  SKIP_WITHOUT_GPU();
  injected_failure_is_finished_on_the_cpu(gpuopt_host_tiled::Order::kPanels, 2);
}

// The finish of tile 5 / row tile 2 fails after its copy out, while the worker (gang) already
// computes its next tile: that tile is redone on the CPU, the finishes in flight complete whole,
// every part is written exactly once (beta = 0.5 would show twice), with one worker per device
// and with three.
TEST(HostTiled, InjectedFailureInADeferredFinishIsRedoneOnTheCpu) {
  SKIP_WITHOUT_GPU();
  for (int workers : {1, 3}) {
    injected_failure_is_finished_on_the_cpu(gpuopt_host_tiled::Order::kTiles, 5, true, workers);
    injected_failure_is_finished_on_the_cpu(gpuopt_host_tiled::Order::kPanels, 2, true, workers);
  }
}

// ---------------------------------------------------------------------------------------------
// The entry points (GPUOPT_BLAS_FORCE=gpu).

TEST(Blas, DgemmHostArrays) {
  SKIP_WITHOUT_GPU();
  const int m = 700, n = 650, k = 1500, lda = 1600, ldb = 1600, ldc = 710;
  for (const char* t : {"NN", "NT", "TN", "TT"}) {
    auto A = fill(static_cast<size_t>(lda) * 1500, 1), B = fill(static_cast<size_t>(ldb) * 1500, 2),
         C = fill(static_cast<size_t>(ldc) * n, 3);
    std::vector<double> R = C;
    double alpha = 1.25, beta = -0.5;
    reference_gemm<double>(t[0], t[1], m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, R.data(),
                           ldc);
    dgemm_(&t[0], &t[1], &m, &n, &k, &alpha, A.data(), &lda, B.data(), &ldb, &beta, C.data(), &ldc,
           1, 1);
    EXPECT_LE(rel_diff(m, n, C.data(), ldc, R.data(), ldc), 1e-12) << t;
    for (int j = 0; j < n; ++j)
      for (int i = m; i < ldc; ++i)
        ASSERT_EQ(C[i + static_cast<size_t>(j) * ldc], R[i + static_cast<size_t>(j) * ldc]);
  }
}

// Page-locked host arrays (cudaMallocHost) go to the copy engines as they are, without staging.
TEST(Blas, DgemmPinnedHostArrays) {
  SKIP_WITHOUT_GPU();
  const int m = 530, n = 610, k = 700, lda = 540, ldb = 700, ldc = 533;
  auto a = fill(static_cast<size_t>(lda) * k, 1), b = fill(static_cast<size_t>(ldb) * n, 2),
       c = fill(static_cast<size_t>(ldc) * n, 3);
  double *A = nullptr, *B = nullptr, *C = nullptr;
  ASSERT_EQ(cudaMallocHost(&A, a.size() * sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&B, b.size() * sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&C, c.size() * sizeof(double)), cudaSuccess);
  std::copy(a.begin(), a.end(), A);
  std::copy(b.begin(), b.end(), B);
  std::copy(c.begin(), c.end(), C);
  std::vector<double> R = c;
  double alpha = 0.5, beta = 2;
  reference_gemm<double>('N', 'N', m, n, k, alpha, A, lda, B, ldb, beta, R.data(), ldc);
  dgemm_("N", "N", &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);
  EXPECT_LE(rel_diff(m, n, C, ldc, R.data(), ldc), 1e-12);
  for (int j = 0; j < n; ++j)
    for (int i = m; i < ldc; ++i)
      ASSERT_EQ(C[i + static_cast<size_t>(j) * ldc], c[i + static_cast<size_t>(j) * ldc]);
  cudaFreeHost(A);
  cudaFreeHost(B);
  cudaFreeHost(C);
}

TEST(Blas, SgemmHostArrays) {
  SKIP_WITHOUT_GPU();
  const int m = 513, n = 300, k = 700;
  std::vector<float> A(static_cast<size_t>(m) * k), B(static_cast<size_t>(k) * n),
      C(static_cast<size_t>(m) * n, 1.0f);
  auto fa = fill(A.size(), 1), fb = fill(B.size(), 2);
  for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<float>(fa[i]);
  for (size_t i = 0; i < B.size(); ++i) B[i] = static_cast<float>(fb[i]);
  std::vector<float> R = C;
  reference_gemm<float>('N', 'N', m, n, k, 1.0, A.data(), m, B.data(), k, 0.0, R.data(), m);
  float one = 1, zero = 0;
  sgemm_("N", "N", &m, &n, &k, &one, A.data(), &m, B.data(), &k, &zero, C.data(), &m, 1, 1);
  EXPECT_LE(rel_diff(m, n, C.data(), m, R.data(), m), 2e-5);
}

TEST(Blas, DevicePointersInPlace) {
  SKIP_WITHOUT_GPU();
  const int m = 640, n = 520, k = 380;
  auto A = fill(static_cast<size_t>(m) * k, 1), B = fill(static_cast<size_t>(k) * n, 2),
       C = fill(static_cast<size_t>(m) * n, 3);
  std::vector<double> R = C;
  reference_gemm<double>('N', 'T', m, n, k, 2.0, A.data(), m, B.data(), n, 0.5, R.data(), m);
  // The same B stored n x k for 'T'.
  std::vector<double> Bt(static_cast<size_t>(n) * k);
  for (int l = 0; l < k; ++l)
    for (int j = 0; j < n; ++j)
      Bt[j + static_cast<size_t>(l) * n] = B[l + static_cast<size_t>(j) * k];
  R = C;
  reference_gemm<double>('N', 'T', m, n, k, 2.0, A.data(), m, Bt.data(), n, 0.5, R.data(), m);
  for (bool managed : {false, true}) {
    double *dA, *dB, *dC;
    auto alloc = [&](double** p, size_t bytes) {
      return managed ? cudaMallocManaged(p, bytes) : cudaMalloc(p, bytes);
    };
    ASSERT_EQ(alloc(&dA, A.size() * 8), cudaSuccess);
    ASSERT_EQ(alloc(&dB, Bt.size() * 8), cudaSuccess);
    ASSERT_EQ(alloc(&dC, C.size() * 8), cudaSuccess);
    cudaMemcpy(dA, A.data(), A.size() * 8, cudaMemcpyDefault);
    cudaMemcpy(dB, Bt.data(), Bt.size() * 8, cudaMemcpyDefault);
    cudaMemcpy(dC, C.data(), C.size() * 8, cudaMemcpyDefault);
    double alpha = 2, beta = 0.5;
    dgemm_("N", "T", &m, &n, &k, &alpha, dA, &m, dB, &n, &beta, dC, &m, 1, 1);
    std::vector<double> out(C.size());
    cudaMemcpy(out.data(), dC, C.size() * 8, cudaMemcpyDefault);
    EXPECT_LE(rel_diff(m, n, out.data(), m, R.data(), m), 1e-12)
        << (managed ? "managed" : "device");
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
  }
}

// A small call (under the routing's size floor) on device memory: never handed to the CPU BLAS.
TEST(Blas, SmallDevicePointers) {
  SKIP_WITHOUT_GPU();
  const int n = 8;
  std::vector<double> A(64), B(64), C(64, 1.0);
  for (int i = 0; i < 64; ++i) {
    A[static_cast<size_t>(i)] = i;
    B[static_cast<size_t>(i)] = 1;
  }
  double *dA, *dB, *dC, one = 1, zero = 0;
  ASSERT_EQ(cudaMalloc(&dA, 512), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dB, 512), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dC, 512), cudaSuccess);
  cudaMemcpy(dA, A.data(), 512, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B.data(), 512, cudaMemcpyHostToDevice);
  dgemm_("N", "N", &n, &n, &n, &one, dA, &n, dB, &n, &zero, dC, &n, 1, 1);
  cudaMemcpy(C.data(), dC, 512, cudaMemcpyDeviceToHost);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) EXPECT_EQ(C[static_cast<size_t>(i + 8 * j)], 8.0 * i + 224);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
}

using Symm = void (*)(const char*, const char*, const int*, const int*, const double*,
                      const double*, const int*, const double*, const int*, const double*, double*,
                      const int*, size_t, size_t);
using Syrk = void (*)(const char*, const char*, const int*, const int*, const double*,
                      const double*, const int*, const double*, double*, const int*, size_t,
                      size_t);
using Syr2k = Symm;
using Trxm = void (*)(const char*, const char*, const char*, const char*, const int*, const int*,
                      const double*, const double*, const int*, double*, const int*, size_t, size_t,
                      size_t, size_t);

TEST(Blas, OtherLevel3RoutinesMatchTheCpuBlas) {
  SKIP_WITHOUT_GPU();
  auto csymm = cpu_fn<Symm>("dsymm_");
  auto csyrk = cpu_fn<Syrk>("dsyrk_");
  auto csyr2k = cpu_fn<Syr2k>("dsyr2k_");
  auto ctrmm = cpu_fn<Trxm>("dtrmm_");
  auto ctrsm = cpu_fn<Trxm>("dtrsm_");
  if (!csymm || !csyrk || !csyr2k || !ctrmm || !ctrsm)
    GTEST_SKIP() << "no CPU BLAS to compare with";
  const int m = 530, n = 470, ld = 540;
  const double alpha = 0.75, beta = 0.5;
  auto A = fill(static_cast<size_t>(ld) * ld, 1), B = fill(static_cast<size_t>(ld) * ld, 2);
  // Well-conditioned triangles, unit diagonal or not: small off-diagonal entries.
  for (double& a : A) a /= ld;
  for (int i = 0; i < ld; ++i) A[i + static_cast<size_t>(i) * ld] += 1;
  for (const char* su : {"LU", "LL", "RU", "RL"}) {
    auto C = fill(static_cast<size_t>(ld) * n, 3), R = C;
    dsymm_(&su[0], &su[1], &m, &n, &alpha, A.data(), &ld, B.data(), &ld, &beta, C.data(), &ld, 1,
           1);
    csymm(&su[0], &su[1], &m, &n, &alpha, A.data(), &ld, B.data(), &ld, &beta, R.data(), &ld, 1, 1);
    EXPECT_LE(rel_diff(m, n, C.data(), ld, R.data(), ld), 1e-12) << "dsymm " << su;
  }
  for (const char* ut : {"UN", "UT", "LN", "LT"}) {
    const int k = 300;
    auto C = fill(static_cast<size_t>(ld) * n, 3), R = C;
    dsyrk_(&ut[0], &ut[1], &n, &k, &alpha, A.data(), &ld, &beta, C.data(), &ld, 1, 1);
    csyrk(&ut[0], &ut[1], &n, &k, &alpha, A.data(), &ld, &beta, R.data(), &ld, 1, 1);
    EXPECT_LE(rel_diff(ld, n, C.data(), ld, R.data(), ld), 1e-12) << "dsyrk " << ut;
    C = fill(static_cast<size_t>(ld) * n, 3);
    R = C;
    dsyr2k_(&ut[0], &ut[1], &n, &k, &alpha, A.data(), &ld, B.data(), &ld, &beta, C.data(), &ld, 1,
            1);
    csyr2k(&ut[0], &ut[1], &n, &k, &alpha, A.data(), &ld, B.data(), &ld, &beta, R.data(), &ld, 1,
           1);
    EXPECT_LE(rel_diff(ld, n, C.data(), ld, R.data(), ld), 1e-12) << "dsyr2k " << ut;
  }
  for (const char* s : {"LUNN", "LLTU", "RUTN", "RLNU", "LLNN", "RUNN"}) {
    auto X = fill(static_cast<size_t>(ld) * n, 4), R = X;
    dtrmm_(&s[0], &s[1], &s[2], &s[3], &m, &n, &alpha, A.data(), &ld, X.data(), &ld, 1, 1, 1, 1);
    ctrmm(&s[0], &s[1], &s[2], &s[3], &m, &n, &alpha, A.data(), &ld, R.data(), &ld, 1, 1, 1, 1);
    EXPECT_LE(rel_diff(ld, n, X.data(), ld, R.data(), ld), 1e-12) << "dtrmm " << s;
    X = fill(static_cast<size_t>(ld) * n, 4);
    R = X;
    dtrsm_(&s[0], &s[1], &s[2], &s[3], &m, &n, &alpha, A.data(), &ld, X.data(), &ld, 1, 1, 1, 1);
    ctrsm(&s[0], &s[1], &s[2], &s[3], &m, &n, &alpha, A.data(), &ld, R.data(), &ld, 1, 1, 1, 1);
    EXPECT_LE(rel_diff(ld, n, X.data(), ld, R.data(), ld), 1e-11) << "dtrsm " << s;
  }
}

TEST(Blas, TrsmOnDevicePointers) {
  SKIP_WITHOUT_GPU();
  auto ctrsm = cpu_fn<Trxm>("dtrsm_");
  if (!ctrsm) GTEST_SKIP() << "no CPU BLAS to compare with";
  const int m = 400, n = 300;
  auto A = fill(static_cast<size_t>(m) * m, 1), X = fill(static_cast<size_t>(m) * n, 2), R = X;
  for (double& a : A) a /= m;
  for (int i = 0; i < m; ++i) A[i + static_cast<size_t>(i) * m] += 1;
  double *dA, *dX, alpha = 1.5;
  ASSERT_EQ(cudaMalloc(&dA, A.size() * 8), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dX, X.size() * 8), cudaSuccess);
  cudaMemcpy(dA, A.data(), A.size() * 8, cudaMemcpyHostToDevice);
  cudaMemcpy(dX, X.data(), X.size() * 8, cudaMemcpyHostToDevice);
  dtrsm_("L", "U", "T", "N", &m, &n, &alpha, dA, &m, dX, &m, 1, 1, 1, 1);
  ctrsm("L", "U", "T", "N", &m, &n, &alpha, A.data(), &m, R.data(), &m, 1, 1, 1, 1);
  cudaMemcpy(X.data(), dX, X.size() * 8, cudaMemcpyDeviceToHost);
  EXPECT_LE(rel_diff(m, n, X.data(), m, R.data(), m), 1e-11);
  cudaFree(dA);
  cudaFree(dX);
}

TEST(Blas, KeepsTheCallersCurrentDevice) {
  SKIP_WITHOUT_GPU();
  int count = 0;
  cudaGetDeviceCount(&count);
  if (count < 2) GTEST_SKIP() << "needs two GPUs";
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  const int m = 600, n = 600, k = 600;  // host arrays: the pipeline starts on device 0
  std::vector<double> A(static_cast<size_t>(m) * k, 1), B(A), C(A);
  double one = 1, zero = 0;
  dgemm_("N", "N", &m, &n, &k, &one, A.data(), &m, B.data(), &k, &zero, C.data(), &m, 1, 1);
  int now = -1;
  cudaGetDevice(&now);
  EXPECT_EQ(now, 1);
  EXPECT_EQ(C[0], 600.0);
  cudaSetDevice(0);
}

void one_gemm(int seed, double* worst) {
  const int m = 480, n = 400, k = 350;
  auto A = fill(static_cast<size_t>(m) * k, seed), B = fill(static_cast<size_t>(k) * n, seed + 1),
       C = fill(static_cast<size_t>(m) * n, seed + 2);
  std::vector<double> R = C;
  reference_gemm<double>('N', 'N', m, n, k, 1.0, A.data(), m, B.data(), k, 1.0, R.data(), m);
  double one = 1;
  dgemm_("N", "N", &m, &n, &k, &one, A.data(), &m, B.data(), &k, &one, C.data(), &m, 1, 1);
  *worst = rel_diff(m, n, C.data(), m, R.data(), m);
}

TEST(Blas, ConcurrentCallers) {
  SKIP_WITHOUT_GPU();
  std::vector<double> worst(8, 1);
  std::vector<std::thread> t;
  for (int i = 0; i < 8; ++i) t.emplace_back(one_gemm, 10 * i, &worst[static_cast<size_t>(i)]);
  for (auto& th : t) th.join();
  for (double w : worst) EXPECT_LE(w, 1e-12);
}

TEST(Blas, ChildAfterForkRunsRight) {
  SKIP_WITHOUT_GPU();
  double w = 1;
  one_gemm(1, &w);  // the parent has used the GPU
  ASSERT_LE(w, 1e-12);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    double cw = 1;
    one_gemm(2, &cw);
    _exit(cw <= 1e-12 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

// ---------------------------------------------------------------------------------------------
// symm, syrk, syr2k, trmm and trsm on host arrays, every flag combination. With
// GPUOPT_BLAS_OOC_BLOCK set (blas.gpu.blocked_out_of_core) they take the blocked out-of-core path
// (src/blas/gpu_blocked.hpp) in blocks of that size; with GPUOPT_BLAS_LOG=1 too, every call's
// log line must say so, and that nothing of it ran on the CPU.

template <class T, class Check>
void blocked_cases(Check check) {
  SKIP_WITHOUT_GPU();
  level3_cases::Level3<T> cpu, shim;
  if (!cpu_blas() || !level3_cases::level3_of<T>(cpu_blas(), &cpu))
    GTEST_SKIP() << "no CPU BLAS to compare with";
  ASSERT_TRUE(level3_cases::level3_of<T>(RTLD_DEFAULT, &shim));  // the shim's (linked)
  ASSERT_NE(dlsym(RTLD_DEFAULT, "dtrsm_"), dlsym(cpu_blas(), "dtrsm_"));
  const char* block = getenv("GPUOPT_BLAS_OOC_BLOCK");
  const char* log = getenv("GPUOPT_BLAS_LOG");
  const bool check_log = block && log && std::string(log) == "1";
  const bool faults = getenv("GPUOPT_BLAS_OOC_FAIL_STEP") != nullptr;
  level3_cases::Plan plan;
  plan.transposes = {'N', 'T', 'C'};
  if (faults) {  // each call drops and remakes the pipeline: fewer calls, all with several steps
    plan.sizes = {300};
    plan.depths = {129};
    plan.transposes = {'N', 'T'};
  }
  if (check_log) testing::internal::CaptureStderr();
  check(shim, cpu, plan);
  if (!check_log) return;
  const std::string text = testing::internal::GetCapturedStderr();
  const std::string want =
      std::string(
          "[gpu] GPUOPT_BLAS_FORCE=gpu; out of core (GPUOPT_BLAS_OOC_BLOCK), blocked, nb=") +
      block + ":";
  size_t lines = 0, pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    // The call lines (not the one line of the first GPU failure of the process).
    if (line.rfind("gpuopt_blas: ", 0) != 0 ||
        (line.find(" [gpu] ") == std::string::npos && line.find(" [cpu] ") == std::string::npos))
      continue;
    ++lines;
    EXPECT_NE(line.find(want), std::string::npos) << line;
    if (faults)  // the step that failed, and every later one, on the CPU
      EXPECT_NE(line.find("; the rest on the CPU after: "), std::string::npos) << line;
    else
      EXPECT_EQ(line.find("on the CPU"), std::string::npos) << line;
  }
  EXPECT_GT(lines, 0u) << "no log line: GPUOPT_BLAS_LOG=1 not seen by the shim?";
}

template <class T>
class Blocked : public ::testing::Test {};
using BlockedTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(Blocked, BlockedTypes, );  // the empty argument: clang -Wpedantic

TYPED_TEST(Blocked, Symm) {
  blocked_cases<TypeParam>([](const auto& shim, const auto& cpu, const auto& plan) {
    level3_cases::check_symm<TypeParam>(shim, cpu, plan);
  });
}
TYPED_TEST(Blocked, Syrk) {
  blocked_cases<TypeParam>([](const auto& shim, const auto& cpu, const auto& plan) {
    level3_cases::check_syrk<TypeParam>(shim, cpu, plan, false);
  });
}
TYPED_TEST(Blocked, Syr2k) {
  blocked_cases<TypeParam>([](const auto& shim, const auto& cpu, const auto& plan) {
    level3_cases::check_syrk<TypeParam>(shim, cpu, plan, true);
  });
}
TYPED_TEST(Blocked, Trmm) {
  blocked_cases<TypeParam>([](const auto& shim, const auto& cpu, const auto& plan) {
    level3_cases::check_triangular<TypeParam>(shim, cpu, plan, false);
  });
}
TYPED_TEST(Blocked, Trsm) {
  blocked_cases<TypeParam>([](const auto& shim, const auto& cpu, const auto& plan) {
    level3_cases::check_triangular<TypeParam>(shim, cpu, plan, true);
  });
}

}  // namespace
