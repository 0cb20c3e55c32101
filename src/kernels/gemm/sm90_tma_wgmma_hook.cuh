// sm90_tma_wgmma: the Hook contract of the register-P path, its identity and the optional hook
// traits. A fused user of the kernel (an op outside gemm) defines its own Hook type in its own
// folder; the kernel knows only this contract.
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/gemm/sm90_tma_wgmma.hpp"
#include "kernels/gemm/sm90_tma_wgmma_store.cuh"

namespace gpuopt {
namespace sm90 {

// The Hook contract. A Hook is a template argument of the kernel (register-P path only) and
// travels beside Params; IdentityHook compiles to the plain GEMM.
//   kPRepeat: each k block of P serves kPRepeat consecutive k blocks of Q (P's k block is
//     kb / kPRepeat): several products of one P block with different Q data (3xTF32 parts).
//   kQShared: Q is the same matrix for every batch (its map has one batch, coordinate 0).
//   kPResident: the resident-P schedule (kResXBlocks in sm90_tma_wgmma.hpp; kSwap, K <= 256,
//     one tile of Q rows): the epilogue's Pre of rows r, r + 1 of column col is P(r.., col) read
//     from the resident tile (a float2), not load(); kEpiGroup must be 4 (one P k block a group).
//   operand(a, kb): rewrites the 16 P registers of k block kb after their shared loads.
//   Pre, load(ptr, col, valid, pair): what the store of rows r, r + 1 of column col needs from
//     memory, read for the kEpiGroup j steps of a group before their stores (loads issued
//     together, not one load-use-store chain per column).
//   store<TOut, kReadC>(ptr, col, v0, v1, valid, pair, p, pre): writes rows r, r + 1 (valid of
//     them) of column col of C at ptr; the identity is store_pair's alpha * v + beta * C.
// Optional members, detected by the traits below: kSplitK (with coords) and kQSplitSmem (with
// operand_split).
struct IdentityHook {
  static constexpr int kPRepeat = 1;
  static constexpr int kEpiGroup = 32;  // (no loads: one group, the plain store loop)
  static constexpr bool kQShared = false;
  static constexpr bool kPResident = false;
  struct Pre {};
  __device__ __forceinline__ void operand(std::uint32_t (&)[16], int) const {}
  template <class TOut>
  __device__ __forceinline__ Pre load(const TOut*, int, int, bool) const {
    return {};
  }
  template <class TOut, bool kReadC>
  __device__ __forceinline__ void store(TOut* ptr, int, float v0, float v1, int valid, bool pair,
                                        const Params& p, const Pre&) const {
    store_pair<TOut, kReadC>(ptr, v0, v1, valid, pair, p.alpha, p.beta);
  }
};

// Split-K hooks (optional): a hook with `static constexpr bool kSplitK = true` supplies the TMA
// coordinates of each k block itself: coords(b, kb, pk, pb, qk, qb) gets the unit's batch b and
// k block kb and sets P's (k, batch) and Q's (k, batch) coordinates (the defaults: kb / kPRepeat
// and kb blocks of k, batch b (Q: 0 when kQShared)), so one "batch" of the kernel can be a k
// range of a larger sum whose partial the epilogue writes at batch b.
template <class H, class = void>
struct HookSplitK : std::false_type {};
template <class H>
struct HookSplitK<H, std::void_t<decltype(H::kSplitK)>> : std::integral_constant<bool, H::kSplitK> {
};

// 3xTF32 with Q split in shared memory (optional), its two corrections as one bf16 wgmma: a hook
// with `static constexpr bool kQSplitSmem = true` gets each k block's P registers as
// operand_split(hi, pairs, kb) (P's raw values in hi; it leaves in hi P's TF32 part P_hi, exact
// in TF32 (low 13 bits zero), and in pairs the bf16 pairs (P - P_hi, P_hi), low half first: a
// register of the TF32 fragment (k j) becomes the bf16 fragment's pair (k 2j, 2j + 1)). The
// consumers form the bf16 pairs (Q, Q_lo), Q_lo = Q - trunc_tf32(Q), from each stage's Q tile
// into one of two shared buffers of the same swizzled layout (kQsStages stages, kQsSmemBytes), so
// per 8-deep k step one TF32 wgmma accumulates P_hi Q (Q's hi part: the tensor cores'
// truncation of Q itself; issued before the pairs are formed) and one bf16 m64nNk16 wgmma
// P_lo Q + P_hi Q_lo (each operand rounded to bf16: <= 2^-19 of |P Q| per product; unlike
// 3xTF32 the P_lo Q term keeps P_lo Q_lo). One stage load per k block (kPRepeat 1): no low part
// of Q in global memory.
template <class H, class = void>
struct HookQSplitSmem : std::false_type {};
template <class H>
struct HookQSplitSmem<H, std::void_t<decltype(H::kQSplitSmem)>>
    : std::integral_constant<bool, H::kQSplitSmem> {};

}  // namespace sm90
}  // namespace gpuopt
