// The GPU side of gpuopt_blas: the routing model and the GPU implementations. All of it lives in
// libgpuopt_blas_gpu.so (with libgpuopt, cuBLAS and the CUDA runtime), which the shim loads only
// at the first call routed to the GPU (gpu_loader.hpp) and reaches through gpu_half.hpp's table.
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

/** Where a call of @p flops flops on these operands runs, and why, once the shim has decided it
 *  is worth asking (routing.cpp: not small, not GPUOPT_BLAS_FORCE=cpu). @p elem: 4 or 8. */
Route route_on_gpu(double flops, const Operand* ops, int nops, size_t elem);

/** True when one of the operands is in device memory (asked only when the CUDA driver is loaded
 *  in the process). */
bool in_device_memory(const Operand* ops, int nops);

/** True in a child process after fork() from a process that used the GPU: it runs on the CPU. */
bool forked_child();

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
