// The blocked algorithms of symm, syrk, syr2k, trmm and trsm over two kinds of step: gemm calls
// (the bulk) and triangular multiplies / solves of at most nb x nb (the diagonal blocks). The
// blocked out-of-core path of the GPU half (gpu_blocked.hpp) runs them on the host-tiled pipeline
// and cuBLAS; the host unit tests on the CPU BLAS. Pure host code: nothing of CUDA.
//
// Every step updates one block of the output (reading it too: beta != 0, in place) and reads no
// other block that it writes, so with steps that either complete or leave their block untouched
// (a failed GPU step redone on the CPU) the output stays right whatever fails (gpu_blocked.hpp).
// Host-side work inside the algorithms (expanding symm's diagonal block, merging syrk's diagonal
// triangles) is on nb x nb blocks. Reference semantics: beta = 0 never reads C, only the uplo
// triangle of A is read (symm, trmm, trsm), only the uplo triangle of C is written (syrk, syr2k),
// nothing outside the m x n output.
#pragma once

namespace gpuopt_blas {

/** The steps a blocked routine is made of; operands are host-addressable, column-major. */
template <class T>
class BlockSteps {
 public:
  virtual ~BlockSteps() = default;

  /** The block size (>= 1). */
  virtual long nb() const = 0;

  /** C = alpha op(A) op(B) + beta C with m, n, k > 0 (beta = 0 never reads C). */
  virtual void gemm(char ta, char tb, long m, long n, long k, T alpha, const T* A, long lda,
                    const T* B, long ldb, T beta, T* C, long ldc) = 0;

  /** B = alpha op(A) B or B = alpha op(A)^-1 B (@p solve; side 'R': B op(A), B op(A)^-1) on an
   *  m x n block of B with m, n <= nb(): A is the triangle of the diagonal block. */
  virtual void triangular(bool solve, char side, char uplo, char ta, char diag, long m, long n,
                          T alpha, const T* A, long lda, T* B, long ldb) = 0;
};

/** The blocked routines: the whole call (alpha != 0, sizes > 0: the run layer's quick returns
 *  are done; character arguments upper case, 'C' as 'T') as steps of @p s. */
template <class T>
void blocked_symm(BlockSteps<T>& s, char side, char uplo, long m, long n, T alpha, const T* A,
                  long lda, const T* B, long ldb, T beta, T* C, long ldc);
/** syr2k, or syrk when @p B is nullptr. */
template <class T>
void blocked_syr2k(BlockSteps<T>& s, char uplo, char trans, long n, long k, T alpha, const T* A,
                   long lda, const T* B, long ldb, T beta, T* C, long ldc);
/** trsm (@p solve) or trmm. */
template <class T>
void blocked_triangular(BlockSteps<T>& s, bool solve, char side, char uplo, char ta, char diag,
                        long m, long n, T alpha, const T* A, long lda, T* B, long ldb);

}  // namespace gpuopt_blas
