// The gemm table's rules where an own rung outranks the vendor: a single exact-f32 product of at
// most 2^24 multiply-adds runs on smem_tiled (measured ahead of cuBLAS on the H100 at 64^3 and
// 256^3, where the call is all latency; larger, batched or non-exact-f32 problems keep their
// vendor-first rule), large 16-bit products with an f32 C and k in [1024, 2048] on
// sm90_tma_wgmma, and cublaslt's own rule (a tile other than the heuristic's first) with cublaslt
// above both where that rule applies.
#include <cublasLt.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "kernels/gemm/f64_tensorcore_build.hpp"
#include "kernels/gemm/gemm.hpp"
#include "runtime/device.hpp"
#include "runtime/registry.hpp"

namespace {

gpuopt::GemmProblem problem(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                            gpuopt_compute_t compute, gpuopt_dtype_t a, gpuopt_dtype_t c) {
  gpuopt::GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.batch = batch;
  p.a_type = a;
  p.c_type = c;
  p.compute = compute;
  p.lda = m;
  p.ldb = k;
  p.ldc = m;
  p.stride_a = m * k;
  p.stride_b = k * n;
  p.stride_c = m * n;
  return p;
}

std::string auto_choice(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                        gpuopt_compute_t compute, gpuopt_dtype_t type = GPUOPT_DTYPE_F32) {
  const gpuopt::GemmProblem p = problem(m, n, k, batch, compute, type, type);
  int count = 0;
  const gpuopt::Variant<gpuopt::GemmProblem>* table = gpuopt::gemm_variants(&count);
  for (int cc : {80, 90}) {
    const gpuopt::Choice ranked =
        gpuopt::choose_variant(table, count, p, type, gpuopt::synthetic_device(cc, 132), -1, false);
    const gpuopt::Choice traced =
        gpuopt::choose_variant(table, count, p, type, gpuopt::synthetic_device(cc, 132), -1, true);
    EXPECT_EQ(ranked.index, traced.index) << "the per-call and the traced rule disagree";
    if (cc == 90) return ranked.index < 0 ? "<none>" : table[ranked.index].meta.name;
  }
  return "<none>";
}

TEST(GemmDispatch, SmallSingleExactF32RunsOnSmemTiled) {
  EXPECT_EQ(auto_choice(64, 64, 64, 1, GPUOPT_COMPUTE_F32), "smem_tiled");
  EXPECT_EQ(auto_choice(256, 256, 256, 1, GPUOPT_COMPUTE_F32), "smem_tiled");
  EXPECT_EQ(auto_choice(1, 1 << 24, 1, 1, GPUOPT_COMPUTE_F32), "smem_tiled");
  EXPECT_EQ(auto_choice(100, 50, 70, 1, GPUOPT_COMPUTE_F32), "smem_tiled");
}

TEST(GemmDispatch, LargerBatchedOrOtherComputeKeepTheirRule) {
  EXPECT_NE(auto_choice(512, 512, 512, 1, GPUOPT_COMPUTE_F32), "smem_tiled");
  EXPECT_NE(auto_choice(257, 256, 256, 1, GPUOPT_COMPUTE_F32), "smem_tiled");
  EXPECT_NE(auto_choice(1 << 20, 1 << 20, 1, 1, GPUOPT_COMPUTE_F32), "smem_tiled")
      << "m x n alone past the bound";
  EXPECT_NE(auto_choice(64, 64, 64, 2, GPUOPT_COMPUTE_F32), "smem_tiled") << "batched";
  EXPECT_NE(auto_choice(64, 64, 64, 1, GPUOPT_COMPUTE_TF32), "smem_tiled") << "tf32";
  EXPECT_NE(auto_choice(64, 64, 64, 1, GPUOPT_COMPUTE_F64, GPUOPT_DTYPE_F64), "smem_tiled")
      << "f64: not measured";
}

// The preference the gemm table's rung `name` gives p on a synthetic device of compute
// capability cc (-1: no such rung).
int rank_of(const char* name, const gpuopt::GemmProblem& p, int cc) {
  int count = 0;
  const gpuopt::Variant<gpuopt::GemmProblem>* table = gpuopt::gemm_variants(&count);
  for (int i = 0; i < count; ++i)
    if (std::string(table[i].meta.name) == name)
      return table[i].preference(p, gpuopt::synthetic_device(cc, 132));
  return -1;
}

// The sm90 rung's rank against the vendor's (cublas ranks 100): above it only for single 16-bit
// products with an f32 C, m and n >= 8192 and 1024 <= k <= 2048, for single 16-bit products with
// m, n, k >= 8192, for single tf32 NN products with m, n, k >= 4096 where cuBLAS's tile waves
// fill poorly or k < max(m, n) on a non-square product, and tf32 TT from 8192 (measured ahead at
// the power cap).
int sm90_rank(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch, gpuopt_dtype_t a,
              gpuopt_dtype_t c, gpuopt_compute_t compute = GPUOPT_COMPUTE_F32,
              gpuopt_transpose_t ta = GPUOPT_TRANS_N, gpuopt_transpose_t tb = GPUOPT_TRANS_N) {
  gpuopt::GemmProblem p = problem(m, n, k, batch, compute, a, c);
  p.trans_a = ta;
  p.trans_b = tb;
  return rank_of("sm90_tma_wgmma", p, 90);
}

TEST(GemmDispatch, Sm90RungRanksAboveTheVendorOnlyWhereMeasuredAhead) {
  constexpr gpuopt_dtype_t bf16 = GPUOPT_DTYPE_BF16, f16 = GPUOPT_DTYPE_F16;
  constexpr gpuopt_dtype_t f32 = GPUOPT_DTYPE_F32;
  EXPECT_GT(sm90_rank(8192, 8192, 1024, 1, bf16, f32), 100);
  EXPECT_GT(sm90_rank(16384, 8192, 2048, 1, f16, f32), 100);
  EXPECT_GT(sm90_rank(8192, 8192, 8192, 1, bf16, f32), 100) << "stream-K tail class";
  EXPECT_GT(sm90_rank(8192, 8192, 8192, 1, bf16, bf16), 100) << "stream-K tail class, bf16 C";
  // tf32 NN single products: (m, n, k, ahead of the vendor, why).
  struct Tf32Case {
    std::int64_t m, n, k;
    bool own;
    const char* why;
  };
  const Tf32Case tf32_nn[] = {
      {8192, 8192, 8192, false, "cuBLAS's waves fill (0.97): behind at the power cap"},
      {4608, 4608, 4608, false, "fill 0.98"},
      {6144, 6144, 6144, false, "fill 0.97"},
      {4096, 4096, 4096, false, "fill 0.97"},
      {5120, 5120, 5120, true, "fill 0.87"},
      {5000, 5000, 5000, true, "fill 0.87"},
      {4100, 4100, 4100, true, "fill 0.85"},
      {4096, 8192, 4096, true, "non-square, k < max(m, n)"},
      {4096, 4096, 6000, false, "non-square with k > max(m, n)"},
      {4096, 4096, 2048, false, "k < 4096: not measured"},
      {2048, 4096, 4096, false, "m < 4096: not measured"},
  };
  for (const Tf32Case& c : tf32_nn) {
    const int r = sm90_rank(c.m, c.n, c.k, 1, f32, f32, GPUOPT_COMPUTE_TF32);
    EXPECT_EQ(r > 100, c.own) << c.m << " x " << c.n << " x " << c.k << ": " << c.why;
  }
  EXPECT_LT(sm90_rank(4096, 4096, 4096, 2, f32, f32, GPUOPT_COMPUTE_TF32), 99) << "tf32 batched";
  EXPECT_LT(sm90_rank(8192, 8192, 8192, 1, f32, f32, GPUOPT_COMPUTE_TF32, GPUOPT_TRANS_T), 99)
      << "tf32 TN: measured mixed";
  EXPECT_GT(
      sm90_rank(8192, 8192, 8192, 1, f32, f32, GPUOPT_COMPUTE_TF32, GPUOPT_TRANS_T, GPUOPT_TRANS_T),
      100)
      << "tf32 TT from 8192";
  EXPECT_LT(
      sm90_rank(6144, 6144, 6144, 1, f32, f32, GPUOPT_COMPUTE_TF32, GPUOPT_TRANS_T, GPUOPT_TRANS_T),
      99)
      << "tf32 TT below 8192: within the power cap's cost";
  EXPECT_LT(
      sm90_rank(4096, 4096, 4096, 1, f32, f32, GPUOPT_COMPUTE_TF32, GPUOPT_TRANS_N, GPUOPT_TRANS_T),
      99)
      << "tf32 NT: refused by the rung";
  EXPECT_LT(sm90_rank(8192, 8192, 4096, 1, bf16, f32), 99) << "2048 < k < 8192: not measured";
  EXPECT_LT(sm90_rank(8192, 8192, 8192, 2, bf16, f32), 99) << "batched";
  EXPECT_LT(sm90_rank(4096, 4096, 4096, 1, bf16, f32), 99) << "4096^3: measured behind";
  EXPECT_LT(sm90_rank(4096, 4096, 1024, 1, bf16, f32), 99) << "smaller m, n: not measured";
  EXPECT_LT(sm90_rank(8192, 8192, 512, 1, bf16, f32), 99) << "shorter k: not measured";
  EXPECT_LT(sm90_rank(8192, 8192, 1024, 1, bf16, bf16), 99) << "bf16 C: measured behind";
  EXPECT_LT(sm90_rank(8192, 8192, 1024, 2, bf16, f32), 99) << "batched";
  EXPECT_LT(sm90_rank(8192, 8192, 1024, 1, f32, f32), 99) << "tf32";
}

// f64_tensorcore's rank against the vendor's (cublas ranks 100): above it only for single NN
// products with m, n, k >= 4096 on cc 9.x (measured ahead at the H100's power cap).
int f64_rank(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch, int cc,
             gpuopt_transpose_t ta = GPUOPT_TRANS_N, gpuopt_transpose_t tb = GPUOPT_TRANS_N) {
  gpuopt::GemmProblem p =
      problem(m, n, k, batch, GPUOPT_COMPUTE_F64, GPUOPT_DTYPE_F64, GPUOPT_DTYPE_F64);
  p.trans_a = ta;
  p.trans_b = tb;
  return rank_of("f64_tensorcore", p, cc);
}

TEST(GemmDispatch, F64TensorcoreRanksAboveTheVendorOnlyWhereMeasuredAhead) {
  // Only where this build holds the warp-specialized sm_90a kernel (a build for 80 alone, as CI's,
  // keeps the vendor everywhere).
  const bool ws = gpuopt::gemm_f64_tensorcore_ws_built();
  EXPECT_EQ(f64_rank(4096, 4096, 4096, 1, 90) > 100, ws);
  EXPECT_EQ(f64_rank(8192, 8192, 8192, 1, 90) > 100, ws);
  EXPECT_EQ(f64_rank(5000, 8192, 4096, 1, 90) > 100, ws);
  EXPECT_LT(f64_rank(4096, 4096, 4096, 1, 80), 99) << "sm_80's m8n8k4 kernel: not measured";
  EXPECT_LT(f64_rank(4096, 4096, 4096, 1, 100), 99) << "other architectures: not measured";
  EXPECT_LT(f64_rank(2048, 2048, 2048, 1, 90), 99) << "smaller: not measured";
  EXPECT_LT(f64_rank(8192, 8192, 2048, 1, 90), 99) << "short k: not measured";
  EXPECT_LT(f64_rank(4096, 4096, 4096, 2, 90), 99) << "batched";
  EXPECT_LT(f64_rank(4096, 4096, 4096, 1, 90, GPUOPT_TRANS_T), 99) << "TN: not measured";
  EXPECT_LT(f64_rank(4096, 4096, 4096, 1, 90, GPUOPT_TRANS_N, GPUOPT_TRANS_T), 99) << "NT";
  EXPECT_EQ(auto_choice(8192, 8192, 8192, 1, GPUOPT_COMPUTE_F64, GPUOPT_DTYPE_F64),
            ws ? "f64_tensorcore" : "cublas");
  EXPECT_EQ(auto_choice(2048, 2048, 2048, 1, GPUOPT_COMPUTE_F64, GPUOPT_DTYPE_F64), "cublas");
}

// cublaslt's own rule: the heuristic's 128 x 160 algorithm for single bf16 NN products with m, n
// >= 8192 and k = 1024 on cc 9.0 (measured 1.08-1.19 x its first choice on the H100), its 128 x 64
// one for bf16 batches of at least 256 products of 256^3 (1.010-1.028 x), and there cublaslt
// outranks every rung; elsewhere the heuristic's first and a rank below cuBLAS.
struct LtRuleCase {
  std::int64_t m, n, k, batch;
  gpuopt_dtype_t a, c;
  int cc;
  gpuopt_transpose_t ta;
  int tile;  // what the rule must answer
  const char* why;
};

TEST(GemmDispatch, CublasLtRuleTakesAnotherTileOnlyWhereMeasured) {
  constexpr gpuopt_dtype_t bf16 = GPUOPT_DTYPE_BF16, f16 = GPUOPT_DTYPE_F16;
  constexpr gpuopt_dtype_t f32 = GPUOPT_DTYPE_F32;
  constexpr gpuopt_transpose_t N = GPUOPT_TRANS_N, T = GPUOPT_TRANS_T;
  constexpr int k160 = CUBLASLT_MATMUL_TILE_128x160, k64 = CUBLASLT_MATMUL_TILE_128x64;
  const LtRuleCase cases[] = {
      {8192, 8192, 1024, 1, bf16, f32, 90, N, k160, "measured"},
      {8192, 8192, 1024, 1, bf16, bf16, 90, N, k160, "measured, bf16 C"},
      {16384, 8192, 1024, 1, bf16, f32, 90, N, k160, "larger m"},
      {8192, 8192, 2048, 1, bf16, f32, 90, N, 0, "k = 2048: not measured"},
      {8192, 8192, 512, 1, bf16, f32, 90, N, 0, "k = 512: not measured"},
      {4096, 8192, 1024, 1, bf16, f32, 90, N, 0, "m < 8192: not measured"},
      {8192, 8192, 1024, 2, bf16, f32, 90, N, 0, "batched"},
      {8192, 8192, 1024, 1, f16, f32, 90, N, 0, "f16: not measured"},
      {8192, 8192, 1024, 1, bf16, f32, 80, N, 0, "sm_80: not measured"},
      {8192, 8192, 1024, 1, bf16, f32, 90, T, 0, "TN"},
      // Strided batches of small products: the 128 x 64 algorithm (measured at 512 x 256^3).
      {256, 256, 256, 512, bf16, f32, 90, N, k64, "measured"},
      {256, 256, 256, 512, bf16, bf16, 90, N, k64, "measured, bf16 C"},
      {300, 511, 256, 256, bf16, f32, 90, N, k64, "inside the class"},
      {256, 256, 256, 128, bf16, f32, 90, N, 0, "fewer than 256: not measured"},
      {512, 256, 256, 512, bf16, f32, 90, N, 0, "m = 512: not measured"},
      {128, 256, 256, 512, bf16, f32, 90, N, 0, "m = 128: not measured"},
      {256, 256, 256, 512, f16, f32, 90, N, 0, "f16: not measured"},
      {256, 256, 256, 512, f32, f32, 90, N, 0, "f32: measured no faster"},
  };
  for (const LtRuleCase& t : cases) {
    gpuopt::GemmProblem pr = problem(t.m, t.n, t.k, t.batch, GPUOPT_COMPUTE_F32, t.a, t.c);
    pr.trans_a = t.ta;
    EXPECT_EQ(gpuopt::gemm_cublaslt_rule_tile(pr, gpuopt::synthetic_device(t.cc, 132)), t.tile)
        << t.m << " x " << t.n << " x " << t.k << " batch " << t.batch << ": " << t.why;
  }

  const gpuopt::GemmProblem p = problem(8192, 8192, 1024, 1, GPUOPT_COMPUTE_F32, bf16, f32);
  EXPECT_GT(rank_of("cublaslt", p, 90), rank_of("sm90_tma_wgmma", p, 90));
  EXPECT_GT(rank_of("cublaslt", p, 90), rank_of("cublas", p, 90));
  EXPECT_EQ(auto_choice(8192, 8192, 1024, 1, GPUOPT_COMPUTE_F32, bf16), "cublaslt");
  const gpuopt::GemmProblem q = problem(4096, 4096, 4096, 1, GPUOPT_COMPUTE_F32, bf16, f32);
  EXPECT_LT(rank_of("cublaslt", q, 90), rank_of("cublas", q, 90));
  EXPECT_EQ(auto_choice(256, 256, 256, 512, GPUOPT_COMPUTE_F32, bf16), "cublaslt");
  EXPECT_EQ(auto_choice(256, 256, 256, 512, GPUOPT_COMPUTE_F32, GPUOPT_DTYPE_F32), "cublas");
}

}  // namespace
