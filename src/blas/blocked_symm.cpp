// Blocked symm (blocked_steps.hpp): C = alpha A B + beta C (side 'L') or alpha B A + beta C ('R'),
// by blocks of nb rows ('L') or columns ('R') of C. For a block, A's diagonal block is expanded
// from its stored triangle into a full nb x nb host temporary and multiplied first (a pipeline
// gemm that applies beta); then the blocks before and after it, each one rectangle of A used as
// stored or transposed (gemm's trans flag), so only the uplo triangle of A is read.
#include <algorithm>
#include <vector>

#include "blocked_steps.hpp"

namespace gpuopt_blas {
namespace {

// The block of the symmetric A at rows r0.., columns c0.. (ranges that do not overlap): as
// stored when it lies in the uplo triangle, else the transpose of its mirror image.
template <class T>
struct Part {
  const T* ptr;
  char trans;
};
template <class T>
Part<T> sym_part(const T* A, long lda, char uplo, long r0, long c0) {
  const bool stored = uplo == 'U' ? r0 < c0 : r0 > c0;
  if (stored) return {A + r0 + c0 * lda, 'N'};
  return {A + c0 + r0 * lda, 'T'};
}

// The w x w diagonal block at (d0, d0) of the symmetric A, both triangles, from the uplo one.
template <class T>
void expand_diagonal(const T* A, long lda, char uplo, long d0, long w, std::vector<T>* out) {
  out->resize(static_cast<size_t>(w) * static_cast<size_t>(w));
  const T* a = A + d0 + d0 * lda;
  for (long j = 0; j < w; ++j)
    for (long i = 0; i < w; ++i) {
      const bool stored = uplo == 'U' ? i <= j : i >= j;
      (*out)[static_cast<size_t>(i + j * w)] = stored ? a[i + j * lda] : a[j + i * lda];
    }
}

}  // namespace

template <class T>
void blocked_symm(BlockSteps<T>& b, char side, char uplo, long m, long n, T alpha, const T* A,
                  long lda, const T* B, long ldb, T beta, T* C, long ldc) {
  const bool left = side == 'L';
  const long na = left ? m : n;
  std::vector<T> D;
  for (long d0 = 0; d0 < na; d0 += b.nb()) {
    const long w = std::min(b.nb(), na - d0), d1 = d0 + w;
    expand_diagonal(A, lda, uplo, d0, w, &D);
    // C's block times A's (row or column) block range [o0, o1) of A's block row or column d.
    auto part = [&](long o0, long o1, const T* a, long lda_a, char ta, T beta_x) {
      if (left)
        b.gemm(ta, 'N', w, n, o1 - o0, alpha, a, lda_a, B + o0, ldb, beta_x, C + d0, ldc);
      else
        b.gemm('N', ta, m, w, o1 - o0, alpha, B + o0 * ldb, ldb, a, lda_a, beta_x, C + d0 * ldc,
               ldc);
    };
    part(d0, d1, D.data(), w, 'N', beta);
    // Left: A's rows d, columns o (C_d += A_do B_o); right: rows o, columns d (C_d += B_o A_od).
    if (d0 > 0) {
      const Part<T> p = left ? sym_part(A, lda, uplo, d0, 0) : sym_part(A, lda, uplo, 0, d0);
      part(0, d0, p.ptr, lda, p.trans, T(1));
    }
    if (d1 < na) {
      const Part<T> p = left ? sym_part(A, lda, uplo, d0, d1) : sym_part(A, lda, uplo, d1, d0);
      part(d1, na, p.ptr, lda, p.trans, T(1));
    }
  }
}

template void blocked_symm<double>(BlockSteps<double>&, char, char, long, long, double,
                                   const double*, long, const double*, long, double, double*, long);
template void blocked_symm<float>(BlockSteps<float>&, char, char, long, long, float, const float*,
                                  long, const float*, long, float, float*, long);

}  // namespace gpuopt_blas
