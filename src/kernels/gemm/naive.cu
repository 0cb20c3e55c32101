// gemm naive: one thread per element of C, the dot product read straight from global memory.
// The textbook rung (the starting reference figure: 0.8% of cuBLAS DGEMM at n = 4096 on an H200).
// Handles every type, transpose, leading dimension and batch; the reference the other rungs are
// checked against.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common/launch.hpp"
#include "kernels/gemm/gemm.hpp"

namespace gpuopt {
namespace {

template <class T>
__device__ __forceinline__ float to_acc(T v, float) {
  return static_cast<float>(v);
}
__device__ __forceinline__ double to_acc(double v, double) { return v; }
__device__ __forceinline__ float to_acc(__nv_bfloat16 v, float) { return __bfloat162float(v); }
__device__ __forceinline__ float to_acc(__half v, float) { return __half2float(v); }

// Rounds f32 to TF32 (10-bit mantissa, round to nearest) so compute TF32 matches the tensor cores.
__device__ __forceinline__ float round_tf32(float v) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
  return __uint_as_float(r);
}

template <class TC, class Acc>
__device__ __forceinline__ TC from_acc(Acc v) {
  return static_cast<TC>(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_acc<__nv_bfloat16, float>(float v) {
  return __float2bfloat16(v);
}
template <>
__device__ __forceinline__ __half from_acc<__half, float>(float v) {
  return __float2half(v);
}

template <class TA, class TC, class Acc, bool kTf32>
__global__ void gemm_naive_kernel(GemmProblem p) {
  const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long col = static_cast<long long>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (row >= p.m || col >= p.n) return;
  const long long a_row_step = p.trans_a == GPUOPT_TRANS_N ? 1 : p.lda;  // along m
  const long long a_k_step = p.trans_a == GPUOPT_TRANS_N ? p.lda : 1;    // along k
  const long long b_k_step = p.trans_b == GPUOPT_TRANS_N ? 1 : p.ldb;
  const long long b_col_step = p.trans_b == GPUOPT_TRANS_N ? p.ldb : 1;
  for (long long z = blockIdx.z; z < p.batch; z += gridDim.z) {
    const TA* A = static_cast<const TA*>(p.A) + z * p.stride_a + row * a_row_step;
    const TA* B = static_cast<const TA*>(p.B) + z * p.stride_b + col * b_col_step;
    TC* C = static_cast<TC*>(p.C) + z * p.stride_c + col * p.ldc + row;
    Acc acc = 0;
    for (long long kk = 0; kk < p.k; ++kk) {
      Acc a = to_acc(A[kk * a_k_step], Acc{});
      Acc b = to_acc(B[kk * b_k_step], Acc{});
      if constexpr (kTf32) {
        a = round_tf32(a);
        b = round_tf32(b);
      }
      acc = fma(a, b, acc);
    }
    Acc out = static_cast<Acc>(p.alpha) * acc;
    if (p.beta != 0.0) out = fma(static_cast<Acc>(p.beta), to_acc(*C, Acc{}), out);
    *C = from_acc<TC, Acc>(out);
  }
}

template <class TA, class TC, class Acc, bool kTf32 = false>
gpuopt_status_t launch(const GemmProblem& p, const ExecEnv& env) {
  const dim3 block(16, 16);
  const long long gx = ceil_div(p.m, 16), gy = ceil_div(p.n, 16);
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy),
                  static_cast<unsigned>(p.batch < 65535 ? p.batch : 65535));
  gemm_naive_kernel<TA, TC, Acc, kTf32><<<grid, block, 0, env.stream>>>(p);
  return check_launch(env.fn, "gemm naive kernel launch");
}

}  // namespace

gpuopt_status_t gemm_launch_naive(const GemmProblem& p, const ExecEnv& env) {
  switch (p.a_type) {
    case GPUOPT_DTYPE_F64:
      return launch<double, double, double>(p, env);
    case GPUOPT_DTYPE_F32:
      return p.compute == GPUOPT_COMPUTE_TF32 ? launch<float, float, float, true>(p, env)
                                              : launch<float, float, float>(p, env);
    case GPUOPT_DTYPE_BF16:
      return p.c_type == GPUOPT_DTYPE_BF16 ? launch<__nv_bfloat16, __nv_bfloat16, float>(p, env)
                                           : launch<__nv_bfloat16, float, float>(p, env);
    case GPUOPT_DTYPE_F16:
      return p.c_type == GPUOPT_DTYPE_F16 ? launch<__half, __half, float>(p, env)
                                          : launch<__half, float, float>(p, env);
    default:
      return fail(GPUOPT_ERROR_INTERNAL, env.fn, "gemm naive: unexpected dtype");
  }
}

}  // namespace gpuopt
