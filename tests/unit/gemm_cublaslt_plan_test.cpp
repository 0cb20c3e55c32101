// The cublaslt gemm rung's plan cache (src/kernels/gemm/cublaslt_plan.hpp), host side: what
// makes a problem class (alignment of every matrix of a batch, not the pointers), and the cache's
// first-wins insert and bounded size. Plans here hold no cuBLASLt descriptors (no GPU needed).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "kernels/gemm/cublaslt_plan.hpp"

namespace {

using gpuopt::GemmProblem;
using gpuopt::LtKey;
using gpuopt::LtPlan;
using gpuopt::LtPlanCache;

const void* at(std::uintptr_t address) { return reinterpret_cast<const void*>(address); }

GemmProblem problem() {
  GemmProblem p;
  p.m = 200;
  p.n = 136;
  p.k = 72;
  p.lda = 200;
  p.ldb = 72;
  p.ldc = 200;
  p.A = at(0x10000);
  p.B = at(0x20000);
  p.C = reinterpret_cast<void*>(0x30000);
  return p;
}

TEST(GemmCublasLtPlan, AlignmentOfEveryMatrixOfTheBatch) {
  EXPECT_EQ(gpuopt::lt_alignment(at(0x10000), 0, 4, 1), 256u);  // capped at 256
  EXPECT_EQ(gpuopt::lt_alignment(at(0x10010), 0, 4, 1), 16u);
  EXPECT_EQ(gpuopt::lt_alignment(at(0x10004), 0, 4, 1), 4u);
  EXPECT_EQ(gpuopt::lt_alignment(at(0x10002), 0, 2, 1), 2u);
  // A batch: ptr + i * stride must be aligned too.
  EXPECT_EQ(gpuopt::lt_alignment(at(0x10000), 1000, 4, 3), 32u);  // 4000 bytes = 32 * 125
  EXPECT_EQ(gpuopt::lt_alignment(at(0x10000), 1001, 4, 3), 4u);
  EXPECT_EQ(gpuopt::lt_alignment(at(0x10000), 0, 8, 3), 256u);  // broadcast: stride 0
  // The stride of a single matrix does not matter.
  EXPECT_EQ(gpuopt::lt_alignment(at(0x10000), 1001, 4, 1), 256u);
}

TEST(GemmCublasLtPlan, ClassIgnoresPointersButNotAlignment) {
  const gpuopt::DeviceDesc h100 = gpuopt::synthetic_device(90, 132);
  const GemmProblem p = problem();
  const LtKey k = gpuopt::lt_key(p, h100, 32u << 20);
  GemmProblem moved = p;  // other buffers, same alignment
  moved.A = at(0x50000);
  moved.C = reinterpret_cast<void*>(0x70100);
  EXPECT_EQ(gpuopt::lt_key(moved, h100, 32u << 20), k);
  EXPECT_EQ(gpuopt::LtKeyHash()(gpuopt::lt_key(moved, h100, 32u << 20)), gpuopt::LtKeyHash()(k));
  moved.alpha = 2.0;  // scalars are call arguments, not part of the plan
  moved.beta = 1.0;
  EXPECT_EQ(gpuopt::lt_key(moved, h100, 32u << 20), k);

  GemmProblem misaligned = p;
  misaligned.B = at(0x20004);
  EXPECT_FALSE(gpuopt::lt_key(misaligned, h100, 32u << 20) == k);
  GemmProblem c_misaligned = p;
  c_misaligned.C = reinterpret_cast<void*>(0x30008);
  EXPECT_FALSE(gpuopt::lt_key(c_misaligned, h100, 32u << 20) == k);
  GemmProblem transposed = p;
  transposed.trans_a = GPUOPT_TRANS_T;
  EXPECT_FALSE(gpuopt::lt_key(transposed, h100, 32u << 20) == k);
  GemmProblem tf32 = p;
  tf32.compute = GPUOPT_COMPUTE_TF32;
  EXPECT_FALSE(gpuopt::lt_key(tf32, h100, 32u << 20) == k);
  GemmProblem wider = p;
  wider.ldc = 208;
  EXPECT_FALSE(gpuopt::lt_key(wider, h100, 32u << 20) == k);
  EXPECT_FALSE(gpuopt::lt_key(p, gpuopt::synthetic_device(80, 108), 32u << 20) == k);
  EXPECT_FALSE(gpuopt::lt_key(p, h100, 4u << 20) == k);

  // Batch strides count only for batches.
  GemmProblem strided = p;
  strided.stride_a = 12345;
  EXPECT_EQ(gpuopt::lt_key(strided, h100, 32u << 20), k);
  strided.batch = 2;
  EXPECT_FALSE(gpuopt::lt_key(strided, h100, 32u << 20) == k);
}

TEST(GemmCublasLtPlan, CacheKeepsTheFirstPlanAndStaysBounded) {
  const gpuopt::DeviceDesc dev = gpuopt::synthetic_device(90, 132);
  LtPlanCache cache(4);
  GemmProblem p = problem();
  const LtKey k0 = gpuopt::lt_key(p, dev, 1 << 20);
  EXPECT_EQ(cache.find(k0), nullptr);
  auto first = std::make_shared<LtPlan>();
  first->has_algo = true;
  const std::shared_ptr<const LtPlan> got = cache.insert(k0, first);
  EXPECT_EQ(got.get(), first.get());
  EXPECT_EQ(cache.find(k0).get(), first.get());
  // A second planner of the same class (another thread) gets the cached plan.
  EXPECT_EQ(cache.insert(k0, std::make_shared<LtPlan>()).get(), first.get());
  EXPECT_EQ(cache.size(), 1u);

  std::shared_ptr<const LtPlan> in_flight = cache.find(k0);
  for (std::int64_t m = 1; m <= 4; ++m) {
    p.m = m;
    cache.insert(gpuopt::lt_key(p, dev, 1 << 20), std::make_shared<LtPlan>());
    EXPECT_LE(cache.size(), 4u);
  }
  EXPECT_EQ(cache.find(k0), nullptr);  // started over at capacity
  EXPECT_TRUE(in_flight->has_algo);    // a plan in use outlives its eviction
}

}  // namespace
