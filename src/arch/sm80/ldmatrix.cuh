// ldmatrix (sm_75+, used by the sm_80 tensor-core paths): each thread of the warp supplies the
// address of one 16-byte row of an 8 x 8 b16 matrix in shared memory and receives one 32-bit
// register of each matrix: thread l gets row l / 4, element pair l % 4. Threads 0-7 address the
// rows of matrix 0, 8-15 of matrix 1, and so on (x2: threads 0-15; the others' addresses are
// ignored but must be valid). For 32-bit data the same instruction hands out 8 x 4 tiles of f32 /
// tf32 in the mma.m16n8k8 fragment layout (GDN's tf32 GEMM).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "arch/sm80/smem_addr.cuh"

namespace gpuopt {
namespace sm80 {

// Four 8 x 8 b16 matrices (rows 16-byte aligned).
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}

// Two 8 x 8 b16 matrices (rows 16-byte aligned).
__device__ __forceinline__ void ldmatrix_x2(std::uint32_t (&r)[2], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(smem_addr(p)));
}

}  // namespace sm80
}  // namespace gpuopt
