// The gemm table's rule for small products: a single exact-f32 product of at most 2^24
// multiply-adds runs on smem_tiled (measured ahead of cuBLAS on the H100 at 64^3 and 256^3, where
// the call is all latency); larger, batched or non-exact-f32 problems keep their vendor-first rule.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "kernels/gemm/gemm.hpp"
#include "runtime/device.hpp"
#include "runtime/registry.hpp"

namespace {

std::string auto_choice(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                        gpuopt_compute_t compute, gpuopt_dtype_t type = GPUOPT_DTYPE_F32) {
  gpuopt::GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.batch = batch;
  p.a_type = p.c_type = type;
  p.compute = compute;
  p.lda = m;
  p.ldb = k;
  p.ldc = m;
  p.stride_a = m * k;
  p.stride_b = k * n;
  p.stride_c = m * n;
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

}  // namespace
