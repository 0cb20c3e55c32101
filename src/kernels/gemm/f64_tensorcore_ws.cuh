// f64 tensor-core GEMM, warp-specialized (sm_90a): the f64_tensorcore kernel's tiles, shared
// layouts and fragment loads (f64_tensorcore.cuh), with the loader and the block barrier taken
// out of the MMA warps. Warpgroup 0 (the producer, setmaxnreg.dec) issues every stage's cp.async
// copies and hands the stage over with cp.async.mbarrier.arrive.noinc on the stage's full
// barrier; warpgroups 1 and 2 (the 2 x 4 MMA warps of Cfg, setmaxnreg.inc) wait on full, run only
// shared loads and m16n8k16 DMMAs, and arrive on the stage's empty barrier once every read of the
// stage is issued; the producer waits on empty before refilling. No __syncthreads in the main
// loop. The MMA warps' k-tile loop is about 220 SASS instructions (32 DMMA, 48 LDS.128, ~100 NOPs
// of issue pacing) against 650 in the one-role kernel. Registers: 384 threads launch at 168; the
// producer drops to 24 (setmaxnreg.dec), the MMA warps rise to 240 (0 spills, ptxas 13.0).
// Measured (H100, interleaved with cublasDgemm in one process, medians of 31): n = 4096 NN 0.976,
// TN 0.979; 8192 NN 0.937, TN 0.923 of cuBLAS, against 0.929-0.953 / 0.900-0.915 / 0.874-0.876 /
// 0.858 for the one-role kernel in the same run; DMMA pipe 94.3 % busy (one-role 89.0 %, cuBLAS
// 97.8 %). Bench (H100, 8af202a): best own / cuBLAS 0.973 at 4096^3 and 0.984 at 8192^3 re-timed
// interleaved (single rows 1.012 and 1.056), against 0.922 / 0.927 for the one-role kernel.
// Stream-K tail (f64_stream_k.hpp): with more tiles than SMs, the tiles of the last partial wave
// are cut along k over up to one block per SM, the parts added into C in k order through a flag
// per tile in the stream's op workspace (deterministic). H100, interleaved: 4096 NN 0.978-0.996
// -> 1.001-1.011, 8192 NN 0.947-0.950 -> 0.973-0.977 of cuBLAS. The read-C epilogue loads a
// slice's C pairs before its stores (store_tile): stream-K part epilogues 13.7 -> 7.2 us at 4096;
// bench protocol 4096 NN 0.987 -> 0.995, 8192 NN 1.000 -> 1.016; beta != 0 4096 NN 0.964 -> 1.005.
// TN with more units of work than SMs: persistent blocks that take the units in tile order from
// a counter in the workspace (WsSegments, kPers). H100, own / cuBLAS, bench protocol: 4096 TN
// 0.956-0.973 -> 0.977-0.993 (5 passes), 8192 TN 0.991 -> 1.009; single launches 4096 TN
// 0.980-0.996 -> 0.997-1.014. NN and TT gained nothing persistent (4096: -1.1..+0.3 %): they keep
// one block per unit (SASS unchanged). Design notes: docs/notes/gemm-f64.md.
#pragma once
#include "arch/sm90/gpu_flag.cuh"
#include "arch/sm90/mbarrier.cuh"
#include "arch/sm90/named_barrier.cuh"
#include "arch/sm90/registers.cuh"
#include "kernels/gemm/f64_stream_k.hpp"
#include "kernels/gemm/f64_tensorcore_launch.cuh"

namespace gpuopt {
namespace f64mma {

constexpr int kProducerThreads = 128;  // one warpgroup
// Registers per thread after setmaxnreg: 384 threads start at 168 (65536 / 384, 8-aligned); the
// producer gives 144 back, the MMA warps take 72 (128 x 24 + 256 x 240 = 64512).
constexpr int kWsProducerRegs = 24, kWsConsumerRegs = 240;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Segment i of a block's work (f64_stream_k.hpp: whole tiles, stream-K parts); get() is false past
// the last. One block per unit (!kPers): the segments of unit blockIdx.x. Persistent blocks
// (kPers, sk.next): one thread (claim) takes units from the counter in order and hands their
// segments to all 384 threads through a ring of kWsSegSlots in shared memory (full / empty
// mbarriers full0 + 8 r / empty0 + 8 r; the producer runs up to kS k tiles ahead of the MMA
// warps); the last of the gridDim.x claims past the end sets the counter back to zero for the
// next launch. A thread may read slot i % kWsSegSlots until it calls release(i).
template <bool kPers>
struct WsSegments {
  const Params& prm;
  const StreamK& sk;
  std::uint32_t full0, empty0;
  Segment* ring;
  int* state;  // the claimer's unit and the unit's next segment

  __device__ __forceinline__ bool of_unit(int u, int j, Segment& sg) const {
    return stream_k_segment(sk, static_cast<long long>(prm.tiles_m) * prm.tiles_n, prm.k_tiles, u,
                            j, sg);
  }
  // Fills slot i % kWsSegSlots (the claimer, kPers, in order i = 0, 1, ...).
  __device__ __forceinline__ void claim(int i) const {
    const int r = i % kWsSegSlots;
    sm90::mbar_wait(empty0 + 8u * r, ((i / kWsSegSlots) & 1) ^ 1);
    int u = state[0], j = state[1];
    Segment s{-1, 0, 0, -1, 0};
    if (u < 0 || !of_unit(u, j, s)) {
      const unsigned v = atomicAdd(sk.next, 1u), units = static_cast<unsigned>(sk.units);
      if (v == units + gridDim.x - 1) *sk.next = 0u;
      u = v < units ? static_cast<int>(v) : -1;
      j = 0;
      s = Segment{-1, 0, 0, -1, 0};  // (of_unit may have written s before returning false)
      if (u >= 0) of_unit(u, 0, s);
    }
    state[0] = u;
    state[1] = j + 1;
    ring[r] = s;
    sm90::mbar_arrive(full0 + 8u * r);
  }
  __device__ __forceinline__ bool get(int i, Segment& sg) const {
    if constexpr (!kPers) return of_unit(static_cast<int>(blockIdx.x), i, sg);
    sm90::mbar_wait(full0 + 8u * (i % kWsSegSlots), (i / kWsSegSlots) & 1);
    sg = ring[i % kWsSegSlots];
    return sg.tile >= 0;
  }
  // Segment i again (the MMA warps after their main loop: not held in registers across it).
  __device__ __forceinline__ void again(int i, Segment& sg) const {
    if constexpr (!kPers) {
      of_unit(static_cast<int>(blockIdx.x), i, sg);
    } else {
      sg = ring[i % kWsSegSlots];
    }
  }
  __device__ __forceinline__ void release(int i) const {
    if constexpr (kPers) sm90::mbar_arrive(empty0 + 8u * (i % kWsSegSlots));
  }
};
#endif

// kProdRegs / kConsRegs: registers per thread after setmaxnreg for the producer warpgroup and
// the two MMA warpgroups (128 kProdRegs + 256 kConsRegs <= 65536).
template <class Cfg, bool kLK, bool kRK, bool kSwap, int kProdRegs, int kConsRegs, bool kPers>
__global__ void __launch_bounds__(Cfg::kThreads + kProducerThreads, 1)
    f64_ws_kernel(const Params prm, const StreamK sk) {
  static_assert(Cfg::kThreads == 256 && Cfg::kBK % 16 == 0, "two MMA warpgroups");
  static_assert(kProducerThreads * kProdRegs + Cfg::kThreads * kConsRegs <= 65536, "register file");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Lay = Layout<Cfg, kLK, kRK>;
  extern __shared__ __align__(128) double smem[];
  // full[s], empty[s] per stage, then seg_full[r], seg_empty[r] per slot of the segment ring.
  __shared__ __align__(8) unsigned long long bars[2 * Cfg::kStages + 2 * kWsSegSlots];
  __shared__ Segment seg_ring[kWsSegSlots];
  __shared__ int claim_state[2];  // persistent blocks: WsSegments::state
  static_assert(sizeof(bars) + sizeof(seg_ring) + sizeof(claim_state) <= kWsStaticSmemBytes,
                "static shared memory");
  constexpr int kS = Cfg::kStages, kSteps = Cfg::kBK / 16;
  const std::uint32_t bar0 = sm80::smem_addr(bars);
  auto full = [&](int s) { return bar0 + 8u * s; };
  auto empty = [&](int s) { return bar0 + 8u * (kS + s); };
  auto seg_full = [&](int r) { return bar0 + 8u * (2 * kS + r); };
  auto seg_empty = [&](int r) { return bar0 + 8u * (2 * kS + kWsSegSlots + r); };
  if (threadIdx.x == 0) {
    for (int s = 0; s < kS; ++s) {
      sm90::mbar_init(full(s), kProducerThreads);
      sm90::mbar_init(empty(s), Cfg::kThreads);
    }
    if constexpr (kPers) {
      for (int r = 0; r < kWsSegSlots; ++r) {
        sm90::mbar_init(seg_full(r), 1);
        sm90::mbar_init(seg_empty(r), kProducerThreads + Cfg::kThreads);
      }
      claim_state[0] = -1;
    }
    sm90::mbar_init_fence();
  }
  __syncthreads();
  const WsSegments<kPers> segs{prm, sk, seg_full(0), seg_empty(0), seg_ring, claim_state};

  if (threadIdx.x < kProducerThreads) {
    // Producer: each thread runs the loaders of two of Cfg's 256 loader threads.
    sm90::setmaxnreg_dec<kProdRegs>();
    int it = 0;  // k tiles loaded so far (stage it % kS, round it / kS)
    for (long long z = blockIdx.z; z < prm.batch; z += gridDim.z) {
      const double* gL = prm.L + z * prm.stride_l;
      const double* gR = prm.R + z * prm.stride_r;
      Segment sg;
      for (int j = 0; segs.get(j, sg); ++j) {
        segs.release(j);
        long long m0, n0;
        tile_origin_of<Cfg>(prm, sg.tile, m0, n0);
        const bool in_l = m0 + Cfg::kBM <= prm.mk, in_r = n0 + Cfg::kBN <= prm.nk;
        for (int kt = sg.kb; kt < sg.ke; ++kt, ++it) {
          const int st = it % kS;
          sm90::mbar_wait(empty(st), ((it / kS) & 1) ^ 1);
          double* part = smem + st * Lay::kStageDoubles;
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int vt = fresh_tid() + h * kProducerThreads;
            load_tile<Cfg, kLK, Cfg::kBM, Lay::kPitchL, Lay::kBlocked>(
                part, gL, prm.ldl, m0, prm.mk, prm.k, kt, in_l && kt < prm.k_full, prm.L, vt);
            load_tile<Cfg, kRK, Cfg::kBN, Lay::kPitchR, Lay::kBlocked>(
                part + Lay::kLDoubles, gR, prm.ldr, n0, prm.nk, prm.k, kt, in_r && kt < prm.k_full,
                prm.R, vt);
          }
          sm90::cp_async_mbar_arrive_noinc(full(st));
        }
      }
    }
    sm80::cp_async_commit_group();  // (the copies are in no group yet) then wait for all
    sm80::cp_async_wait_group<0>();
    return;
  }

  // MMA warps.
  sm90::setmaxnreg_inc<kConsRegs>();
  const int ctid = static_cast<int>(threadIdx.x) - kProducerThreads;
  const int lane = ctid & 31, warp = ctid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wm0 = (warp % Cfg::kWarpsM) * 64, wn0 = (warp / Cfg::kWarpsM) * 32;
  FragL<Cfg, Lay, kLK> fl;
  FragR<Cfg, Lay, kRK> fr;
  fl.init(wm0, g, t);
  fr.init(wn0, g, t);
  int it = 0;  // k tiles consumed so far
  // Persistent blocks: MMA thread 0 claims each segment one ahead of the MMA warps (at the start
  // of segment j, segment j + 1), so the producer finds it in the ring when it runs ahead.
  const bool claimer = kPers && ctid == 0;
  if (claimer) segs.claim(0);
  for (long long z = blockIdx.z; z < prm.batch; z += gridDim.z) {
    Segment sg;
    for (int j = 0; segs.get(j, sg); ++j) {
      if (claimer) segs.claim(j + 1);
      double acc[4][4][4];
      sm80::zero_fragments(acc);
      const int nk = sg.ke - sg.kb;

      if (nk > 0) {
        int stage = it % kS;
        sm90::mbar_wait(full(stage), (it / kS) & 1);
        double af[2][8], bf[4][4];
        const double* sL = smem + stage * Lay::kStageDoubles;
        const double* sR = sL + Lay::kLDoubles;
#pragma unroll
        for (int an = 0; an < 4; ++an) fr.load(sR, 0, an, bf[an]);
        fl.load(sL, 0, 0, af[0]);

        for (int kt = 0; kt < nk; ++kt) {
#pragma unroll
          for (int ks = 0; ks < kSteps; ++ks) {
            // Slices 0..2: the next slice's L fragment loads during the MMAs.
            first_slices<true>(acc, af, bf, fl, sL, ks, [](int) {});
            // Slice 3: fetch the next step's fragments. At the end of the k tile every read of
            // the stage is issued: release it to the producer, then wait for the next one.
            const double* nL = sL;
            const double* nR = sR;
            int nks = ks + 1;
            const bool more = ks + 1 < kSteps || kt + 1 < nk;  // (uniform)
            if (ks + 1 == kSteps) {
              sm90::mbar_arrive(empty(stage));
              ++it;
              stage = stage + 1 == kS ? 0 : stage + 1;
              if (more) sm90::mbar_wait(full(stage), (it / kS) & 1);
              nL = smem + stage * Lay::kStageDoubles;
              nR = nL + Lay::kLDoubles;
              nks = 0;
            }
            last_slice<true>(acc[3], af[0], af[1], bf, fl, fr, nL, nR, nks % kSteps, more, [] {});
            sL = nL;
            sR = nR;
          }
        }
      }
      long long m0, n0;  // (computed here: not live across the main loop)
      segs.again(j, sg);
      tile_origin_of<Cfg>(prm, sg.tile, m0, n0);
      const long long i0 = m0 + wm0 + 2 * g, j0 = n0 + wn0 + 2 * t;
      if (sg.rank < 0) {
        store_tile<kSwap>(prm, acc, z, i0, j0, nk > 0);
      } else {
        // A stream-K part: added into C after the parts of lower k (rank 0 applies beta); the
        // tile's flag counts the parts written, and the last part sets it back to zero. Named
        // barrier 1: the 256 MMA threads (the producer may have exited).
        unsigned* flag = sk.flags + (sg.tile - sk.dp_tiles);
        if (sg.rank > 0) {
          if (ctid == 0) sm90::flag_wait_acquire(flag, static_cast<unsigned>(sg.rank));
          sm90::named_sync(1, Cfg::kThreads);
        }
        Params q = prm;
        if (sg.rank > 0) q.beta = 1.0;
        store_tile<kSwap>(q, acc, z, i0, j0, true);
        sm90::named_sync(1, Cfg::kThreads);
        if (ctid == 0) {
          sm90::flag_set_release(flag,
                                 sg.rank == sg.last ? 0u : static_cast<unsigned>(sg.rank + 1));
        }
      }
      segs.release(j);
    }
  }
#else
  (void)prm;
  (void)sk;
#endif
}

// The warp-specialized kernel for config Cfg (m16n8k16, sm_90a): whole tiles, the last partial
// wave as stream-K parts (f64_stream_k.hpp) when the stream's op workspace holds the flags. TN
// (both operands K-major) with more units than SMs runs persistent blocks that take the units
// from a counter in the workspace (kPers); the other transposes keep one block per unit (H100:
// persistent blocks gain 1.7-2.2 % for TN at 4096^3 and nothing for NN and TT, whose kPers
// kernels also spill; docs/notes/gemm-f64.md). The blocks need not be resident together.
template <class Cfg>
struct WsLauncher {
  template <bool kLK, bool kRK, bool kSwap, bool kPers>
  static gpuopt_status_t launch(const Params& prm, const StreamKPlan& plan, const ExecEnv& env) {
    const auto kernel =
        f64_ws_kernel<Cfg, kLK, kRK, kSwap, kWsProducerRegs, kWsConsumerRegs, kPers>;
    constexpr int kSmem = Layout<Cfg, kLK, kRK>::kSmemBytes;
    GPUOPT_TRY(raise_smem_limit(kernel, kSmem, env.fn, "gemm f64_tensorcore (warp-specialized)"));
    const dim3 grid(static_cast<unsigned>(plan.blocks), 1,
                    static_cast<unsigned>(prm.batch < 65535 ? prm.batch : 65535));
    kernel<<<grid, Cfg::kThreads + kProducerThreads, kSmem, env.stream>>>(prm, plan.sk);
    return check_launch(env.fn, "gemm f64_tensorcore kernel launch");
  }

  template <bool kLK, bool kRK, bool kSwap>
  static gpuopt_status_t run(const GemmProblem& p, const ExecEnv& env) {
    const Params prm = make_params<Cfg>(p, kSwap);
    const int sms = env.device ? env.device->sm_count : 0;
    // The workspace: a flag per stream-K tail tile (fewer than sms), then the unit counter.
    unsigned* ws = env.workspace && env.workspace_bytes >= sizeof(unsigned) * (sms + 1)
                       ? static_cast<unsigned*>(env.workspace)
                       : nullptr;
    StreamKPlan plan = plan_stream_k(static_cast<long long>(prm.tiles_m) * prm.tiles_n, prm.k_tiles,
                                     prm.batch, sms, ws);
    if constexpr (kLK && kRK) {  // TN
      plan_persistent(plan, prm.batch, sms, ws ? ws + sms : nullptr);
      if (plan.sk.next != nullptr) return launch<kLK, kRK, kSwap, true>(prm, plan, env);
    }
    return launch<kLK, kRK, kSwap, false>(prm, plan, env);
  }
};

}  // namespace f64mma
}  // namespace gpuopt
