// sm90_tma_wgmma: one kernel instantiation's configuration, KernelCfg: the template choices (see
// below) and everything derived from them that the parts (producer, main loops, epilogues)
// share: shared-memory strides of the operand tiles, wgmma descriptor strides, the stage ring.
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/gemm/sm90_tma_wgmma.hpp"
#include "kernels/gemm/sm90_tma_wgmma_hook.cuh"

namespace gpuopt {
namespace sm90 {

// TIn: the input element type (__nv_bfloat16, __half, or float for tf32); TOut: C's type.
// PK / QK: the P / Q operand is K-major in global memory (else MN-major, 16-bit types only).
// Cluster: 1, or 2 CTAs (launched as a cluster) on consecutive column tiles of one row tile,
// each loading half of the shared Q tile and multicasting it to both.
// PRegs (tf32, !PK; PK too with a split-K hook, 4-byte shared loads of K-major rows): P is read
// from shared memory into registers (wgmma RS form), since tf32 wgmma reads only K-major shared
// operands; Swap: P = op(A), Q = op(B)^T (D(i, j) = C(i, j)).
// PP: the ping-pong schedule (Cfg<true>): each consumer computes whole kBlockM x kPpBlockN tiles
// with two m64n128 wgmma per k step, the consumers taking alternate tiles of the CTA's sequence.
// HookT: IdentityHook, or a fused user's hooks of the register-P path (sm90_tma_wgmma_hook.cuh).
template <class TIn, class TOut, bool PK, bool QK, int Cluster, bool PRegs = false,
          bool Swap = false, bool PP = false, class HookT = IdentityHook>
struct KernelCfg {
  using In = TIn;
  using Out = TOut;
  using Hook = HookT;
  using Cf = Cfg<PP>;
  static constexpr bool kPK = PK, kQK = QK, kPRegs = PRegs, kSwap = Swap, kPP = PP;
  static constexpr int kCluster = Cluster;
  static_assert(!kPP || (sizeof(TIn) == 2 && !kPRegs), "ping-pong: 16-bit inputs");
  static constexpr int kElem = static_cast<int>(sizeof(TIn));
  static constexpr int kKElems = kRowBytes / kElem;        // K elements per stage
  static constexpr int kChunkBytes = kKElems * kRowBytes;  // MN-major: one 64-wide chunk of a tile
  static constexpr int kMnBox = kRowBytes / kElem;         // MN-major box width (elements)
  // Descriptor strides: K-major SBO = 8 rows x 128 B; MN-major LBO = chunk, SBO = 8 K-rows.
  static constexpr std::uint32_t kLboP = kPK ? 16 : kChunkBytes, kLboQ = kQK ? 16 : kChunkBytes;
  static constexpr std::uint32_t kSbo = 1024;
  // Start-address step per wgmma: 32 bytes of K (K-major), or 32 / kElem K-rows (MN-major).
  static constexpr std::uint32_t kStepP = kPK ? 32 : (32 / kElem) * kRowBytes;
  static constexpr std::uint32_t kStepQ = kQK ? 32 : (32 / kElem) * kRowBytes;
  static_assert(kPK || kElem == 2 || kPRegs, "MN-major shared operands need a 16-bit type");
  // (register P K-major: 4-byte shared loads; only the split-K hooks use it)
  static_assert(!kPRegs || (kElem == 4 && (!kPK || HookSplitK<Hook>::value) && kQK),
                "register P: tf32, P MN-major (or K-major with split-K hooks), Q K-major");
  static_assert(!kSwap || kPRegs, "swapped roles only on the register-P path");
  static_assert(kQK || kElem == 2, "MN-major operands need a 16-bit type");
  static_assert(kCluster == 1 || kCluster == 2, "clusters of 1 or 2");
  static_assert(kPRegs || std::is_same<Hook, IdentityHook>::value, "hooks: register-P path only");
  static constexpr int kQRows = Cf::kBN / kCluster;  // rows of Q this CTA loads (and multicasts)
  // Resident-P schedule: the P tile's k blocks at the start of shared memory, then a ring of
  // Q-only stages (sm90_tma_wgmma.hpp).
  static constexpr bool kRes = Hook::kPResident;
  static_assert(!kRes || (kPRegs && kSwap && !kPP), "resident P: register-P, swapped roles");
  // Q split in shared memory: kQsStages stages, then the two buffers of Q's bf16 pairs.
  static constexpr bool kQs = HookQSplitSmem<Hook>::value;
  static_assert(!kQs || (kPRegs && !kRes && Hook::kPRepeat == 1), "Q split: register P, no repeat");
  static constexpr int kNumStages = kRes ? kResStages : kQs ? kQsStages : Cf::kNumStages;
  static constexpr int kRingBase = kRes ? kResXBlocks * kTilePBytes : 0;  // offset of the ring
  static constexpr int kNumBars = 2 * kNumStages + (kRes ? 2 * kResXBlocks : 0);
  // Staged epilogue (shared-operand main loops and the register-P path's plain GEMM; a hook
  // keeps its own epilogue): kEpiStageBytes after the ring.
  static constexpr bool kEpiStaged = !kPRegs || std::is_same<Hook, IdentityHook>::value;
  static constexpr int kEpiBase = kNumStages * Cf::kStage;  // offset of the staging buffers
  // Stream-K tail (Params::sk_units): the plain GEMM of the cooperative schedules in clusters of
  // 2. Cluster 1 runs a single column tile (P side <= 128), which fills a wave only past 33792 Q
  // rows and was not measured; leaving the tail out of those kernels keeps the build's longest
  // units short (the CI test workflow went from 403-415 s to 472 s with it in every cooperative
  // kernel).
  static constexpr bool kStreamK = !kPP && kCluster > 1 && std::is_same<Hook, IdentityHook>::value;
  // Dynamic shared memory of the launch.
  static constexpr int kSmem = kRes  ? kResSmemBytes
                               : kQs ? kQsSmemBytes
                                     : kSmemBytes + (kEpiStaged ? kEpiStageBytes : 0);
  static_assert(!kEpiStaged || kEpiBase + kEpiStageBytes + 1024 <= kSmem, "staging fits");
};

// Shared addresses of one CTA: the 1024-aligned operand tiles, the resident-P tile's k block
// barriers xfull[0..kResXBlocks), xempty[0..kResXBlocks) (after the ring's), and the staged
// epilogue's buffers (kEpiStaged: kEpiWarpBytes per consumer warp).
struct KernelSmem {
  std::uint32_t tiles, xfull0, xempty0, epi;
};

}  // namespace sm90
}  // namespace gpuopt
