// The one translation of a cuBLAS status into a gpuopt status and message, for every cuBLAS call
// the library makes (handle set-up in the stream resources, the vendor rungs).
#pragma once
#include <cublas_v2.h>

#include "gpuopt.h"

namespace gpuopt {

// The status of a failed cuBLAS call, with "what: NAME (description)" as the message of fn:
// OUT_OF_MEMORY for CUBLAS_STATUS_ALLOC_FAILED, UNSUPPORTED for CUBLAS_STATUS_NOT_SUPPORTED (the
// problem is outside what cuBLAS implements on this device), CUBLAS for any other.
gpuopt_status_t blas_fail(cublasStatus_t st, const char* fn, const char* what);

}  // namespace gpuopt
