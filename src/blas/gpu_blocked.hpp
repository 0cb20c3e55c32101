// The blocked out-of-core path of symm, syrk, syr2k, trmm and trsm on host arrays: taken when the
// call's device copies do not fit one GPU (decided up front from the sizes against the device's
// free memory, or when the in-core copies' cudaMalloc fails anyway). The bulk of each routine is
// gemm calls on the host-tiled pipeline (out of core, every device of GPUOPT_BLAS_DEVICES); the
// diagonal-block parts are small cuBLAS calls on device 0 (trmm, trsm) or a little host work on
// nb x nb blocks (symm's expanded diagonal block, syrk's and syr2k's diagonal-block triangles).
//
// Failures (docs/notes/blas.md, "Out of core"): the routines are sequences of steps
// (blocked_steps.hpp), each of which either completes or leaves its output untouched, so a failed
// step can be redone from what it read. A pipeline gemm step always completes (the tiles a GPU
// failure left are finished on the CPU, tile by tile); a diagonal step computes on device copies
// and writes its output (at most nb x nb, one piece of the pinned ring) only after success, else it
// is redone on the CPU. After the first failure every later step runs on the CPU (Engine::failed
// has dropped the pipeline), so the output is always complete and right, with no host copy of it.
#pragma once

#include <stddef.h>

#include <string>

#include "blocked_steps.hpp"
#include "gpu_engine.hpp"

namespace gpuopt_blas {
namespace gpu {

/** Block size of the blocked path for a call on host arrays whose device copies take @p bytes,
 *  on device index @p di of @p p: 0 when they fit the device's free memory less a margin (the
 *  in-core path), else the block, with the reason in @p why. GPUOPT_BLAS_OOC_BLOCK (testing)
 *  forces its block whatever the sizes. Caller holds the engine's mutex. */
long blocked_block_size(gpuopt_host_tiled::Pipeline* p, size_t di, double bytes, std::string* why);

/** The block size taken when the in-core copies' cudaMalloc failed after all. */
long blocked_default_block(gpuopt_host_tiled::Pipeline* p);

/** The steps of one blocked call (blocked_steps.hpp): gemm on the pipeline and nb x nb triangular
 *  multiplies and solves on device 0, each on the CPU once a GPU step has failed. Caller holds the
 *  engine's mutex for the object's lifetime. Operands are host (or managed) memory. */
template <class T>
class Blocked final : public BlockSteps<T> {
 public:
  Blocked(Engine& e, gpuopt_host_tiled::Pipeline* p, const char* routine, long nb);
  ~Blocked() override;
  Blocked(const Blocked&) = delete;
  Blocked& operator=(const Blocked&) = delete;

  long nb() const override { return nb_; }
  void gemm(char ta, char tb, long m, long n, long k, T alpha, const T* A, long lda, const T* B,
            long ldb, T beta, T* C, long ldc) override;
  void triangular(bool solve, char side, char uplo, char ta, char diag, long m, long n, T alpha,
                  const T* A, long lda, T* B, long ldb) override;

  /** What ran where, and the failure if any, for the log line. */
  std::string summary() const;

 private:
  bool inject_failure();  // GPUOPT_BLAS_OOC_FAIL_STEP names this step
  bool device_triangular(bool solve, char side, char uplo, char ta, char diag, long m, long n,
                         T alpha, const T* A, long lda, T* B, long ldb, std::string* error);
  void fail(const std::string& error);
  void release_workspace();  // frees dA_ and dB_ (and forgets the cached diagonal block)

  Engine& e_;
  gpuopt_host_tiled::Pipeline* p_;  // nullptr after a failure: the CPU does the rest
  const char* routine_;
  long nb_;
  T* dA_ = nullptr;  // nb x nb each, on device index 0, made at the first diagonal step
  T* dB_ = nullptr;
  bool no_workspace_ = false;    // the workspace could not be had: diagonal steps on the CPU
  const T* cached_a_ = nullptr;  // the diagonal block now in dA_ (its first element and order)
  long cached_na_ = 0;
  long gpu_gemms_ = 0, cpu_gemms_ = 0, gpu_steps_ = 0, cpu_steps_ = 0;
  long step_ = 0;  // steps begun on the GPU
  std::string error_;
};

}  // namespace gpu
}  // namespace gpuopt_blas
