// can_implement shared by the SIMT exact f32/f64 gemm rungs (smem_tiled, smem_coalesced_padded,
// register_blocked; warptiled_cpasync adds its alignment and shared-memory needs on top).
#include "common/launch.hpp"
#include "kernels/gemm/gemm.hpp"

namespace gpuopt {

const char* gemm_can_simt_exact(const GemmProblem& p, const DeviceDesc&) {
  const bool f64 = p.a_type == GPUOPT_DTYPE_F64 && p.c_type == GPUOPT_DTYPE_F64 &&
                   p.compute == GPUOPT_COMPUTE_F64;
  const bool f32 = p.a_type == GPUOPT_DTYPE_F32 && p.c_type == GPUOPT_DTYPE_F32 &&
                   p.compute == GPUOPT_COMPUTE_F32;
  if (!f64 && !f32) return "exact f32/f64 only (compute F32 or F64; no TF32, bf16 or f16)";
  // The largest grid any of these rungs launches: one block per 16x16 tile along grid.x.
  // (m and n are bounded by the API's extent checks, so the product does not overflow.)
  if (ceil_div(p.m, 16) * ceil_div(p.n, 16) > kMaxGridX)
    return "m x n has more 16x16 tiles than a grid holds (2^31 - 1)";
  return nullptr;
}

}  // namespace gpuopt
