// gpuopt_gemm on a live context with bad input: each call answers a specific status with a
// message naming gpuopt_gemm and the argument, writes nothing to C, and the context keeps working.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "gemm_harness.hpp"
#include "gpu_fixture.hpp"

namespace {

using gput::GemmCase;
using gput::GemmData;

class GemmBadInput : public gput::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    GemmCase c;
    c.label = "bad input";
    c.m = 40;
    c.n = 24;
    c.k = 16;
    c.alpha = 1.5;
    c.beta = 0.5;
    c.batch = 2;
    h_.reset(new GemmData(gput::gemm_type_configs()[1], c, rng_));  // f32
    ASSERT_TRUE(h_->ok());
    d_ = h_->desc();
  }
  void TearDown() override {
    if (h_) {
      sync();
      EXPECT_TRUE(h_->check_unchanged()) << "a refused call wrote C";
      gput::expect_gemm_still_works(ctx_, stream_, rng_);
    }
    h_.reset();
    GpuTest::TearDown();
  }
  gpuopt_status_t call(const gpuopt_gemm_desc_t* d) const {
    return gpuopt_gemm(ctx_, stream_, d, h_->A(), h_->B(), h_->C());
  }

  std::unique_ptr<GemmData> h_;  // a valid batch of 2 f32 40x24x16 problems, C checked untouched
  gpuopt_gemm_desc_t d_{};       // its descriptor, to spoil
};

TEST_F(GemmBadInput, NullDesc) {
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call(nullptr));
  EXPECT_TRUE(gput::MessageNames("gpuopt_gemm", "desc"));
}

TEST_F(GemmBadInput, StructSizeZero) {
  d_.struct_size = 0;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call(&d_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_gemm", "struct_size"));
}

TEST_F(GemmBadInput, NegativeM) {
  d_.m = -1;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call(&d_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_gemm", "m"));
}

TEST_F(GemmBadInput, NegativeK) {
  d_.k = -3;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call(&d_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_gemm", "k"));
}

TEST_F(GemmBadInput, LdaBelowRows) {
  d_.lda = d_.m - 1;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call(&d_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_gemm", "lda"));
}

TEST_F(GemmBadInput, LdbBelowRowsOfTransposedB) {
  d_.trans_b = GPUOPT_TRANS_T;  // B is stored n x k: ldb must be >= n = 24 (it is 16)
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call(&d_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_gemm", "ldb"));
}

TEST_F(GemmBadInput, BadTranspose) {
  d_.trans_a = static_cast<gpuopt_transpose_t>(7);
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call(&d_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_gemm", "trans_a"));
}

TEST_F(GemmBadInput, NullC) {
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_gemm(ctx_, stream_, &d_, h_->A(), h_->B(), nullptr));
  EXPECT_TRUE(gput::MessageNames("gpuopt_gemm", "C"));
}

TEST_F(GemmBadInput, NullA) {
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_gemm(ctx_, stream_, &d_, nullptr, h_->B(), h_->C()));
  EXPECT_TRUE(gput::MessageNames("gpuopt_gemm", "A"));
}

TEST_F(GemmBadInput, MisalignedC) {
  void* c = static_cast<char*>(h_->C()) + 1;  // inside the allocation, not on a float
  EXPECT_STATUS(GPUOPT_ERROR_MISALIGNED, gpuopt_gemm(ctx_, stream_, &d_, h_->A(), h_->B(), c));
  EXPECT_TRUE(gput::MessageNames("gpuopt_gemm", "C"));
}

TEST_F(GemmBadInput, F64InF32Out) {
  d_.a_type = GPUOPT_DTYPE_F64;
  d_.compute = GPUOPT_COMPUTE_DEFAULT;
  EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED, call(&d_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_gemm"));
}

TEST_F(GemmBadInput, Tf32ComputeWithF64) {
  d_.a_type = GPUOPT_DTYPE_F64;
  d_.c_type = GPUOPT_DTYPE_F64;
  d_.compute = GPUOPT_COMPUTE_TF32;
  EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED, call(&d_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_gemm"));
}

TEST_F(GemmBadInput, BatchesOfCOverlap) {
  d_.stride_c = d_.ldc * d_.n - 1;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call(&d_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_gemm", "stride_c"));
}

TEST_F(GemmBadInput, NegativeBatchCount) {
  d_.batch_count = -2;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, call(&d_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_gemm", "batch_count"));
}

// A forced variant that cannot implement the problem answers UNSUPPORTED and names itself.
TEST_F(GemmBadInput, ForcedVariantRefusesOtherTypes) {
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, "smem_tiled"));
  d_.compute = GPUOPT_COMPUTE_TF32;
  EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED, call(&d_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_gemm", "smem_tiled"));
}

}  // namespace
