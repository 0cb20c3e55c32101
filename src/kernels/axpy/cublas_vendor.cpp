// axpy cublas: cublasSaxpy_64 / cublasDaxpy_64 on the stream's own cuBLAS handle. The vendor
// baseline every rung is measured against; also serves any stride.
#include <cublas_v2.h>

#include "kernels/axpy/axpy.hpp"
#include "runtime/blas_error.hpp"

namespace gpuopt {

gpuopt_status_t axpy_launch_cublas(const AxpyProblem& p, const ExecEnv& env) {
  cublasStatus_t st;
  if (p.dtype == GPUOPT_DTYPE_F32) {
    const float a = static_cast<float>(p.alpha);
    st = cublasSaxpy_64(env.blas, p.n, &a, static_cast<const float*>(p.x), p.incx,
                        static_cast<float*>(p.y), p.incy);
  } else {
    st = cublasDaxpy_64(env.blas, p.n, &p.alpha, static_cast<const double*>(p.x), p.incx,
                        static_cast<double*>(p.y), p.incy);
  }
  return st == CUBLAS_STATUS_SUCCESS ? GPUOPT_SUCCESS : blas_fail(st, env.fn, "cublas axpy");
}

}  // namespace gpuopt
