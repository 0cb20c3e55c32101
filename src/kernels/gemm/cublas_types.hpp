// What the two vendor rungs (cublas_vendor.cpp, cublaslt_vendor.cpp) tell cuBLAS about a gemm
// problem: element types, operations and the compute type. Both make the call PyTorch makes for
// the same problem (aten/src/ATen/cuda/CUDABlas.cpp, docs/notes/gemm.md "Vendor rungs").
#pragma once
#include <cublas_v2.h>

#include "kernels/gemm/gemm.hpp"

namespace gpuopt {

inline cudaDataType_t gemm_cuda_type(gpuopt_dtype_t t) {
  switch (t) {
    case GPUOPT_DTYPE_F64:
      return CUDA_R_64F;
    case GPUOPT_DTYPE_BF16:
      return CUDA_R_16BF;
    case GPUOPT_DTYPE_F16:
      return CUDA_R_16F;
    default:
      return CUDA_R_32F;
  }
}

inline cublasOperation_t gemm_cublas_op(gpuopt_transpose_t t) {
  return t == GPUOPT_TRANS_N ? CUBLAS_OP_N : CUBLAS_OP_T;
}

// 64F for f64; FAST_TF32 for tf32; otherwise plain 32F: for f32 inputs that is fp32 FMA without
// tensor cores (cuBLAS uses TF32 for 32F only under CUBLAS_TF32_TENSOR_OP_MATH, which gpuopt
// never sets: PyTorch's allow_tf32=False sgemm), for bf16/f16 inputs an f32 accumulator on the
// tensor cores. Not 32F_PEDANTIC: it rules out kernels (PyTorch's exact f32 does not use it).
inline cublasComputeType_t gemm_cublas_compute(const GemmProblem& p) {
  if (p.compute == GPUOPT_COMPUTE_F64) return CUBLAS_COMPUTE_64F;
  if (p.compute == GPUOPT_COMPUTE_TF32) return CUBLAS_COMPUTE_32F_FAST_TF32;
  return CUBLAS_COMPUTE_32F;
}

// alpha and beta in the scale type of the compute type (f64 for 64F, else f32), in host memory.
struct GemmScalars {
  explicit GemmScalars(const GemmProblem& p)
      : wide(gemm_cublas_compute(p) == CUBLAS_COMPUTE_64F),
        alpha64(p.alpha),
        beta64(p.beta),
        alpha32(static_cast<float>(p.alpha)),
        beta32(static_cast<float>(p.beta)) {}
  GemmScalars(const GemmScalars&) = delete;  // alpha() and beta() point into the object
  GemmScalars& operator=(const GemmScalars&) = delete;
  const void* alpha() const { return wide ? static_cast<const void*>(&alpha64) : &alpha32; }
  const void* beta() const { return wide ? static_cast<const void*>(&beta64) : &beta32; }
  cudaDataType_t scale_type() const { return wide ? CUDA_R_64F : CUDA_R_32F; }

  bool wide;
  double alpha64, beta64;
  float alpha32, beta32;
};

}  // namespace gpuopt
