// Every flag combination of symm, syrk, syr2k, trmm and trsm on odd sizes, checked against the
// CPU BLAS (loaded by path), for a set of routines under test: the blocked algorithms on the CPU
// (blocked_test.cpp, host only) and the shim's entry points on the GPU (blas_gpu_test.cpp, with
// GPUOPT_BLAS_OOC_BLOCK forcing the blocked out-of-core path). Besides the values, each case
// checks the reference semantics the blocked path must keep: the unreferenced triangle of A (and
// its diagonal for diag 'U') is NaN and must not reach the result, beta = 0 starts from a NaN C,
// C's padding rows (ldc > m) and, for syrk and syr2k, C's other triangle hold a sentinel that
// must stay bit for bit.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace level3_cases {

/** The CPU BLAS the shim forwards to, loaded by path (RTLD_LOCAL) for reference results:
 *  GPUOPT_BLAS_CPU_LIB, else OpenBLAS, else the reference BLAS; nullptr when none is there. */
inline void* cpu_blas() {
  static void* h = [] {
    const char* env = getenv("GPUOPT_BLAS_CPU_LIB");
    const char* paths[] = {env ? env : "",
                           "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3",
                           "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"};
    for (const char* p : paths)
      if (*p)
        if (void* l = dlopen(p, RTLD_NOW | RTLD_LOCAL)) return l;
    return static_cast<void*>(nullptr);
  }();
  return h;
}

/** The level-3 routines of element type T, by value (character arguments as characters). */
template <class T>
struct Level3 {
  std::function<void(char side, char uplo, int m, int n, T alpha, const T* A, int lda, const T* B,
                     int ldb, T beta, T* C, int ldc)>
      symm;
  std::function<void(char uplo, char trans, int n, int k, T alpha, const T* A, int lda, T beta,
                     T* C, int ldc)>
      syrk;
  std::function<void(char uplo, char trans, int n, int k, T alpha, const T* A, int lda, const T* B,
                     int ldb, T beta, T* C, int ldc)>
      syr2k;
  std::function<void(char side, char uplo, char ta, char diag, int m, int n, T alpha, const T*A,
                     int lda, T*B, int ldb)>
      trmm, trsm;
};

/** The Fortran routines (LP64, hidden lengths) of @p handle (dlsym: RTLD_DEFAULT for the ones
 *  the test program links); false when one is missing. */
template <class T>
bool level3_of(void* handle, Level3<T>* out) {
  const char p = sizeof(T) == 8 ? 'd' : 's';
  auto sym = [&](const char* name) { return dlsym(handle, (std::string(1, p) + name).c_str()); };
  using Symm = void (*)(const char*, const char*, const int*, const int*, const T*, const T*,
                        const int*, const T*, const int*, const T*, T*, const int*, size_t, size_t);
  using Syrk = void (*)(const char*, const char*, const int*, const int*, const T*, const T*,
                        const int*, const T*, T*, const int*, size_t, size_t);
  using Trxm =
      void (*)(const char*, const char*, const char*, const char*, const int*, const int*, const T*,
               const T*, const int*, T*, const int*, size_t, size_t, size_t, size_t);
  auto symm = reinterpret_cast<Symm>(sym("symm_"));
  auto syrk = reinterpret_cast<Syrk>(sym("syrk_"));
  auto syr2k = reinterpret_cast<Symm>(sym("syr2k_"));  // the same signature
  auto trmm = reinterpret_cast<Trxm>(sym("trmm_"));
  auto trsm = reinterpret_cast<Trxm>(sym("trsm_"));
  if (!symm || !syrk || !syr2k || !trmm || !trsm) return false;
  out->symm = [symm](char s, char u, int m, int n, T al, const T* A, int lda, const T* B, int ldb,
                     T be, T* C,
                     int ldc) { symm(&s, &u, &m, &n, &al, A, &lda, B, &ldb, &be, C, &ldc, 1, 1); };
  out->syrk = [syrk](char u, char t, int n, int k, T al, const T* A, int lda, T be, T* C, int ldc) {
    syrk(&u, &t, &n, &k, &al, A, &lda, &be, C, &ldc, 1, 1);
  };
  out->syr2k = [syr2k](char u, char t, int n, int k, T al, const T* A, int lda, const T* B, int ldb,
                       T be, T* C, int ldc) {
    syr2k(&u, &t, &n, &k, &al, A, &lda, B, &ldb, &be, C, &ldc, 1, 1);
  };
  auto trxm = [](Trxm f) {
    return [f](char s, char u, char t, char d, int m, int n, T al, const T* A, int lda, T* B,
               int ldb) { f(&s, &u, &t, &d, &m, &n, &al, A, &lda, B, &ldb, 1, 1, 1, 1); };
  };
  out->trmm = trxm(trmm);
  out->trsm = trxm(trsm);
  return true;
}

/** The sizes (m, n and k) of the cases and the precision's tolerance (relative to the largest
 *  entry of the reference result). */
struct Plan {
  std::vector<int> sizes{1, 7, 129, 300};
  std::vector<int> depths{1, 129, 300};    // k of syrk and syr2k
  std::vector<char> transposes{'N', 'T'};  // of trmm and trsm (the shim also takes 'C')
};

template <class T>
double tolerance() {
  return sizeof(T) == 8 ? 1e-11 : 2e-4;
}

constexpr int kPad = 3;               // ldc = m + kPad, lda = na + kPad
constexpr double kSentinel = 777.25;  // padding and the other triangle of C

template <class T>
T nan() {
  return std::numeric_limits<T>::quiet_NaN();
}

// Deterministic values in [-0.5, 0.5] + 0.05.
template <class T>
std::vector<T> values(size_t n, double seed) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<T>(std::sin(seed + 0.731 * static_cast<double>(i)) * 0.5 + 0.05);
  return v;
}

// A na x na matrix (lda = na + kPad) whose uplo triangle is well conditioned (diagonal about 1,
// off-diagonal entries of order 1/na), the rest NaN; the diagonal too when @p unit_diag.
template <class T>
std::vector<T> triangle(int na, char uplo, bool unit_diag, double seed) {
  const int lda = na + kPad;
  std::vector<T> a = values<T>(static_cast<size_t>(lda) * static_cast<size_t>(na), seed);
  for (int j = 0; j < na; ++j)
    for (int i = 0; i < lda; ++i) {
      T& x = a[static_cast<size_t>(i) + static_cast<size_t>(j) * lda];
      const bool in = i < na && (uplo == 'U' ? i <= j : i >= j);
      if (!in || (i == j && unit_diag))
        x = nan<T>();
      else if (i == j)
        x = static_cast<T>(1 + 0.25 * std::fabs(static_cast<double>(x)));
      else
        x = static_cast<T>(x / na);
    }
  return a;
}

// C (m x n, ldc = m + kPad) with padding rows at kSentinel; its m x n part NaN when beta = 0.
template <class T>
std::vector<T> output(int m, int n, bool nan_part, double seed) {
  const int ldc = m + kPad;
  std::vector<T> c = values<T>(static_cast<size_t>(ldc) * static_cast<size_t>(n), seed);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < ldc; ++i) {
      T& x = c[static_cast<size_t>(i) + static_cast<size_t>(j) * ldc];
      if (i >= m)
        x = static_cast<T>(kSentinel);
      else if (nan_part)
        x = nan<T>();
    }
  return c;
}

// Compares @p got with @p want (both m x n, ld = m + kPad): entries (i, j) where written(i, j)
// within the tolerance, every other entry bit for bit. Returns "" or what differs.
template <class T, class Written>
std::string compare(int m, int n, const std::vector<T>& got, const std::vector<T>& want,
                    Written written) {
  const int ld = m + kPad;
  double worst = 0, scale = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < ld; ++i) {
      const size_t at = static_cast<size_t>(i) + static_cast<size_t>(j) * ld;
      if (i < m && written(i, j)) {
        const double g = got[at], w = want[at];
        if (!std::isfinite(g))
          return "non-finite at " + std::to_string(i) + "," + std::to_string(j);
        worst = std::fmax(worst, std::fabs(g - w));
        scale = std::fmax(scale, std::fabs(w));
      } else if (std::memcmp(&got[at], &want[at], sizeof(T)) != 0) {
        return "written outside the output at " + std::to_string(i) + "," + std::to_string(j);
      }
    }
  const double rel = scale > 0 ? worst / scale : worst;
  if (rel > tolerance<T>()) return "relative difference " + std::to_string(rel);
  return "";
}

/** Runs every case of @p plan through @p test and @p ref, with EXPECTs. */
template <class T>
void check_symm(const Level3<T>& test, const Level3<T>& ref, const Plan& plan) {
  for (char side : {'L', 'R'})
    for (char uplo : {'U', 'L'})
      for (int m : plan.sizes)
        for (int n : plan.sizes)
          for (double beta : {0.0, -0.5}) {
            const int na = side == 'L' ? m : n, lda = na + kPad, ld = m + kPad;
            const std::vector<T> A = triangle<T>(na, uplo, false, 1),
                                 B = values<T>(static_cast<size_t>(ld) * n, 2);
            std::vector<T> C = output<T>(m, n, beta == 0, 3), R = C;
            const T alpha = static_cast<T>(0.75), b = static_cast<T>(beta);
            test.symm(side, uplo, m, n, alpha, A.data(), lda, B.data(), ld, b, C.data(), ld);
            ref.symm(side, uplo, m, n, alpha, A.data(), lda, B.data(), ld, b, R.data(), ld);
            EXPECT_EQ(compare(m, n, C, R, [](int, int) { return true; }), "")
                << "symm " << side << uplo << " m=" << m << " n=" << n << " beta=" << beta;
          }
}

template <class T>
void check_syrk(const Level3<T>& test, const Level3<T>& ref, const Plan& plan, bool two) {
  for (char uplo : {'U', 'L'})
    for (char trans : {'N', 'T'})
      for (int n : plan.sizes)
        for (int k : plan.depths)
          for (double beta : {0.0, 1.5}) {
            const int r = trans == 'N' ? n : k, c = trans == 'N' ? k : n, lda = r + kPad;
            const std::vector<T> A = values<T>(static_cast<size_t>(lda) * c, 1),
                                 B = values<T>(static_cast<size_t>(lda) * c, 2);
            std::vector<T> C = output<T>(n, n, false, 3);
            for (int j = 0; j < n; ++j)  // the other triangle: the sentinel; beta = 0: NaN
              for (int i = 0; i < n; ++i) {
                const bool in = uplo == 'U' ? i <= j : i >= j;
                T& x = C[static_cast<size_t>(i) + static_cast<size_t>(j) * (n + kPad)];
                if (!in)
                  x = static_cast<T>(kSentinel);
                else if (beta == 0)
                  x = nan<T>();
              }
            std::vector<T> R = C;
            const T alpha = static_cast<T>(-0.5), b = static_cast<T>(beta);
            const int ldc = n + kPad;
            if (two) {
              test.syr2k(uplo, trans, n, k, alpha, A.data(), lda, B.data(), lda, b, C.data(), ldc);
              ref.syr2k(uplo, trans, n, k, alpha, A.data(), lda, B.data(), lda, b, R.data(), ldc);
            } else {
              test.syrk(uplo, trans, n, k, alpha, A.data(), lda, b, C.data(), ldc);
              ref.syrk(uplo, trans, n, k, alpha, A.data(), lda, b, R.data(), ldc);
            }
            EXPECT_EQ(
                compare(n, n, C, R, [uplo](int i, int j) { return uplo == 'U' ? i <= j : i >= j; }),
                "")
                << (two ? "syr2k " : "syrk ") << uplo << trans << " n=" << n << " k=" << k
                << " beta=" << beta;
          }
}

template <class T>
void check_triangular(const Level3<T>& test, const Level3<T>& ref, const Plan& plan, bool solve) {
  for (char side : {'L', 'R'})
    for (char uplo : {'U', 'L'})
      for (char ta : plan.transposes)
        for (char diag : {'N', 'U'})
          for (int m : plan.sizes)
            for (int n : plan.sizes) {
              const int na = side == 'L' ? m : n, lda = na + kPad;
              const std::vector<T> A = triangle<T>(na, uplo, diag == 'U', 1);
              std::vector<T> B = output<T>(m, n, false, 2), R = B;
              const T alpha = static_cast<T>(1.25);
              const auto& f = solve ? test.trsm : test.trmm;
              const auto& g = solve ? ref.trsm : ref.trmm;
              f(side, uplo, ta, diag, m, n, alpha, A.data(), lda, B.data(), m + kPad);
              g(side, uplo, ta, diag, m, n, alpha, A.data(), lda, R.data(), m + kPad);
              EXPECT_EQ(compare(m, n, B, R, [](int, int) { return true; }), "")
                  << (solve ? "trsm " : "trmm ") << side << uplo << ta << diag << " m=" << m
                  << " n=" << n;
            }
}

}  // namespace level3_cases
