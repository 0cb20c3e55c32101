// Hopper (sm_90a) PTX wrappers for the sm90_tma_wgmma GEMM: mbarriers, TMA tensor loads, wgmma
// descriptors and the m64n256 wgmma instructions, setmaxnreg. Every wrapper compiles only where
// __CUDA_ARCH_FEAT_SM90_ALL is defined (the sm_90a pass); elsewhere the callers' bodies are empty.
#pragma once
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// ---- mbarrier ------------------------------------------------------------------------------

__device__ __forceinline__ void mbar_init(std::uint32_t bar, std::uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

// Makes the initialised barriers visible to the async proxy (TMA) and the other threads (a
// __syncthreads follows).
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival plus `bytes` of expected transactions (the TMA copies complete them).
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint32_t bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbar_arrive(std::uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

// Arrives on the barrier at the same shared offset in CTA `cta` of the cluster (default
// semantics, as CUTLASS's ClusterBarrier: the stage's readers are wgmma, already complete).
__device__ __forceinline__ void mbar_arrive_cluster(std::uint32_t bar, std::uint32_t cta) {
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(bar),
      "r"(cta)
      : "memory");
}

// ---- clusters -------------------------------------------------------------------------------

__device__ __forceinline__ std::uint32_t cluster_ctarank() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// Full cluster barrier (every thread of every CTA of the cluster; threads may be diverged).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}

// Every thread of the kCluster CTAs meets (kCluster 1: of this CTA): after the barriers'
// initialisation, before any multicast or remote arrive can reach them.
template <int kCluster>
__device__ __forceinline__ void cluster_or_cta_sync() {
  if constexpr (kCluster > 1)
    cluster_sync();
  else
    __syncthreads();
}

// One warp hands a ring stage back: lane 0 arrives on the barrier at the same shared offset in
// every CTA of the cluster (each CTA's producer multicasts into all of them), or on this CTA's.
template <int kCluster>
__device__ __forceinline__ void release_stage(std::uint32_t bar) {
  if ((threadIdx.x & 31) != 0) return;
  if constexpr (kCluster > 1) {
#pragma unroll
    for (int c = 0; c < kCluster; ++c) mbar_arrive_cluster(bar, c);
  } else {
    mbar_arrive(bar);
  }
}

// Waits until the phase of parity `parity` has completed (returns at once on a fresh barrier
// when parity == 1: the phase "before" the first counts as complete).
__device__ __forceinline__ void mbar_wait(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}

// Named barriers between the two consumer warpgroups (ids 1 and 2; 0 is __syncthreads): the
// waiting warpgroup's bar.sync completes once the other's 128 threads have called bar.arrive.
__device__ __forceinline__ void named_sync(std::uint32_t id, std::uint32_t threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_arrive(std::uint32_t id, std::uint32_t threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// ---- TMA ------------------------------------------------------------------------------------

__device__ __forceinline__ void tma_prefetch_desc(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}

// 3D tiled load of the box at {c0, c1, c2} into shared memory at dst, completing on bar.
__device__ __forceinline__ void tma_load_3d(std::uint32_t dst, const CUtensorMap* map,
                                            std::uint32_t bar, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
      : "memory");
}

// L2 eviction policies for the cache-hinted loads below (createpolicy, the whole access).
__device__ __forceinline__ std::uint64_t l2_evict_first() {
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
__device__ __forceinline__ std::uint64_t l2_evict_last() {
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
}

// tma_load_3d with an L2 eviction policy (l2_evict_first / l2_evict_last).
__device__ __forceinline__ void tma_load_3d_hint(std::uint32_t dst, const CUtensorMap* map,
                                                 std::uint32_t bar, int c0, int c1, int c2,
                                                 std::uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".L2::cache_hint [%0], [%1, {%2, %3, %4}], [%5], %6;" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "l"(policy)
      : "memory");
}

// The same load delivered to the same shared offsets (data and barrier) of every CTA in mask.
__device__ __forceinline__ void tma_load_3d_multicast(std::uint32_t dst, const CUtensorMap* map,
                                                      std::uint32_t bar, int c0, int c1, int c2,
                                                      std::uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3, %4}], [%5], %6;" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "h"(mask)
      : "memory");
}

// Prefetch of the 3D box at {c0, c1, c2} into L2 (no shared memory, no barrier).
__device__ __forceinline__ void tma_prefetch_l2_3d(const CUtensorMap* map, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

// ---- registers ------------------------------------------------------------------------------

template <std::uint32_t kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegs));
}
template <std::uint32_t kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegs));
}

// ---- wgmma ----------------------------------------------------------------------------------

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

// D(64x256, f32) (+)= A(64xK) * B(Kx256) from shared memory, K = 16 (16-bit types) or 8 (tf32).
// scale_d == 0 overwrites D. kTransA/kTransB: 1 = operand stored MN-major (16-bit types only).
struct WgmmaBf16 {
  // D(64x128) variant (ping-pong tiles): 64 accumulators per thread.
  template <int kTransA, int kTransB>
  static __device__ __forceinline__ void mma(float (&d)[64], std::uint64_t da, std::uint64_t db,
                                             std::uint32_t scale_d) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " GPUOPT_WG_REGS64
        ", %64, %65, p, 1, 1, %67, %68;\n}\n"
        : GPUOPT_WG_D64
        : "l"(da), "l"(db), "r"(scale_d), "n"(kTransA), "n"(kTransB));
  }
  template <int kTransA, int kTransB>
  static __device__ __forceinline__ void mma(float (&d)[128], std::uint64_t da, std::uint64_t db,
                                             std::uint32_t scale_d) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " GPUOPT_WG_REGS128
        ", %128, %129, p, 1, 1, %131, %132;\n}\n"
        : GPUOPT_WG_D128
        : "l"(da), "l"(db), "r"(scale_d), "n"(kTransA), "n"(kTransB));
  }
};

struct WgmmaF16 {
  template <int kTransA, int kTransB>
  static __device__ __forceinline__ void mma(float (&d)[64], std::uint64_t da, std::uint64_t db,
                                             std::uint32_t scale_d) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " GPUOPT_WG_REGS64
        ", %64, %65, p, 1, 1, %67, %68;\n}\n"
        : GPUOPT_WG_D64
        : "l"(da), "l"(db), "r"(scale_d), "n"(kTransA), "n"(kTransB));
  }
  template <int kTransA, int kTransB>
  static __device__ __forceinline__ void mma(float (&d)[128], std::uint64_t da, std::uint64_t db,
                                             std::uint32_t scale_d) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " GPUOPT_WG_REGS128
        ", %128, %129, p, 1, 1, %131, %132;\n}\n"
        : GPUOPT_WG_D128
        : "l"(da), "l"(db), "r"(scale_d), "n"(kTransA), "n"(kTransB));
  }
};

// tf32 takes no transpose immediates: both operands must be K-major.
struct WgmmaTf32 {
  // D(64x64) variant: 32 accumulators per thread.
  template <int kTransA, int kTransB>
  static __device__ __forceinline__ void mma(float (&d)[32], std::uint64_t da, std::uint64_t db,
                                             std::uint32_t scale_d) {
    static_assert(kTransA == 0 && kTransB == 0, "wgmma tf32 needs K-major operands");
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 " GPUOPT_WG_REGS32
        ", %32, %33, p, 1, 1;\n}\n"
        : GPUOPT_WG_D32
        : "l"(da), "l"(db), "r"(scale_d));
  }
  template <int kTransA, int kTransB>
  static __device__ __forceinline__ void mma(float (&d)[128], std::uint64_t da, std::uint64_t db,
                                             std::uint32_t scale_d) {
    static_assert(kTransA == 0 && kTransB == 0, "wgmma tf32 needs K-major operands");
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " GPUOPT_WG_REGS128
        ", %128, %129, p, 1, 1;\n}\n"
        : GPUOPT_WG_D128
        : "l"(da), "l"(db), "r"(scale_d));
  }
};

// D(64x256, f32) (+)= A(64x8) * B(8x256), tf32, A from registers (the RS form: any layout in
// shared memory can feed A), B K-major from shared memory. a[0..3] hold, for lane l of warp w of
// the warpgroup, A(16w + l/4 (+8 for a1, a3), l%4 (+4 for a2, a3)). The registers must hold their
// values until wgmma.wait_group reports the group complete.
struct WgmmaTf32Rs {
  // D(64x128) variant: 64 accumulators per thread.
  static __device__ __forceinline__ void mma(float (&d)[64], const std::uint32_t* a,
                                             std::uint64_t db, std::uint32_t scale_d) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " GPUOPT_WG_REGS64
        ", {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
        : GPUOPT_WG_D64
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
  }
  static __device__ __forceinline__ void mma(float (&d)[128], const std::uint32_t* a,
                                             std::uint64_t db, std::uint32_t scale_d) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " GPUOPT_WG_REGS128
        ", {%128, %129, %130, %131}, %132, p, 1, 1;\n}\n"
        : GPUOPT_WG_D128
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
  }
};

// Two consecutive 32-bit words from shared memory (8-byte aligned address).
__device__ __forceinline__ void lds64(std::uint32_t addr, std::uint32_t& x, std::uint32_t& y) {
  asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(addr) : "memory");
}

// Two consecutive 32-bit words to shared memory (8-byte aligned address).
__device__ __forceinline__ void sts64(std::uint32_t addr, std::uint32_t x, std::uint32_t y) {
  asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(addr), "r"(x), "r"(y) : "memory");
}

// One 32-bit word from shared memory.
__device__ __forceinline__ std::uint32_t lds32(std::uint32_t addr) {
  std::uint32_t x;
  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(x) : "r"(addr) : "memory");
  return x;
}

// Four consecutive 32-bit words from / to shared memory (16-byte aligned address).
__device__ __forceinline__ uint4 lds128(std::uint32_t addr) {
  uint4 v;
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}
__device__ __forceinline__ void sts128(std::uint32_t addr, uint4 v) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(v.x), "r"(v.y), "r"(v.z),
               "r"(v.w)
               : "memory");
}

// Makes this thread's generic-proxy shared-memory writes visible to the async proxy (wgmma
// operands read from shared memory), before the barrier that publishes them.
__device__ __forceinline__ void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

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
