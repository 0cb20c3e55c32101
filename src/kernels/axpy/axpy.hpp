// AXPY (y = alpha * x + y): the problem and its variant table.
//
// Dispatch rule (measured, see docs/notes/axpy.md): among the variants that can implement the
// problem, prefer vec4_blocktile (fastest on ordinary and on compressible memory), then
// vec4_gridstride; naive handles any stride and alignment; cublas is the vendor baseline, last
// resort.
#pragma once
#include <cstdint>

#include "runtime/registry.hpp"

namespace gpuopt {

struct AxpyProblem {
  gpuopt_dtype_t dtype = GPUOPT_DTYPE_F32;
  std::int64_t n = 0;
  double alpha = 0.0;
  const void* x = nullptr;
  std::int64_t incx = 1;
  void* y = nullptr;
  std::int64_t incy = 1;
  bool compressible = false;  // x or y lies in a compressed gpuopt buffer
};

gpuopt_status_t axpy_launch_naive(const AxpyProblem& p, const ExecEnv& env);
gpuopt_status_t axpy_launch_vec4_gridstride(const AxpyProblem& p, const ExecEnv& env);
gpuopt_status_t axpy_launch_vec4_blocktile(const AxpyProblem& p, const ExecEnv& env);
gpuopt_status_t axpy_launch_cublas(const AxpyProblem& p, const ExecEnv& env);

// The table, in ladder order (textbook rung first, vendor last).
const Variant<AxpyProblem>* axpy_variants(int* count);

}  // namespace gpuopt
