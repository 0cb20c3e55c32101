// sm90_tma_wgmma: the consumers of the register-P path (the skeleton's main-loop part, wgmma RS
// form, tf32; cooperative schedule): per stage each thread loads its P rows into registers
// (sm90_tma_wgmma_regp.cuh), the Hook may rewrite them, and one m64n256 per k step reads Q from
// shared memory. Variants by Hook: resident P (P k blocks kept for the tile and its epilogue)
// and 3xTF32 with Q's bf16 correction pairs formed in shared memory (Q split). The plain GEMM
// (IdentityHook) takes the staged epilogue where the block fits (epilogue_regp_staged).
#pragma once
#include <cstdint>

#include "arch/sm80/mma_sync.cuh"
#include "arch/sm90/fence.cuh"
#include "arch/sm90/mbarrier.cuh"
#include "arch/sm90/named_barrier.cuh"
#include "arch/sm90/smem.cuh"
#include "arch/sm90/warp_specialized/consumer_mainloop.cuh"
#include "arch/sm90/warp_specialized/roles.cuh"
#include "arch/sm90/warp_specialized/schedule_cooperative.cuh"
#include "arch/sm90/wgmma.cuh"
#include "kernels/gemm/sm90_tma_wgmma_config.cuh"
#include "kernels/gemm/sm90_tma_wgmma_epilogue.cuh"
#include "kernels/gemm/sm90_tma_wgmma_regp.cuh"
#include "kernels/gemm/sm90_tma_wgmma_stream_k.cuh"
#include "kernels/gemm/sm90_tma_wgmma_tile_order.cuh"

namespace gpuopt {
namespace sm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

template <class K, class RingT>
__device__ __forceinline__ void consume_regp(const Params& p, const typename K::Hook& hook,
                                             const ClusterPlace& cp, const RingT& ring,
                                             const KernelSmem& sm, int consumer) {
  using Hook = typename K::Hook;
  using TOut = typename K::Out;
  using Cf = typename K::Cf;
  constexpr bool kRes = K::kRes, kQs = K::kQs;
  constexpr int kNumStages = K::kNumStages;
  constexpr std::uint32_t kLboQ = K::kLboQ, kSbo = K::kSbo, kStepQ = K::kStepQ;
  const std::uint32_t tiles = sm.tiles;
  const int lane = threadIdx.x & 31;
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  ConsumerMainloop<RingT> ml{ring};
  // P from registers: per stage 8 x 8-byte shared loads (4 k8 steps x rows prow, prow + 1 at
  // k = 8s + lane % 4 and + 4), double-buffered across k blocks (a buffer is rewritten only
  // after wait_group 1 has retired the group that read it).
  const RegRows rr = reg_rows();
  const int q = lane & 3;
  const std::uint32_t box = (consumer * 2 + rr.box) * K::kChunkBytes + (rr.prow & 3) * 4;
  [[maybe_unused]] const std::uint32_t off0 = box + 128 * q + ((rr.chunk ^ q) << 4);
  [[maybe_unused]] const std::uint32_t off1 = box + 128 * (q + 4) + ((rr.chunk ^ q ^ 4) << 4);
  std::uint32_t a0[16], a1[16];
  std::uint32_t xphase = 0;  // resident P: parity of this tile's P k blocks
  // The 16 P registers of a k block from the stage's P tile at sp.
  auto load_p = [&](std::uint32_t(&a)[16], std::uint32_t sp) {
    if constexpr (K::kPK) {
      // K-major P (128-byte rows of 32 k, 16-byte unit u of row r at u ^ (r % 8)): rows
      // r0 = prow, prow + 1 of this consumer, k = 8 s + q and + 4 (4-byte loads).
#pragma unroll
      for (int s = 0; s < kMmaPerStage; ++s) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int r = consumer * 64 + rr.prow + e;
          const std::uint32_t row = sp + r * kRowBytes + 4 * q;
          a[4 * s + e] = lds32(row + (((2 * s) ^ (r & 7)) << 4));
          a[4 * s + 2 + e] = lds32(row + (((2 * s + 1) ^ (r & 7)) << 4));
        }
      }
    } else {
#pragma unroll
      for (int s = 0; s < kMmaPerStage; ++s) {
        lds64(sp + off0 + 1024 * s, a[4 * s], a[4 * s + 1]);
        lds64(sp + off1 + 1024 * s, a[4 * s + 2], a[4 * s + 3]);
      }
    }
  };
  auto fence = [&] { fence_operands(d); };
  // k block kb, the piece's j-th (its first zeroes the accumulators)
  [[maybe_unused]] auto step = [&](std::uint32_t(&a)[16], std::uint32_t(&other)[16], int kb,
                                   int j) {
    const int stage = ml.wait();
    if constexpr (kRes) {
      if (kb % Hook::kPRepeat == 0) mbar_wait(sm.xfull0 + 8 * (kb / Hook::kPRepeat), xphase);
    }
    const std::uint32_t sp =
        kRes ? tiles + (kb / Hook::kPRepeat) * kTilePBytes : tiles + stage * Cf::kStage;
    const std::uint32_t sq = kRes ? tiles + K::kRingBase + stage * kTileQBytes : sp + kTilePBytes;
    load_p(a, sp);
    hook.operand(a, kb);
    wgmma_group(fence, [&] {
#pragma unroll
      for (int s = 0; s < kMmaPerStage; ++s)
        WgmmaTf32Rs::mma(d, &a[4 * s], gmma_desc(sq + s * kStepQ, kLboQ, kSbo),
                         (j | s) != 0 ? 1u : 0u);
    });
    ml.retire_previous(j, [&] {
      fence_operands(d);
      fence_regs(other);  // the retired group's registers stayed in place until here
    });
  };
  // Q split in shared memory (kQs), 3xTF32 with its two corrections as one bf16 wgmma: P's bf16
  // pairs (P_lo, P_hi) beside a0 / a1 (the hook's operand_split), and per k block kb one wgmma
  // group: first P_hi Q (TF32; the tensor cores truncate Q), so the tensor cores work while the
  // consumers form the stage's Q pairs; then, once the consumers' wgmma reading pair buffer
  // kb % 2 (k block kb - 2) have all completed (barrier 1: each consumer passed its wait_group 1
  // of k block kb - 1, or its tile's wait_group 0), the consumers write the bf16 pairs
  // (Q, Q - trunc Q) of the stage's Q over it (8 of the tile's 2048 16-byte units per thread, same
  // offsets: a K-major row of 16 bf16 is the 32 bytes of 8 floats, so Q's descriptors serve it at
  // another base), fence them to the async proxy and meet again (barrier 2) before one bf16
  // m64n256k16 per k step adds P_lo Q + P_hi Q_lo. 2 tensor instructions of TF32 time per k step
  // instead of 3xTF32's 3 (gdn-rounds.md, round 19; round 16 ordered the TF32 form's products).
  [[maybe_unused]] std::uint32_t l0[16], l1[16];
  [[maybe_unused]] auto step3 = [&](std::uint32_t(&a)[16], std::uint32_t(&al)[16],
                                    std::uint32_t(&other)[16], std::uint32_t(&other_l)[16], int kb,
                                    int j) {
    if constexpr (kQs) {
      constexpr std::uint32_t kQsBar = 3;  // named barrier id (1, 2: ping-pong's)
      constexpr int kUnits = kTileQBytes / 16 / (128 * kConsumers);
      const int stage = ml.wait();
      const std::uint32_t sp = tiles + stage * Cf::kStage;
      const std::uint32_t sq = sp + kTilePBytes;
      const std::uint32_t sl = tiles + kNumStages * Cf::kStage + (kb & 1) * kTileQBytes;
      load_p(a, sp);
      hook.operand_split(a, al, kb);
      wgmma_group(fence, [&] {
#pragma unroll
        for (int s = 0; s < kMmaPerStage; ++s)
          WgmmaTf32Rs::mma(d, &a[4 * s], gmma_desc(sq + s * kStepQ, kLboQ, kSbo),
                           (j | s) != 0 ? 1u : 0u);
        named_sync(kQsBar, 128 * kConsumers);
        const std::uint32_t unit = (threadIdx.x - 128) * 16;
#pragma unroll
        for (int i = 0; i < kUnits; ++i) {
          const std::uint32_t off = unit + i * (128 * kConsumers * 16);
          sts128(sl + off, sm80::bf16_correction_pairs_trunc<false>(lds128(sq + off)));
        }
        fence_proxy_async_shared();
        named_sync(kQsBar, 128 * kConsumers);
#pragma unroll
        for (int s = 0; s < kMmaPerStage; ++s)
          WgmmaBf16Rs::mma(d, &al[4 * s], gmma_desc(sl + s * kStepQ, kLboQ, kSbo), 1u);
      });
      ml.retire_previous(j, [&] {
        fence_operands(d);
        fence_regs(other);
        fence_regs(other_l);
      });
    }
  };
  Cooperative<kConsumers, K::kCluster>::run(
      [&](auto&& f) { for_each_work<K::kStreamK>(p, cp, f); },
      [&](const Work& w) {
        const int n = w.kb1 - w.kb0;
        for (int j = 0; j < n; j += 2) {
          if constexpr (kQs) {
            step3(a0, l0, a1, l1, w.kb0 + j, j);
            if (j + 1 < n) step3(a1, l1, a0, l0, w.kb0 + j + 1, j + 1);
          } else {
            step(a0, a1, w.kb0 + j, j);
            if (j + 1 < n) step(a1, a0, w.kb0 + j + 1, j + 1);
          }
        }
        ml.drain([&] {
          fence_operands(d);
          fence_regs(a0);
          fence_regs(a1);
          if constexpr (kQs) {
            fence_regs(l0);
            fence_regs(l1);
          }
        });
      },
      [&](const Work& w) {
        if (K::kStreamK && sk_partial_step<K::kCluster>(d, p, cp, w)) return;
        const TileCoord tc = decode_unit<K::kCluster>(w.u, p, cp.rank);
        if constexpr (K::kEpiStaged) {
          if (epilogue_regp_staged<K>(d, p, tc, consumer, sm)) return;
        }
        const int x_blocks = (p.k_blocks + Hook::kPRepeat - 1) / Hook::kPRepeat;
        if (p.beta == 0.f)
          epilogue_regs<TOut, false, K::kSwap>(d, p, tc, consumer, hook, tiles, x_blocks,
                                               sm.xempty0);
        else
          epilogue_regs<TOut, true, K::kSwap>(d, p, tc, consumer, hook, tiles, x_blocks,
                                              sm.xempty0);
        xphase ^= 1u;
      });
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace sm90
}  // namespace gpuopt
