// Blocked trsm and trmm (blocked_steps.hpp), every side, uplo, trans and diag. B is walked by
// blocks of nb rows (side 'L') or columns ('R'), block i depending on op(A)'s off-diagonal blocks
// of its block row ('L') or column ('R') on one side of the diagonal: the "others", before block i
// (side 'L' with op(A) lower, side 'R' with op(A) upper) or after it.
//   trsm (left-looking): blocks in the order that solves the others first; for block i
//     B_i = alpha B_i - op(A)_{i,others} X_others  (one pipeline gemm, beta = alpha), then
//     X_i = op(A)_ii^-1 B_i on the device in nb x nb pieces (alpha there when there are no others).
//   trmm: blocks in the other order, so the others still hold their input; for block i
//     B_i = alpha op(A)_ii B_i on the device in nb x nb pieces, then
//     B_i += alpha op(A)_{i,others} B_others  (one pipeline gemm, beta = 1).
// Each step updates only block i; the other blocks it reads are final (trsm) or still hold their
// input (trmm).
#include <algorithm>

#include "blocked_steps.hpp"

namespace gpuopt_blas {

template <class T>
void blocked_triangular(BlockSteps<T>& b, bool solve, char side, char uplo, char ta, char diag,
                        long m, long n, T alpha, const T* A, long lda, T* B, long ldb) {
  const bool left = side == 'L';
  const bool op_lower = (uplo == 'L') == (ta == 'N');
  const bool before = left ? op_lower : !op_lower;  // where block i's others are
  const bool forward = solve ? before : !before;
  const long extent = left ? m : n, nb = b.nb();
  const long blocks = (extent + nb - 1) / nb;
  const char t = ta == 'N' ? 'N' : 'T';
  // op(A) at rows r0.., columns c0..: A there, or A^T of the block at (c0, r0).
  auto op_a = [&](long r0, long c0) { return t == 'N' ? A + r0 + c0 * lda : A + c0 + r0 * lda; };
  for (long s = 0; s < blocks; ++s) {
    const long i = forward ? s : blocks - 1 - s;
    const long b0 = i * nb, w = std::min(nb, extent - b0), b1 = b0 + w;
    const long o0 = before ? 0 : b1, o1 = before ? b0 : extent, ko = o1 - o0;
    T* Bi = left ? B + b0 : B + b0 * ldb;
    // Block i's diagonal steps, in pieces of at most nb x nb.
    auto diagonal = [&](T coef) {
      const long other = left ? n : m;
      for (long p0 = 0; p0 < other; p0 += nb) {
        const long pw = std::min(nb, other - p0);
        if (left)
          b.triangular(solve, side, uplo, ta, diag, w, pw, coef, A + b0 + b0 * lda, lda,
                       Bi + p0 * ldb, ldb);
        else
          b.triangular(solve, side, uplo, ta, diag, pw, w, coef, A + b0 + b0 * lda, lda, Bi + p0,
                       ldb);
      }
    };
    // B_i = coef op(A)_{i,others} B_others + beta B_i.
    auto update = [&](T coef, T beta) {
      if (left)
        b.gemm(t, 'N', w, n, ko, coef, op_a(b0, o0), lda, B + o0, ldb, beta, Bi, ldb);
      else
        b.gemm('N', t, m, w, ko, coef, B + o0 * ldb, ldb, op_a(o0, b0), lda, beta, Bi, ldb);
    };
    if (solve) {
      if (ko > 0) update(T(-1), alpha);
      diagonal(ko > 0 ? T(1) : alpha);
    } else {
      diagonal(alpha);
      if (ko > 0) update(alpha, T(1));
    }
  }
}

template void blocked_triangular<double>(BlockSteps<double>&, bool, char, char, char, char, long,
                                         long, double, const double*, long, double*, long);
template void blocked_triangular<float>(BlockSteps<float>&, bool, char, char, char, char, long,
                                        long, float, const float*, long, float*, long);

}  // namespace gpuopt_blas
