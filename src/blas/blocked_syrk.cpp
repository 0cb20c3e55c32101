// Blocked syrk and syr2k (blocked_steps.hpp): C's uplo triangle by block columns of nb. The part
// of a block column off the diagonal block (rows above it for 'U', below it for 'L') is one
// rectangle: a pipeline gemm (two for syr2k) straight into C, beta applied by the first. The
// diagonal block: the full nb x nb product (the same gemm) into a host temporary, then its
// triangle merged into C on the host (C = W + beta C, beta = 0 never reading C), so nothing
// outside the triangle is written. The blocks' extra flops are nb/n of the call's.
#include <algorithm>
#include <vector>

#include "blocked_steps.hpp"

namespace gpuopt_blas {
namespace {

// Rows r0.. of op(X), where op(X) is X (n x k, trans 'N') or X^T (X k x n, trans 'T').
template <class T>
const T* rows_of(const T* X, long ld, char trans, long r0) {
  return trans == 'N' ? X + r0 : X + r0 * ld;
}

}  // namespace

template <class T>
void blocked_syr2k(BlockSteps<T>& b, char uplo, char trans, long n, long k, T alpha, const T* A,
                   long lda, const T* B, long ldb, T beta, T* C, long ldc) {
  // C = alpha op(A) op(B)^T [+ alpha op(B) op(A)^T] + beta C.
  const char ta = trans == 'N' ? 'N' : 'T', tb = trans == 'N' ? 'T' : 'N';
  const bool two = B != nullptr;
  if (!two) {
    B = A;
    ldb = lda;
  }
  // rows x cols of the product at rows r0, columns c0 (into X with leading dimension ldx).
  auto product = [&](long r0, long rows, long c0, long cols, T beta_x, T* X, long ldx) {
    b.gemm(ta, tb, rows, cols, k, alpha, rows_of(A, lda, trans, r0), lda,
           rows_of(B, ldb, trans, c0), ldb, beta_x, X, ldx);
    if (two)
      b.gemm(ta, tb, rows, cols, k, alpha, rows_of(B, ldb, trans, r0), ldb,
             rows_of(A, lda, trans, c0), lda, T(1), X, ldx);
  };
  std::vector<T> W;
  for (long j0 = 0; j0 < n; j0 += b.nb()) {
    const long w = std::min(b.nb(), n - j0), j1 = j0 + w;
    const long r0 = uplo == 'U' ? 0 : j1, rows = uplo == 'U' ? j0 : n - j1;
    if (rows > 0) product(r0, rows, j0, w, beta, C + r0 + j0 * ldc, ldc);
    W.resize(static_cast<size_t>(w) * static_cast<size_t>(w));
    product(j0, w, j0, w, T(0), W.data(), w);
    for (long jj = 0; jj < w; ++jj) {
      T* c = C + j0 + (j0 + jj) * ldc;
      const T* x = W.data() + jj * w;
      const long lo = uplo == 'U' ? 0 : jj, hi = uplo == 'U' ? jj + 1 : w;
      if (beta == T(0))
        for (long i = lo; i < hi; ++i) c[i] = x[i];
      else
        for (long i = lo; i < hi; ++i) c[i] = x[i] + beta * c[i];
    }
  }
}

template void blocked_syr2k<double>(BlockSteps<double>&, char, char, long, long, double,
                                    const double*, long, const double*, long, double, double*,
                                    long);
template void blocked_syr2k<float>(BlockSteps<float>&, char, char, long, long, float, const float*,
                                   long, const float*, long, float, float*, long);

}  // namespace gpuopt_blas
