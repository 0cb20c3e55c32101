#include "runtime/blas_error.hpp"

#include "runtime/error.hpp"

namespace gpuopt {

gpuopt_status_t blas_fail(cublasStatus_t st, const char* fn, const char* what) {
  gpuopt_status_t status = GPUOPT_ERROR_CUBLAS;
  if (st == CUBLAS_STATUS_ALLOC_FAILED) status = GPUOPT_ERROR_OUT_OF_MEMORY;
  if (st == CUBLAS_STATUS_NOT_SUPPORTED) status = GPUOPT_ERROR_UNSUPPORTED;
  return fail(status, fn, "%s: %s (%s)", what, cublasGetStatusName(st), cublasGetStatusString(st));
}

}  // namespace gpuopt
