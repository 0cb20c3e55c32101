// The GPU side of gpuopt_blas, as the level-3 routines see it: the routing decision and the GPU
// implementations. Nothing here touches CUDA before the first call that is big enough to route.
#pragma once

#include <stddef.h>

#include <string>

namespace gpuopt_blas {
namespace gpu {

/** A matrix operand of a call: rows x cols at @p ptr with leading dimension @p ld. */
struct Operand {
  const void* ptr;
  long rows;
  long cols;
  long ld;
  bool read;     // the routine reads it
  bool written;  // the routine writes it
};

struct Route {
  bool gpu = false;
  std::string why;
};

/** Where a call of @p flops flops on these operands runs, and why. @p elem: 4 or 8. */
Route route(double flops, const Operand* ops, int nops, size_t elem);

/** GPU implementations. Each computes the whole call and returns true, or returns false with
 *  @p why set when the GPU failed before any output was written (the caller redoes it on the CPU).
 *  A failure after part of the output was written is finished on the CPU inside (tile by tile),
 *  so the result is always complete and right. */
template <class T>
bool gemm(char ta, char tb, int m, int n, int k, T alpha, const T* A, int lda, const T* B, int ldb,
          T beta, T* C, int ldc, std::string* why);
template <class T>
bool symm(char side, char uplo, int m, int n, T alpha, const T* A, int lda, const T* B, int ldb,
          T beta, T* C, int ldc, std::string* why);
template <class T>
bool syrk(char uplo, char trans, int n, int k, T alpha, const T* A, int lda, T beta, T* C, int ldc,
          std::string* why);
template <class T>
bool syr2k(char uplo, char trans, int n, int k, T alpha, const T* A, int lda, const T* B, int ldb,
           T beta, T* C, int ldc, std::string* why);
template <class T>
bool trmm(char side, char uplo, char ta, char diag, int m, int n, T alpha, const T* A, int lda,
          T* B, int ldb, std::string* why);
template <class T>
bool trsm(char side, char uplo, char ta, char diag, int m, int n, T alpha, const T* A, int lda,
          T* B, int ldb, std::string* why);

}  // namespace gpu
}  // namespace gpuopt_blas
