#include "level3_check.hpp"

namespace gpuopt_blas {
namespace {

bool is_trans(char c) {
  c = up(c);
  return c == 'N' || c == 'T' || c == 'C';
}
bool is_uplo(char c) { return up(c) == 'U' || up(c) == 'L'; }
bool is_side(char c) { return up(c) == 'L' || up(c) == 'R'; }
int64_t max1(int64_t v) { return v > 1 ? v : 1; }

}  // namespace

int check_gemm(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
               int64_t ldc) {
  int64_t nrowa = up(transa) == 'N' ? m : k;
  int64_t nrowb = up(transb) == 'N' ? k : n;
  if (!is_trans(transa)) return 1;
  if (!is_trans(transb)) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < max1(nrowa)) return 8;
  if (ldb < max1(nrowb)) return 10;
  if (ldc < max1(m)) return 13;
  return 0;
}

int check_symm(char side, char uplo, int64_t m, int64_t n, int64_t lda, int64_t ldb, int64_t ldc) {
  int64_t nrowa = up(side) == 'L' ? m : n;
  if (!is_side(side)) return 1;
  if (!is_uplo(uplo)) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (lda < max1(nrowa)) return 7;
  if (ldb < max1(m)) return 9;
  if (ldc < max1(m)) return 12;
  return 0;
}

namespace {
// The checks syrk and syr2k share (UPLO, TRANS, N, K, LDA); 0 when they pass.
int check_rank_k(char uplo, char trans, int64_t n, int64_t k, int64_t lda) {
  int64_t nrowa = up(trans) == 'N' ? n : k;
  if (!is_uplo(uplo)) return 1;
  if (!is_trans(trans)) return 2;
  if (n < 0) return 3;
  if (k < 0) return 4;
  if (lda < max1(nrowa)) return 7;
  return 0;
}
}  // namespace

int check_syrk(char uplo, char trans, int64_t n, int64_t k, int64_t lda, int64_t ldc) {
  if (int info = check_rank_k(uplo, trans, n, k, lda)) return info;
  if (ldc < max1(n)) return 10;
  return 0;
}

int check_syr2k(char uplo, char trans, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                int64_t ldc) {
  if (int info = check_rank_k(uplo, trans, n, k, lda)) return info;
  if (ldb < max1(up(trans) == 'N' ? n : k)) return 9;
  if (ldc < max1(n)) return 12;
  return 0;
}

int check_trxm(char side, char uplo, char transa, char diag, int64_t m, int64_t n, int64_t lda,
               int64_t ldb) {
  int64_t nrowa = up(side) == 'L' ? m : n;
  if (!is_side(side)) return 1;
  if (!is_uplo(uplo)) return 2;
  if (!is_trans(transa)) return 3;
  if (up(diag) != 'U' && up(diag) != 'N') return 4;
  if (m < 0) return 5;
  if (n < 0) return 6;
  if (lda < max1(nrowa)) return 9;
  if (ldb < max1(m)) return 11;
  return 0;
}

}  // namespace gpuopt_blas
