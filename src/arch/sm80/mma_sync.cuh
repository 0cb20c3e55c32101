// Warp-level tensor-core MMAs (mma.sync, sm_80 generation): D = A * B + D with register
// fragments in the PTX ISA layouts of each shape (PTX ISA, "Matrix fragments for mma.m16n8k8",
// "mma.m8n8k4" and "mma.m16n8k16"). The callers guard each use with the architecture it needs:
// these wrappers do not.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace gpuopt {
namespace sm80 {

// m16n8k8, tf32 inputs (the low 13 mantissa bits of each register are ignored), f32
// accumulators (sm_80+).
__device__ __forceinline__ void mma_m16n8k8_tf32(float (&c)[4], const std::uint32_t (&a)[4],
                                                 const std::uint32_t (&b)[2]) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// m16n8k16, bf16 inputs (two per register, the lower k index in the low half), f32
// accumulators (sm_80+): twice the k of the tf32 shape at the same tensor-pipe time per
// instruction.
__device__ __forceinline__ void mma_m16n8k16_bf16(float (&c)[4], const std::uint32_t (&a)[4],
                                                  const std::uint32_t (&b)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// v rounded to nearest TF32 (ties away from zero) with the 13 bits below TF32 cleared: the exact
// high part of a 3xTF32 split (v - hi is then exact in f32).
__device__ __forceinline__ std::uint32_t tf32_rna_bits(float v) {
  return (__float_as_uint(v) + 0x1000u) & 0xffffe000u;
}

// Two f32 values rounded to nearest bf16 in one register: lo in the low half (the lower k index of
// an mma fragment pair), hi in the high half (sm_80+).
__device__ __forceinline__ std::uint32_t pack_bf16x2(float lo, float hi) {
  std::uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// 3xTF32's two corrections as one bf16 product (a_lo b + a_hi b_lo, with k doubled: a register
// of a TF32 fragment (k j) becomes the bf16 pair (k 2j, 2j + 1) in the same register): the pair
// of one f32 operand v whose TF32 part is hi (v - hi exact). kA, the A side: (v - hi, hi); the B
// side: (v, v - hi). Low half first.
template <bool kA>
__device__ __forceinline__ std::uint32_t bf16_correction_pair(float v, float hi) {
  if constexpr (kA) return pack_bf16x2(v - hi, hi);
  return pack_bf16x2(v, v - hi);
}

// The same for four raw floats of a shared f32 operand whose TF32 part is the tensor cores'
// truncation of the value itself (hi = v with its low 13 bits cleared).
template <bool kA>
__device__ __forceinline__ uint4 bf16_correction_pairs_trunc(uint4 v) {
  auto pair = [](std::uint32_t u) {
    return bf16_correction_pair<kA>(__uint_as_float(u), __uint_as_float(u & 0xffffe000u));
  };
  return make_uint4(pair(v.x), pair(v.y), pair(v.z), pair(v.w));
}

// m8n8k4, f64 (sm_80+): c0, c1 += a * b over one 8 x 8 x 4 step.
__device__ __forceinline__ void mma_m8n8k4_f64(double& c0, double& c1, double a, double b) {
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
      : "+d"(c0), "+d"(c1)
      : "d"(a), "d"(b));
}

// m16n8k16, f64 (sm_90+, the shape Hopper added to the mma.sync family; not arch-specific).
__device__ __forceinline__ void mma_m16n8k16_f64(double (&c)[4], const double (&a)[8],
                                                 const double (&b)[4]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
      "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
      : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
        "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}

// Zeroes a warp tile's accumulator fragments (any element type and fragment grid): the start of
// every mma.sync main loop (f64_tensorcore's DMMA tiles, GDN's tf32 tiles).
template <class T, int kM, int kN, int kV>
__device__ __forceinline__ void zero_fragments(T (&acc)[kM][kN][kV]) {
#pragma unroll
  for (int i = 0; i < kM; ++i)
#pragma unroll
    for (int j = 0; j < kN; ++j)
#pragma unroll
      for (int v = 0; v < kV; ++v) acc[i][j][v] = T(0);
}

}  // namespace sm80
}  // namespace gpuopt
