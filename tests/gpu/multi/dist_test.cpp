// Distributed GEMM and reduction on every GPU of this machine, one process (a thread per rank):
// gpuopt_gemm_dist against one-GPU cuBLAS (f64 within 1e-12 relative) for 1 x P, P x 1 and 2D
// grids, sizes no multiple of the blocks (uneven last blocks), scatter from host and from device
// memory, a graph capture; gpuopt_reduce_dist against the host and bitwise repeatable. With
// GPUOPT_MULTI_GPU_HASH_FILE set, the example's problem (examples/c/dist_gemm.c) is solved too
// and the FNV-1a hash of its C written there, for the one-process-per-GPU comparison.
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "world.hpp"

namespace {

using multi::World;

struct Problem {
  int pr, pc;
  int64_t m, n, k, mb, nb, kb;
  gpuopt_dtype_t a_type = GPUOPT_DTYPE_F64, c_type = GPUOPT_DTYPE_F64;
  gpuopt_compute_t compute = GPUOPT_COMPUTE_DEFAULT;
  bool from_device = false;  // scatter from device memory of rank 0 instead of host memory
  bool graph = false;        // capture gpuopt_gemm_dist in a graph and launch that
  bool pad = true;           // local leading dimensions 3 past the local rows
  double alpha = 1.5, beta = 0.5;
};

// Host matrices in their storage types; values from a fixed generator (the example's, for the
// hash test: x_i = ((i * 2654435761) mod 2^32) / 2^32 - 0.5, over A then B then C).
struct Host {
  std::vector<unsigned char> A, B, C;
};

double gen(uint64_t i) {
  return static_cast<double>((i * 2654435761ull) & 0xffffffffull) / 4294967296.0 - 0.5;
}

void fill(std::vector<unsigned char>* v, gpuopt_dtype_t t, int64_t count, uint64_t first) {
  const size_t e = multi::dtype_bytes(t);
  v->assign(static_cast<size_t>(count) * e, 0);
  for (int64_t i = 0; i < count; ++i) {
    const double x = gen(first + static_cast<uint64_t>(i));
    unsigned char* p = &(*v)[static_cast<size_t>(i) * e];
    if (t == GPUOPT_DTYPE_F64) {
      std::memcpy(p, &x, 8);
    } else {
      const float f = static_cast<float>(x);
      if (t == GPUOPT_DTYPE_F32) {
        std::memcpy(p, &f, 4);
      } else {  // bf16: round to nearest even
        uint32_t b;
        std::memcpy(&b, &f, 4);
        const uint16_t h = static_cast<uint16_t>((b + 0x7fff + ((b >> 16) & 1)) >> 16);
        std::memcpy(p, &h, 2);
      }
    }
  }
}

class Dist : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = multi::why_not();
    if (!why.empty()) GTEST_SKIP() << why;
    gpuopt_device_count(&P_);
    world_.create(P_);
  }
  void TearDown() override {
    if (world_.size()) world_.destroy();
  }

  // cuBLAS on device 0 (gpuopt_gemm forced to its `cublas` variant): the reference C.
  std::vector<unsigned char> reference(const Problem& p, const Host& h) {
    const multi::Rank& k = world_.ranks[0];
    const size_t ea = multi::dtype_bytes(p.a_type), ec = multi::dtype_bytes(p.c_type);
    cudaSetDevice(0);
    void *A, *B, *C;
    cudaMalloc(&A, h.A.size());
    cudaMalloc(&B, h.B.size());
    cudaMalloc(&C, h.C.size());
    cudaMemcpy(A, h.A.data(), h.A.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(B, h.B.data(), h.B.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(C, h.C.data(), h.C.size(), cudaMemcpyHostToDevice);
    gpuopt_gemm_desc_t d{};
    d.struct_size = sizeof d;
    d.m = p.m;
    d.n = p.n;
    d.k = p.k;
    d.alpha = p.alpha;
    d.beta = p.beta;
    d.a_type = p.a_type;
    d.c_type = p.c_type;
    d.compute = p.compute;
    d.lda = p.m;
    d.ldb = p.k;
    d.ldc = p.m;
    EXPECT_EQ(gpuopt_context_set_variant(k.ctx, GPUOPT_OP_GEMM, "cublas"), GPUOPT_SUCCESS);
    EXPECT_EQ(gpuopt_gemm(k.ctx, k.stream, &d, A, B, C), GPUOPT_SUCCESS) << multi::message();
    EXPECT_EQ(gpuopt_context_set_variant(k.ctx, GPUOPT_OP_GEMM, "auto"), GPUOPT_SUCCESS);
    EXPECT_EQ(gpuopt_stream_synchronize(k.stream), GPUOPT_SUCCESS);
    std::vector<unsigned char> out(h.C.size());
    cudaMemcpy(out.data(), C, out.size(), cudaMemcpyDeviceToHost);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    (void)ea;
    (void)ec;
    return out;
  }

  // Scatter, gpuopt_gemm_dist, gather to host on rank 0: the distributed C.
  std::vector<unsigned char> distributed(const Problem& p, const Host& h) {
    std::vector<unsigned char> out(h.C.size(), 0xff);
    void* dev_src[3] = {nullptr, nullptr, nullptr};  // A, B, C on device 0 (from_device)
    if (p.from_device) {
      cudaSetDevice(0);
      const std::vector<unsigned char>* src[3] = {&h.A, &h.B, &h.C};
      for (int i = 0; i < 3; ++i) {
        cudaMalloc(&dev_src[i], src[i]->size());
        cudaMemcpy(dev_src[i], src[i]->data(), src[i]->size(), cudaMemcpyHostToDevice);
      }
    }
    const bool ok = world_.each([&](int r) {
      const multi::Rank& k = world_.ranks[r];
      gpuopt_grid_t grid = nullptr;
      ASSERT_EQ(gpuopt_grid_create(k.comm, p.pr, p.pc, &grid), GPUOPT_SUCCESS) << multi::message();
      int row = -1, col = -1;
      ASSERT_EQ(gpuopt_grid_info(grid, nullptr, nullptr, &row, &col), GPUOPT_SUCCESS);
      auto desc = [&](gpuopt_dtype_t t, int64_t rows, int64_t cols, int64_t rb, int64_t cb) {
        gpuopt_dist_desc_t d{};
        d.struct_size = sizeof d;
        d.dtype = t;
        d.rows = rows;
        d.cols = cols;
        d.row_block = rb;
        d.col_block = cb;
        d.grid_rows = p.pr;
        d.grid_cols = p.pc;
        int64_t lr = 0, lc = 0;
        EXPECT_EQ(gpuopt_dist_local_shape(&d, row, col, &lr, &lc), GPUOPT_SUCCESS);
        d.ld = lr + (p.pad ? 3 : 0);  // padded: local matrices need not be packed
        return d;
      };
      const gpuopt_dist_desc_t da = desc(p.a_type, p.m, p.k, p.mb, p.kb);
      const gpuopt_dist_desc_t db = desc(p.a_type, p.k, p.n, p.kb, p.nb);
      const gpuopt_dist_desc_t dc = desc(p.c_type, p.m, p.n, p.mb, p.nb);
      auto local = [&](const gpuopt_dist_desc_t& d) {
        int64_t lr = 0, lc = 0;
        gpuopt_dist_local_shape(&d, row, col, &lr, &lc);
        void* ptr = nullptr;
        cudaSetDevice(r);
        cudaMalloc(&ptr,
                   static_cast<size_t>(d.ld * (lc > 0 ? lc : 1)) * multi::dtype_bytes(d.dtype));
        return ptr;
      };
      void* A = local(da);
      void* B = local(db);
      void* C = local(dc);
      const void* srcA = p.from_device ? dev_src[0] : h.A.data();
      const void* srcB = p.from_device ? dev_src[1] : h.B.data();
      const void* srcC = p.from_device ? dev_src[2] : h.C.data();
      EXPECT_EQ(gpuopt_dist_scatter(grid, k.stream, &da, 0, r == 0 ? srcA : nullptr, p.m, A),
                GPUOPT_SUCCESS)
          << multi::message();
      EXPECT_EQ(gpuopt_dist_scatter(grid, k.stream, &db, 0, r == 0 ? srcB : nullptr, p.k, B),
                GPUOPT_SUCCESS)
          << multi::message();
      EXPECT_EQ(gpuopt_dist_scatter(grid, k.stream, &dc, 0, r == 0 ? srcC : nullptr, p.m, C),
                GPUOPT_SUCCESS)
          << multi::message();
      gpuopt_gemm_dist_desc_t g{};
      g.struct_size = sizeof g;
      g.m = p.m;
      g.n = p.n;
      g.k = p.k;
      g.alpha = p.alpha;
      g.beta = p.beta;
      g.a_type = p.a_type;
      g.c_type = p.c_type;
      g.compute = p.compute;
      g.mb = p.mb;
      g.nb = p.nb;
      g.kb = p.kb;
      g.lda = da.ld;
      g.ldb = db.ld;
      g.ldc = dc.ld;
      size_t ws_bytes = 0;
      EXPECT_EQ(gpuopt_gemm_dist_workspace_size(grid, &g, &ws_bytes), GPUOPT_SUCCESS);
      void* ws = nullptr;
      cudaMalloc(&ws, ws_bytes ? ws_bytes : 1);
      if (p.graph) {
        // NCCL connects peers at first use, which a capture forbids: the same broadcasts once
        // outside it, as C = 0 A B + 1 C (C unchanged).
        gpuopt_gemm_dist_desc_t warm = g;
        warm.alpha = 0.0;
        warm.beta = 1.0;
        EXPECT_EQ(gpuopt_gemm_dist(grid, k.stream, &warm, A, B, C, ws, ws_bytes), GPUOPT_SUCCESS)
            << multi::message();
        EXPECT_EQ(gpuopt_stream_synchronize(k.stream), GPUOPT_SUCCESS);
        gpuopt_graph_t gr = nullptr;
        EXPECT_EQ(gpuopt_graph_begin(k.ctx, k.stream), GPUOPT_SUCCESS) << multi::message();
        EXPECT_EQ(gpuopt_gemm_dist(grid, k.stream, &g, A, B, C, ws, ws_bytes), GPUOPT_SUCCESS)
            << multi::message();
        EXPECT_EQ(gpuopt_graph_end(k.stream, &gr), GPUOPT_SUCCESS) << multi::message();
        EXPECT_EQ(gpuopt_graph_launch(gr, k.stream), GPUOPT_SUCCESS) << multi::message();
        EXPECT_EQ(gpuopt_stream_synchronize(k.stream), GPUOPT_SUCCESS);
        gpuopt_graph_destroy(gr);
      } else {
        EXPECT_EQ(gpuopt_gemm_dist(grid, k.stream, &g, A, B, C, ws, ws_bytes), GPUOPT_SUCCESS)
            << multi::message();
      }
      EXPECT_EQ(gpuopt_dist_gather(grid, k.stream, &dc, 0, C, r == 0 ? out.data() : nullptr, p.m),
                GPUOPT_SUCCESS)
          << multi::message();
      EXPECT_EQ(gpuopt_stream_synchronize(k.stream), GPUOPT_SUCCESS) << multi::message();
      cudaSetDevice(r);
      cudaFree(A);
      cudaFree(B);
      cudaFree(C);
      cudaFree(ws);
      EXPECT_EQ(gpuopt_grid_destroy(grid), GPUOPT_SUCCESS) << multi::message();
    });
    EXPECT_TRUE(ok) << "a rank hung";
    if (p.from_device) {
      cudaSetDevice(0);
      for (void* q : dev_src) cudaFree(q);
    }
    return out;
  }

  Host host_of(const Problem& p) {
    Host h;
    fill(&h.A, p.a_type, p.m * p.k, 0);
    fill(&h.B, p.a_type, p.k * p.n, static_cast<uint64_t>(p.m * p.k));
    fill(&h.C, p.c_type, p.m * p.n, static_cast<uint64_t>(p.m * p.k + p.k * p.n));
    return h;
  }

  // Relative Frobenius distance of the distributed C from the reference.
  double check(const Problem& p, double tol) {
    const Host h = host_of(p);
    const std::vector<unsigned char> ref = reference(p, h);
    const std::vector<unsigned char> got = distributed(p, h);
    const size_t ec = multi::dtype_bytes(p.c_type);
    double num = 0, den = 0;
    for (int64_t i = 0; i < p.m * p.n; ++i) {
      const double a = multi::decode(p.c_type, &got[static_cast<size_t>(i) * ec]);
      const double b = multi::decode(p.c_type, &ref[static_cast<size_t>(i) * ec]);
      num += (a - b) * (a - b);
      den += b * b;
    }
    const double rel = std::sqrt(num / (den > 0 ? den : 1));
    EXPECT_LE(rel, tol) << p.pr << " x " << p.pc << " grid, " << p.m << " x " << p.n << " x " << p.k
                        << ", blocks " << p.mb << "/" << p.nb << "/" << p.kb << " "
                        << gpuopt_dtype_name(p.a_type);
    return rel;
  }

  int P_ = 0;
  World world_;
};

TEST_F(Dist, GemmF64MatchesCublasOnEveryGridShape) {
  // Sizes no multiple of any block: every grid has uneven last blocks.
  std::vector<std::pair<int, int>> grids = {{1, P_}, {P_, 1}};
  if (P_ == 4) grids.push_back({2, 2});
  for (auto [pr, pc] : grids) {
    check({pr, pc, 517, 389, 301, 64, 48, 40}, 1e-12);
    check({pr, pc, 100, 90, 80, 7, 11, 13}, 1e-12);        // many small blocks
    check({pr, pc, 33, 35, 37, 1000, 1000, 1000}, 1e-12);  // one block: ranks that hold nothing
  }
}

TEST_F(Dist, GemmFromDeviceMemoryAndInAGraph) {
  Problem p{1, P_, 300, 280, 260, 64, 64, 32};
  p.from_device = true;
  check(p, 1e-12);
  p.from_device = false;
  p.graph = true;
  check(p, 1e-12);
}

TEST_F(Dist, GemmOtherTypes) {
  Problem p{P_, 1, 384, 320, 256, 64, 64, 64};
  p.a_type = p.c_type = GPUOPT_DTYPE_F32;
  check(p, 1e-5);
  p.compute = GPUOPT_COMPUTE_TF32;
  check(p, 5e-3);
  p.a_type = GPUOPT_DTYPE_BF16;
  p.compute = GPUOPT_COMPUTE_DEFAULT;
  check(p, 2e-2);
}

TEST_F(Dist, BadGemmArgumentsAnswerBeforeAnythingIsEnqueued) {
  ASSERT_TRUE(world_.each([&](int r) {
    const multi::Rank& k = world_.ranks[r];
    gpuopt_grid_t grid = nullptr;
    EXPECT_EQ(gpuopt_grid_create(k.comm, 3, 5, &grid), GPUOPT_ERROR_INVALID_ARGUMENT);
    ASSERT_EQ(gpuopt_grid_create(k.comm, 1, P_, &grid), GPUOPT_SUCCESS) << multi::message();
    gpuopt_gemm_dist_desc_t g{};
    g.struct_size = sizeof g;
    g.m = g.n = g.k = 64;
    g.mb = g.nb = g.kb = 16;
    g.a_type = GPUOPT_DTYPE_F64;
    g.c_type = GPUOPT_DTYPE_F32;
    g.lda = g.ldb = g.ldc = 64;
    EXPECT_EQ(gpuopt_gemm_dist(grid, k.stream, &g, nullptr, nullptr, nullptr, nullptr, 0),
              GPUOPT_ERROR_UNSUPPORTED)
        << multi::message();
    g.c_type = GPUOPT_DTYPE_F64;
    EXPECT_EQ(gpuopt_gemm_dist(grid, k.stream, &g, nullptr, nullptr, nullptr, nullptr, 0),
              GPUOPT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(multi::message().find("A"), std::string::npos) << multi::message();
    g.kb = 0;
    EXPECT_EQ(gpuopt_gemm_dist(grid, k.stream, &g, nullptr, nullptr, nullptr, nullptr, 0),
              GPUOPT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(multi::message().find("kb"), std::string::npos) << multi::message();
    EXPECT_EQ(gpuopt_grid_destroy(grid), GPUOPT_SUCCESS);
  }));
}

TEST_F(Dist, ReduceIsExactOrDeterministicAcrossRanks) {
  const int64_t n = 1000003;
  std::vector<void*> in(P_), out(P_);
  std::vector<float> host(static_cast<size_t>(n) * P_);
  for (int r = 0; r < P_; ++r) {
    for (int64_t i = 0; i < n; ++i)
      host[r * n + i] = static_cast<float>(gen(static_cast<uint64_t>(r * n + i)));
    cudaSetDevice(r);
    cudaMalloc(&in[r], n * sizeof(float));
    cudaMalloc(&out[r], 2 * sizeof(double));
    cudaMemcpy(in[r], &host[r * n], n * sizeof(float), cudaMemcpyHostToDevice);
  }
  double ref = 0, ref_max = -1e300;
  for (float x : host) {
    ref += x;
    ref_max = std::max(ref_max, static_cast<double>(x));
  }
  std::vector<float> first(P_), second(P_), mx(P_);
  for (int run = 0; run < 2; ++run)
    ASSERT_TRUE(world_.each([&](int r) {
      const multi::Rank& k = world_.ranks[r];
      gpuopt_reduce_desc_t d{};
      d.struct_size = sizeof d;
      d.op = GPUOPT_REDUCE_SUM;
      d.in_type = GPUOPT_DTYPE_F32;
      d.n = n;
      EXPECT_EQ(gpuopt_reduce_dist(k.comm, k.stream, &d, in[r], out[r]), GPUOPT_SUCCESS)
          << multi::message();
      float v = 0;
      cudaSetDevice(r);
      EXPECT_EQ(gpuopt_stream_synchronize(k.stream), GPUOPT_SUCCESS);
      cudaMemcpy(&v, out[r], 4, cudaMemcpyDeviceToHost);
      (run ? second : first)[r] = v;
      d.op = GPUOPT_REDUCE_MAX;
      EXPECT_EQ(gpuopt_reduce_dist(k.comm, k.stream, &d, in[r], out[r]), GPUOPT_SUCCESS);
      EXPECT_EQ(gpuopt_stream_synchronize(k.stream), GPUOPT_SUCCESS);
      cudaMemcpy(&mx[r], out[r], 4, cudaMemcpyDeviceToHost);
    }));
  for (int r = 0; r < P_; ++r) {
    EXPECT_EQ(std::memcmp(&first[r], &first[0], 4), 0) << "ranks disagree";
    EXPECT_EQ(std::memcmp(&second[r], &first[r], 4), 0) << "not repeatable";
    EXPECT_NEAR(first[r], ref, 1e-5 * n) << "rank " << r;
    EXPECT_EQ(mx[r], static_cast<float>(ref_max));
  }
  for (int r = 0; r < P_; ++r) {
    cudaSetDevice(r);
    cudaFree(in[r]);
    cudaFree(out[r]);
  }
}

// The problem of examples/c/dist_gemm.c (1 x P grid, f64, 2048 x 2048 x 2048, blocks 256,
// alpha 1, beta 0) solved in this one process; its C hashed for scripts/multi-gpu-check.sh.
TEST_F(Dist, ExampleProblemHashForTheMultiProcessComparison) {
  const char* file = std::getenv("GPUOPT_MULTI_GPU_HASH_FILE");
  if (!file || !*file)
    GTEST_SKIP() << "set GPUOPT_MULTI_GPU_HASH_FILE (scripts/multi-gpu-check.sh)";
  Problem p{1, P_, 2048, 2048, 2048, 256, 256, 256};
  p.alpha = 1.0;
  p.beta = 0.0;
  p.pad = false;  // as the example: the same local layouts, so the same local GEMMs
  const Host h = host_of(p);
  const std::vector<unsigned char> c = distributed(p, h);
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char b : c) hash = (hash ^ b) * 1099511628211ull;
  FILE* f = std::fopen(file, "w");
  ASSERT_NE(f, nullptr);
  std::fprintf(f, "%016llx\n", static_cast<unsigned long long>(hash));
  std::fclose(f);
}

}  // namespace
