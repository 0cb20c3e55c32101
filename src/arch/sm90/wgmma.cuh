// Warpgroup matrix multiply-accumulate (wgmma, sm_90a): shared-memory matrix descriptors, the
// fence / commit / wait of the asynchronous window, compiler fences keeping accumulator and
// register operands in place across it, and the mma_async shapes the kernels use (bf16 and f16
// m64n128k16 / m64n256k16 with transpose immediates; tf32 m64n64k8 / m64n256k8 from shared
// memory; tf32 m64n64k8 / m64n128k8 / m64n256k8 and bf16 m64n64k16 / m64n128k16 / m64n256k16
// with A from registers). MmaFor<T> picks the flavour of an input type.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// Shared-memory matrix descriptor for the 128-byte swizzle: start address, leading and stride
// byte offsets (PTX "matrix descriptor format"; base offset 0: every tile starts 1024-aligned).
__device__ __forceinline__ std::uint64_t gmma_desc(std::uint32_t addr, std::uint32_t lbo,
                                                   std::uint32_t sbo) {
  return static_cast<std::uint64_t>((addr & 0x3FFFF) >> 4) |
         (static_cast<std::uint64_t>((lbo & 0x3FFFF) >> 4) << 16) |
         (static_cast<std::uint64_t>((sbo & 0x3FFFF) >> 4) << 32) | (1ull << 62);
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}

// Keeps the compiler from moving accumulator accesses across the asynchronous wgmma window.
template <int kN>
__device__ __forceinline__ void fence_operands(float (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

#define GPUOPT_WG_D8(i)                                                                       \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define GPUOPT_WG_D128                                                                            \
  GPUOPT_WG_D8(0), GPUOPT_WG_D8(8), GPUOPT_WG_D8(16), GPUOPT_WG_D8(24), GPUOPT_WG_D8(32),         \
      GPUOPT_WG_D8(40), GPUOPT_WG_D8(48), GPUOPT_WG_D8(56), GPUOPT_WG_D8(64), GPUOPT_WG_D8(72),   \
      GPUOPT_WG_D8(80), GPUOPT_WG_D8(88), GPUOPT_WG_D8(96), GPUOPT_WG_D8(104), GPUOPT_WG_D8(112), \
      GPUOPT_WG_D8(120)
#define GPUOPT_WG_D64                                                                     \
  GPUOPT_WG_D8(0), GPUOPT_WG_D8(8), GPUOPT_WG_D8(16), GPUOPT_WG_D8(24), GPUOPT_WG_D8(32), \
      GPUOPT_WG_D8(40), GPUOPT_WG_D8(48), GPUOPT_WG_D8(56)
#define GPUOPT_WG_D32 GPUOPT_WG_D8(0), GPUOPT_WG_D8(8), GPUOPT_WG_D8(16), GPUOPT_WG_D8(24)
#define GPUOPT_WG_REGS32                                                    \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define GPUOPT_WG_REGS64                                                             \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "          \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define GPUOPT_WG_REGS128                                                                  \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "       \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "       \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "       \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "       \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "       \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, " \
  "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, "   \
  "%125, %126, %127}"

// The asm of an mma with both operands from shared memory (descriptors da, db; scale_d == 0
// overwrites D): INSTR the instruction with its accumulator list, DD the accumulators' constraints,
// PRED the operand number of scale_d, ARGS the instruction's operands after the accumulators
// (da, db, "p, 1, 1", any immediates) and the variadic part the immediates' constraints.
#define GPUOPT_WGMMA_SS_ASM(INSTR, DD, PRED, ARGS, ...)                              \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " PRED ", 0;\n" INSTR ARGS ";\n}\n" \
               : DD                                                                  \
               : "l"(da), "l"(db), "r"(scale_d)__VA_ARGS__)

// D(64x256, f32) (+)= A(64xK) * B(Kx256) from shared memory, K = 16 (16-bit types) or 8 (tf32).
// scale_d == 0 overwrites D. kTransA/kTransB: 1 = operand stored MN-major (16-bit types only).
// The 16-bit flavours differ only in the type of their operands (T: "bf16" or "f16").
#define GPUOPT_WGMMA_16BIT(Name, T)                                                                \
  struct Name {                                                                                    \
    /* D(64x128) variant (ping-pong tiles): 64 accumulators per thread. */                         \
    template <int kTransA, int kTransB>                                                            \
    static __device__ __forceinline__ void mma(float (&d)[64], std::uint64_t da, std::uint64_t db, \
                                               std::uint32_t scale_d) {                            \
      GPUOPT_WGMMA_SS_ASM(                                                                         \
          "wgmma.mma_async.sync.aligned.m64n128k16.f32." T "." T " " GPUOPT_WG_REGS64,             \
          GPUOPT_WG_D64, "%66", ", %64, %65, p, 1, 1, %67, %68", , "n"(kTransA), "n"(kTransB));    \
    }                                                                                              \
    template <int kTransA, int kTransB>                                                            \
    static __device__ __forceinline__ void mma(float (&d)[128], std::uint64_t da,                  \
                                               std::uint64_t db, std::uint32_t scale_d) {          \
      GPUOPT_WGMMA_SS_ASM("wgmma.mma_async.sync.aligned.m64n256k16.f32." T "." T                   \
                          " " GPUOPT_WG_REGS128,                                                   \
                          GPUOPT_WG_D128, "%130", ", %128, %129, p, 1, 1, %131, %132", ,           \
                          "n"(kTransA), "n"(kTransB));                                             \
    }                                                                                              \
  };
GPUOPT_WGMMA_16BIT(WgmmaBf16, "bf16")
GPUOPT_WGMMA_16BIT(WgmmaF16, "f16")
#undef GPUOPT_WGMMA_16BIT

// tf32 takes no transpose immediates: both operands must be K-major.
struct WgmmaTf32 {
  // D(64x64) variant: 32 accumulators per thread.
  template <int kTransA, int kTransB>
  static __device__ __forceinline__ void mma(float (&d)[32], std::uint64_t da, std::uint64_t db,
                                             std::uint32_t scale_d) {
    static_assert(kTransA == 0 && kTransB == 0, "wgmma tf32 needs K-major operands");
    GPUOPT_WGMMA_SS_ASM("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 " GPUOPT_WG_REGS32,
                        GPUOPT_WG_D32, "%34", ", %32, %33, p, 1, 1", );
  }
  template <int kTransA, int kTransB>
  static __device__ __forceinline__ void mma(float (&d)[128], std::uint64_t da, std::uint64_t db,
                                             std::uint32_t scale_d) {
    static_assert(kTransA == 0 && kTransB == 0, "wgmma tf32 needs K-major operands");
    GPUOPT_WGMMA_SS_ASM("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " GPUOPT_WG_REGS128,
                        GPUOPT_WG_D128, "%130", ", %128, %129, p, 1, 1", );
  }
};
#undef GPUOPT_WGMMA_SS_ASM

// The asm of an mma with A from registers a[0..3] (and B's descriptor db; scale_d == 0
// overwrites D): INSTR the instruction with its accumulator list, PRED the operand number of
// scale_d, ARGS the operands after the accumulators, the variadic part the accumulators'
// constraints.
#define GPUOPT_WGMMA_RS_ASM(INSTR, PRED, ARGS, ...)                                  \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " PRED ", 0;\n" INSTR ARGS ";\n}\n" \
               : __VA_ARGS__                                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d))

// One RS member function: D (NACC accumulators per thread) of instruction SHAPE_TYPES
// ("m64nNkK.f32.A.B") with accumulator list REGS; PRED, ARGS and the accumulators' constraints
// (the variadic part) as for GPUOPT_WGMMA_RS_ASM.
#define GPUOPT_WGMMA_RS_FN(NACC, SHAPE_TYPES, REGS, PRED, ARGS, ...)                      \
  static __device__ __forceinline__ void mma(float(&d)[NACC], const std::uint32_t* a,     \
                                             std::uint64_t db, std::uint32_t scale_d) {   \
    GPUOPT_WGMMA_RS_ASM("wgmma.mma_async.sync.aligned." SHAPE_TYPES " " REGS, PRED, ARGS, \
                        __VA_ARGS__);                                                     \
  }

// The three RS members (N = 64 / 128 / 256) of one input type: K_TYPES "kK.f32.A.B", TAIL the
// operands after scale-d's immediates (", 0": imm-trans-b for 16-bit types; "" for tf32).
#define GPUOPT_WGMMA_RS_FNS(K_TYPES, TAIL)                                       \
  GPUOPT_WGMMA_RS_FN(32, "m64n64" K_TYPES, GPUOPT_WG_REGS32, "%37",              \
                     ", {%32, %33, %34, %35}, %36, p, 1, 1" TAIL, GPUOPT_WG_D32) \
  GPUOPT_WGMMA_RS_FN(64, "m64n128" K_TYPES, GPUOPT_WG_REGS64, "%69",             \
                     ", {%64, %65, %66, %67}, %68, p, 1, 1" TAIL, GPUOPT_WG_D64) \
  GPUOPT_WGMMA_RS_FN(128, "m64n256" K_TYPES, GPUOPT_WG_REGS128, "%133",          \
                     ", {%128, %129, %130, %131}, %132, p, 1, 1" TAIL, GPUOPT_WG_D128)

// D(64xN, f32) (+)= A(64x8) * B(8xN), N = 64 / 128 / 256, tf32, A from registers (the RS form: any
// layout in shared memory can feed A), B K-major from shared memory. a[0..3] hold, for lane l of
// warp w of the warpgroup, A(16w + l/4 (+8 for a1, a3), l%4 (+4 for a2, a3)). The registers must
// hold their values until wgmma.wait_group reports the group complete.
struct WgmmaTf32Rs {
  GPUOPT_WGMMA_RS_FNS("k8.f32.tf32.tf32", "")
};
// D(64xN, f32) (+)= A(64x16) * B(16xN), N = 64 / 128 / 256, bf16, A from registers, B K-major from
// shared memory (imm-trans-b 0). a[0..3] hold bf16 pairs (low half the even k) for lane l of warp
// w: A(16w + l/4 (+8 for a1, a3), 2 (l%4) + {0, 1} (+8 for a2, a3)) -- the k of WgmmaTf32Rs's
// element times two, so a TF32 fragment's element becomes a pair in the same register.
struct WgmmaBf16Rs {
  GPUOPT_WGMMA_RS_FNS("k16.f32.bf16.bf16", ", 0")
};
#undef GPUOPT_WGMMA_RS_FNS
#undef GPUOPT_WGMMA_RS_FN
#undef GPUOPT_WGMMA_RS_ASM

// Keeps register operands of an in-flight wgmma in place (see WgmmaTf32Rs).
template <int kN>
__device__ __forceinline__ void fence_regs(std::uint32_t (&a)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+r"(a[i])::"memory");
}

// The wgmma flavour of an input element type (float: tf32).
template <class T>
struct MmaFor;
template <>
struct MmaFor<__nv_bfloat16> : WgmmaBf16 {};
template <>
struct MmaFor<__half> : WgmmaF16 {};
template <>
struct MmaFor<float> : WgmmaTf32 {};

#undef GPUOPT_WG_D8
#undef GPUOPT_WG_D32
#undef GPUOPT_WG_D64
#undef GPUOPT_WG_D128
#undef GPUOPT_WG_REGS32
#undef GPUOPT_WG_REGS64
#undef GPUOPT_WG_REGS128

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
