// The steps of the blocked out-of-core routines (gpu_blocked.hpp): when to take the path, gemm on
// the pipeline, the diagonal triangular steps on device 0, and the switch to the CPU after a
// failure.
#include "gpu_blocked.hpp"

#include <cuda_runtime.h>
#include <stdio.h>

#include <algorithm>

#include "config.hpp"
#include "cpu_calls.hpp"
#include "gpu_cublas.hpp"
#include "gpu_gemm.hpp"

namespace gpuopt_blas {
namespace gpu {
namespace {

// Blocks of the pipeline's 8192 tile: each update gemm of trsm and trmm is one tile row (or
// column) of the pipeline, and every block of B crosses the link once per block of the other
// side (m / nb times in all: fewer with larger blocks). The diagonal steps' workspace is then
// 2 x 512 MiB (f64) on device 0, and syrk's diagonal temporary 512 MiB of host memory.
constexpr long kBlock = 8192;
// Device memory the in-core path leaves free: cuBLAS's workspace, the allocator's rounding.
constexpr double kMarginBytes = 512.0 * 1024 * 1024;
constexpr double kMarginShare = 1.0 / 32;

double gib(double bytes) { return bytes / (1024.0 * 1024 * 1024); }

// The diagonal steps' copy out must be one piece of the pinned ring (so it lands whole): blocks
// of at most the pipeline's tile.
long clamp_block(gpuopt_host_tiled::Pipeline* p, long nb) {
  return std::max(1L, std::min(nb, static_cast<long>(p->options().tile_mn)));
}

}  // namespace

long blocked_default_block(gpuopt_host_tiled::Pipeline* p) {
  const long forced = config().ooc_block;
  return clamp_block(p, forced > 0 ? forced : kBlock);
}

long blocked_block_size(gpuopt_host_tiled::Pipeline* p, size_t di, double bytes, std::string* why) {
  if (config().ooc_block > 0) {
    *why = "GPUOPT_BLAS_OOC_BLOCK";
    return blocked_default_block(p);
  }
  size_t free_b = 0, total_b = 0;
  cudaSetDevice(p->devices()[di]);
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
    cudaGetLastError();
    return 0;  // the in-core path tries; its cudaMalloc failing sends the call here after all
  }
  const double room = static_cast<double>(free_b) -
                      std::max(kMarginBytes, kMarginShare * static_cast<double>(total_b));
  if (bytes <= room) return 0;
  char buf[160];
  snprintf(buf, sizeof buf, "device copies of %.3g GiB, %.3g GiB free on GPU %d", gib(bytes),
           gib(static_cast<double>(free_b)), p->devices()[di]);
  *why = buf;
  return blocked_default_block(p);
}

template <class T>
Blocked<T>::Blocked(Engine& e, gpuopt_host_tiled::Pipeline* p, const char* routine, long nb)
    : e_(e), p_(p), routine_(routine), nb_(nb) {}

template <class T>
Blocked<T>::~Blocked() {
  release_workspace();
}

template <class T>
void Blocked<T>::release_workspace() {
  if (dA_) cudaFree(dA_);
  if (dB_) cudaFree(dB_);
  dA_ = dB_ = nullptr;
  cached_a_ = nullptr;
}

template <class T>
void Blocked<T>::fail(const std::string& error) {
  release_workspace();
  if (error_.empty()) error_ = error;
  p_ = nullptr;
}

template <class T>
bool Blocked<T>::inject_failure() {
  return ++step_ == config().ooc_fail_step;
}

template <class T>
void Blocked<T>::gemm(char ta, char tb, long m, long n, long k, T alpha, const T* A, long lda,
                      const T* B, long ldb, T beta, T* C, long ldc) {
  if (p_) {
    std::string why;
    if (inject_failure()) p_->inject_failure_at_tile(0);  // the pipeline's own testing fault
    if (pipeline_gemm<T>(e_, p_, routine_, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                         &why)) {
      ++gpu_gemms_;
      return;
    }
    fail("gemm: " + why);  // C is complete: the pipeline finished its tiles on the CPU
    ++cpu_gemms_;
    return;
  }
  Cpu<T>::gemm(ta, tb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, A,
               static_cast<int>(lda), B, static_cast<int>(ldb), beta, C, static_cast<int>(ldc));
  ++cpu_gemms_;
}

template <class T>
bool Blocked<T>::device_triangular(bool solve, char side, char uplo, char ta, char diag, long m,
                                   long n, T alpha, const T* A, long lda, T* B, long ldb,
                                   std::string* error) {
  // The handle and the workspace: when device memory is short for them, the diagonal steps run
  // on the CPU (not a GPU failure: the pipeline stays).
  std::string no_handle;
  cublasHandle_t h = no_workspace_ ? nullptr : e_.cublas(0, &no_handle);  // device index 0 current
  if (!h) no_workspace_ = true;
  if (!dA_ && !no_workspace_) {
    const size_t bytes = static_cast<size_t>(nb_) * static_cast<size_t>(nb_) * sizeof(T);
    if (cudaMalloc(&dA_, bytes) != cudaSuccess || cudaMalloc(&dB_, bytes) != cudaSuccess) {
      cudaGetLastError();
      release_workspace();
      no_workspace_ = true;
    }
  }
  if (no_workspace_) {
    error->clear();
    return false;
  }
  const long na = side == 'L' ? m : n;
  const bool inject = inject_failure();
  if (cached_a_ != A || cached_na_ != na) {
    cached_a_ = nullptr;
    if (!p_->copy_matrix(dA_, na, A, lda, na, na, sizeof(T), true, 0, error)) return false;
    cached_a_ = A;
    cached_na_ = na;
  }
  if (!p_->copy_matrix(dB_, m, B, ldb, m, n, sizeof(T), true, 0, error)) return false;
  const cublasStatus_t st =
      xtr(solve, h, side_of(side), fill(uplo), op(ta), diag_of(diag), static_cast<int>(m),
          static_cast<int>(n), &alpha, dA_, static_cast<int>(na), dB_, static_cast<int>(m));
  if (st == CUBLAS_STATUS_ALLOC_FAILED) {  // short of memory, as above
    no_workspace_ = true;
    error->clear();
    return false;
  }
  if (st != CUBLAS_STATUS_SUCCESS) {
    *error = std::string("cuBLAS ") + cublasGetStatusName(st);
    return false;
  }
  if (inject) {  // after the product, as a failed copy out would be
    cudaStreamSynchronize(static_cast<cudaStream_t>(p_->native_stream(0)));
    *error = "injected failure (GPUOPT_BLAS_OOC_FAIL_STEP, testing)";
    return false;
  }
  // The copy out waits for the product (same stream) and writes B only once the whole block is in
  // the pinned ring: B is untouched when it fails.
  return p_->copy_matrix(B, ldb, dB_, m, m, n, sizeof(T), false, 0, error);
}

template <class T>
void Blocked<T>::triangular(bool solve, char side, char uplo, char ta, char diag, long m, long n,
                            T alpha, const T* A, long lda, T* B, long ldb) {
  if (p_) {
    std::string error;
    if (device_triangular(solve, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb, &error)) {
      ++gpu_steps_;
      return;
    }
    if (!error.empty()) {
      e_.failed(routine_, error);
      fail("diagonal step: " + error);
    }
  }
  const int mi = static_cast<int>(m), ni = static_cast<int>(n);
  if (solve)
    Cpu<T>::trsm(side, uplo, ta, diag, mi, ni, alpha, A, static_cast<int>(lda), B,
                 static_cast<int>(ldb));
  else
    Cpu<T>::trmm(side, uplo, ta, diag, mi, ni, alpha, A, static_cast<int>(lda), B,
                 static_cast<int>(ldb));
  ++cpu_steps_;
}

template <class T>
std::string Blocked<T>::summary() const {
  std::string s = "blocked, nb=" + std::to_string(nb_) + ": gemm " + std::to_string(gpu_gemms_) +
                  " on the pipeline";
  if (cpu_gemms_) s += ", " + std::to_string(cpu_gemms_) + " on the CPU";
  if (gpu_steps_ || cpu_steps_) s += "; diagonal steps " + std::to_string(gpu_steps_) + " on GPU";
  if (cpu_steps_) s += ", " + std::to_string(cpu_steps_) + " on the CPU";
  if (no_workspace_) s += " (no device memory for their workspace)";
  if (!error_.empty()) s += "; the rest on the CPU after: " + error_;
  return s;
}

template class Blocked<double>;
template class Blocked<float>;

}  // namespace gpu
}  // namespace gpuopt_blas
