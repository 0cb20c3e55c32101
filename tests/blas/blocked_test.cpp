// The blocked algorithms of the out-of-core path (src/blas/blocked_steps.hpp) on the CPU: their
// steps run on the CPU BLAS, and every flag combination of symm, syrk, syr2k, trmm and trsm on odd
// sizes with odd blocks must match the CPU BLAS's own routine, keeping the reference semantics
// (level3_cases.hpp). Host only: the GPU's steps are checked by blas_gpu_test.cpp's Blocked.*.
#include <gtest/gtest.h>

#include "blocked_steps.hpp"
#include "level3_cases.hpp"

namespace {

using level3_cases::Level3;

// gemm, trmm and trsm of the CPU BLAS, by value.
template <class T>
struct CpuGemm {
  using Gemm = void (*)(const char*, const char*, const int*, const int*, const int*, const T*,
                        const T*, const int*, const T*, const int*, const T*, T*, const int*,
                        size_t, size_t);
  Gemm gemm = nullptr;
  Level3<T> l3;
  bool load() {
    void* h = level3_cases::cpu_blas();
    if (!h || !level3_cases::level3_of<T>(h, &l3)) return false;
    gemm = reinterpret_cast<Gemm>(dlsym(h, sizeof(T) == 8 ? "dgemm_" : "sgemm_"));
    return gemm != nullptr;
  }
};

// The steps on the CPU BLAS, checking the contract of blocked_steps.hpp as they go.
template <class T>
class CpuSteps final : public gpuopt_blas::BlockSteps<T> {
 public:
  CpuSteps(const CpuGemm<T>& cpu, long nb) : cpu_(cpu), nb_(nb) {}
  long nb() const override { return nb_; }
  void gemm(char ta, char tb, long m, long n, long k, T alpha, const T* A, long lda, const T* B,
            long ldb, T beta, T* C, long ldc) override {
    EXPECT_TRUE(m > 0 && n > 0 && k > 0) << "gemm step of an empty size";
    const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k),
              la = static_cast<int>(lda), lb = static_cast<int>(ldb), lc = static_cast<int>(ldc);
    cpu_.gemm(&ta, &tb, &mi, &ni, &ki, &alpha, A, &la, B, &lb, &beta, C, &lc, 1, 1);
    ++gemms;
  }
  void triangular(bool solve, char side, char uplo, char ta, char diag, long m, long n, T alpha,
                  const T* A, long lda, T* B, long ldb) override {
    EXPECT_TRUE(m > 0 && n > 0 && m <= nb_ && n <= nb_) << "diagonal step of " << m << "x" << n;
    const auto& f = solve ? cpu_.l3.trsm : cpu_.l3.trmm;
    f(side, uplo, ta, diag, static_cast<int>(m), static_cast<int>(n), alpha, A,
      static_cast<int>(lda), B, static_cast<int>(ldb));
    ++steps;
  }
  long gemms = 0, steps = 0;

 private:
  const CpuGemm<T>& cpu_;
  long nb_;
};

// The blocked routines with blocks of @p nb, as routines under test.
template <class T>
Level3<T> blocked(const CpuGemm<T>& cpu, long nb) {
  Level3<T> t;
  t.symm = [&cpu, nb](char s, char u, int m, int n, T al, const T* A, int lda, const T* B, int ldb,
                      T be, T* C, int ldc) {
    CpuSteps<T> st(cpu, nb);
    gpuopt_blas::blocked_symm<T>(st, s, u, m, n, al, A, lda, B, ldb, be, C, ldc);
  };
  t.syrk = [&cpu, nb](char u, char tr, int n, int k, T al, const T* A, int lda, T be, T* C,
                      int ldc) {
    CpuSteps<T> st(cpu, nb);
    gpuopt_blas::blocked_syr2k<T>(st, u, tr, n, k, al, A, lda, nullptr, 0, be, C, ldc);
  };
  t.syr2k = [&cpu, nb](char u, char tr, int n, int k, T al, const T* A, int lda, const T* B,
                       int ldb, T be, T* C, int ldc) {
    CpuSteps<T> st(cpu, nb);
    gpuopt_blas::blocked_syr2k<T>(st, u, tr, n, k, al, A, lda, B, ldb, be, C, ldc);
  };
  auto trxm = [&cpu, nb](bool solve) {
    return [&cpu, nb, solve](char s, char u, char ta, char d, int m, int n, T al, const T* A,
                             int lda, T* B, int ldb) {
      CpuSteps<T> st(cpu, nb);
      gpuopt_blas::blocked_triangular<T>(st, solve, s, u, ta, d, m, n, al, A, lda, B, ldb);
    };
  };
  t.trmm = trxm(false);
  t.trsm = trxm(true);
  return t;
}

template <class T>
class BlockedOnCpu : public ::testing::Test {};
using Types = ::testing::Types<double, float>;
TYPED_TEST_SUITE(BlockedOnCpu, Types, );  // the empty argument: clang -Wpedantic

#define LOAD_CPU_BLAS(cpu) \
  CpuGemm<TypeParam> cpu;  \
  if (!cpu.load()) GTEST_SKIP() << "no CPU BLAS to compare with"

// Blocks of 64 on sizes 1, 7, 129, 300: one partial block, several with a partial last one.
TYPED_TEST(BlockedOnCpu, Symm) {
  LOAD_CPU_BLAS(cpu);
  level3_cases::check_symm<TypeParam>(blocked(cpu, 64), cpu.l3, {});
}
TYPED_TEST(BlockedOnCpu, Syrk) {
  LOAD_CPU_BLAS(cpu);
  level3_cases::check_syrk<TypeParam>(blocked(cpu, 64), cpu.l3, {}, false);
}
TYPED_TEST(BlockedOnCpu, Syr2k) {
  LOAD_CPU_BLAS(cpu);
  level3_cases::check_syrk<TypeParam>(blocked(cpu, 64), cpu.l3, {}, true);
}
TYPED_TEST(BlockedOnCpu, Trmm) {
  LOAD_CPU_BLAS(cpu);
  level3_cases::check_triangular<TypeParam>(blocked(cpu, 64), cpu.l3, {}, false);
}
TYPED_TEST(BlockedOnCpu, Trsm) {
  LOAD_CPU_BLAS(cpu);
  level3_cases::check_triangular<TypeParam>(blocked(cpu, 64), cpu.l3, {}, true);
}

// Blocks of 1 and of 2 (every diagonal step 1x1 or 2x2; the last block partial) and one block
// larger than the matrix, on a few sizes.
TYPED_TEST(BlockedOnCpu, TinyAndWholeBlocks) {
  LOAD_CPU_BLAS(cpu);
  level3_cases::Plan plan;
  plan.sizes = {1, 5};
  plan.depths = {3};
  for (long nb : {1L, 2L, 512L}) {
    const Level3<TypeParam> t = blocked(cpu, nb);
    level3_cases::check_symm<TypeParam>(t, cpu.l3, plan);
    level3_cases::check_syrk<TypeParam>(t, cpu.l3, plan, false);
    level3_cases::check_syrk<TypeParam>(t, cpu.l3, plan, true);
    level3_cases::check_triangular<TypeParam>(t, cpu.l3, plan, false);
    level3_cases::check_triangular<TypeParam>(t, cpu.l3, plan, true);
  }
}

// The steps of a trsm: blocks of 64 on m = 300 are 5 blocks; side L, n = 129: 3 column pieces.
TEST(BlockedSteps, TrsmCountsAndShapes) {
  CpuGemm<double> cpu;
  if (!cpu.load()) GTEST_SKIP() << "no CPU BLAS to compare with";
  const int m = 300, n = 129, lda = m, ldb = m;
  auto A = level3_cases::triangle<double>(m, 'L', false, 1);
  auto B = level3_cases::values<double>(static_cast<size_t>(m + level3_cases::kPad) * n, 2);
  CpuSteps<double> st(cpu, 64);
  gpuopt_blas::blocked_triangular<double>(st, true, 'L', 'L', 'N', 'N', m, n, 1.0, A.data(),
                                          lda + level3_cases::kPad, B.data(), ldb);
  EXPECT_EQ(st.gemms, 4);      // every block but the first
  EXPECT_EQ(st.steps, 5 * 3);  // 5 blocks x 3 pieces of <= 64 columns
}

}  // namespace
