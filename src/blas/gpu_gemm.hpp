// gemm through the host-tiled pipeline with the engine's lock held: the host path of gpu::gemm
// and the bulk of the blocked out-of-core routines (gpu_blocked.hpp).
#pragma once

#include <string>

#include "gpu_engine.hpp"

namespace gpuopt_blas {
namespace gpu {

/** C = alpha op(A) op(B) + beta C (m, n, k > 0) on the pipeline @p p of @p e, all its devices;
 *  operands anywhere but at least one in host memory. The caller holds e.mutex(). Returns true
 *  when every tile ran on the GPU (@p why: the pipeline's plan). Returns false after a GPU
 *  failure: the tiles it left were finished on the CPU (C is complete and right; @p why says how
 *  many and why) and e.failed(@p routine) has dropped the pipeline, so @p p must not be used
 *  again. */
template <class T>
bool pipeline_gemm(Engine& e, gpuopt_host_tiled::Pipeline* p, const char* routine, char ta, char tb,
                   long m, long n, long k, T alpha, const T* A, long lda, const T* B, long ldb,
                   T beta, T* C, long ldc, std::string* why);

}  // namespace gpu
}  // namespace gpuopt_blas
