// sm90_tma_wgmma (sm_90a): the tile configuration, the kernel's runtime parameters, and the host
// plan (tensor maps + parameters) shared by the launcher and the per-type instantiation files.
// Design: docs/notes/gemm-sm90.md.
#pragma once
#include <cuda.h>

#include <cstdint>

#include "kernels/gemm/gemm.hpp"

namespace gpuopt {
namespace sm90 {

constexpr int kThreads = 384;
constexpr int kConsumers = 2;
constexpr int kBlockM = 64 * kConsumers;  // wgmma M per tile: columns of C
constexpr int kBlockN = 256;              // wgmma N per tile: rows of C
constexpr int kRowBytes = 128;            // K bytes per tile row (one 128-byte swizzle span)
constexpr int kStages = 4;
constexpr int kTilePBytes = kBlockM * kRowBytes;  // 16 KiB
constexpr int kTileQBytes = kBlockN * kRowBytes;  // 32 KiB
constexpr int kStageBytes = kTilePBytes + kTileQBytes;
constexpr int kSmemBytes = kStages * kStageBytes + 1024;  // + slack to align to 1024
constexpr int kMmaPerStage = 4;                           // 4 x 32 bytes of K per stage
// Staged epilogue of the shared-operand schedules (cooperative, ping-pong) and the register-P
// path's plain GEMM: a 2 KiB buffer per consumer warp after the ring (16 columns x 128 bytes of
// C), through which a warp (tf32 NN: a warp pair, 4 KiB) turns its accumulator pairs into whole
// 128-byte column segments (sm90_tma_wgmma_epilogue.cuh).
constexpr int kEpiWarpBytes = 16 * 128;
constexpr int kEpiStageBytes = kEpiWarpBytes * 4 * kConsumers;  // 16 KiB
constexpr int kSmemStagedBytes = kSmemBytes + kEpiStageBytes;   // the GEMM launches' total
constexpr int kGroupX = 16;  // tile order: groups of 16 column tiles, all row tiles of a group
// CTAs of a cluster: consecutive column tiles sharing the Q tile (build-time knob for tuning).
#ifndef GPUOPT_SM90_MAX_CLUSTER
#define GPUOPT_SM90_MAX_CLUSTER 2
#endif
constexpr int kMaxCluster = GPUOPT_SM90_MAX_CLUSTER;
// Ping-pong schedule (16-bit types): each consumer warpgroup owns a whole kBlockM x kPpBlockN
// tile (two m64n128 wgmma per k step, 128 accumulators per thread as in the cooperative
// schedule); the two consumers take alternate tiles, so one's epilogue overlaps the other's main
// loop. kPpStages stages of 32 KiB (the same shared memory as the cooperative 4 x 48 KiB).
constexpr int kPpBlockN = 128;
constexpr int kPpStages = 6;
// 16-bit problems with k <= kPingPongMaxK run ping-pong: the measured crossover (H100, bf16 NN,
// m = n = 4096 and 8192: ping-pong +4-5% at k = 2048; at 3072-8192 behind in 8 of 10 readings,
// +1-2% in the other two, a block at lower clocks).
constexpr long long kPingPongMaxK = 2048;
// 0: cooperative schedule only; 1: ping-pong for 16-bit inputs (build-time knob for tuning).
#ifndef GPUOPT_SM90_PINGPONG
#define GPUOPT_SM90_PINGPONG 1
#endif
template <bool kPP>
struct Cfg {
  static constexpr int kBN = kPP ? kPpBlockN : kBlockN;  // Q rows per tile
  static constexpr int kNumStages = kPP ? kPpStages : kStages;
  static constexpr int kTileQ = kBN * kRowBytes;
  static constexpr int kStage = kTilePBytes + kTileQ;
};
static_assert(kPpStages * Cfg<true>::kStage + 1024 <= kSmemBytes, "ping-pong shared memory");
// Resident-P schedule (register-P fused users whose hook sets kPResident):
// the P tile's k blocks (at most kResXBlocks, i.e. K <= 256 tf32) stay in shared memory for the
// whole tile, loaded once per tile (each serves Hook::kPRepeat Q blocks) and kept for the
// epilogue, which reads them instead of global memory; the consumers hand each block back as
// their epilogue finishes with it, so the next tile's P loads overlap the rest of the epilogue.
// Q has its own ring of kResStages stages. 128 + 96 KiB of the 227 KiB opt-in.
constexpr int kResXBlocks = 8;
constexpr int kResStages = 3;
constexpr int kResSmemBytes = kResXBlocks * kTilePBytes + kResStages * kTileQBytes + 1024;
// Q split in shared memory (register-P fused users whose hook sets kQSplitSmem; 3xTF32):
// kQsStages stages of (P, Q), then two Q-sized buffers of Q's bf16 correction pairs (Q, Q_lo),
// formed by the consumers from each stage's Q for alternating k blocks. 144 + 64 KiB.
constexpr int kQsStages = 3;
constexpr int kQsSmemBytes = kQsStages * kStageBytes + 2 * kTileQBytes + 1024;
constexpr int kProducerRegs = 40;
constexpr int kConsumerRegs = 232;
static_assert(kProducerRegs * 128 + kConsumerRegs * 128 * kConsumers <= 65536, "register file");

// Runtime parameters (the tensor maps travel beside them as __grid_constant__ parameters).
// A unit is the work of one cluster: `cluster` consecutive column tiles of one row tile.
struct Params {
  int m, n;             // extents of Q and P rows: C is m x n (gpuopt terms; n x m when swapped)
  int k_blocks;         // ceil(k / elements per 128 bytes)
  int units_x;          // ceil(ceil(n / kBlockM) / cluster)
  int tiles_y;          // ceil(m / kBlockN)
  int units_per_batch;  // units_x * tiles_y
  int total_units;      // units_per_batch * batch
  float alpha, beta;
  void* C;
  long long ldc, stride_c;
  int pair_store;  // 1 when two consecutive rows of C can be stored as one vector
  // Stream-K tail (plain GEMM, cooperative and register-P schedules; the launcher sets it, 0:
  // none): the last sk_units units are cut into k-block ranges, one even share per cluster
  // (sm90_tma_wgmma_stream_k.cuh). A tile's pieces but the last leave partials (f32,
  // kPartialFloats per CTA, slot = the writing CTA) that the CTA of its last k block adds.
  int sk_units = 0;
  float* partials = nullptr;  // kPartialFloats per CTA of the grid
  unsigned* flags = nullptr;  // kSkWarps per CTA of the grid; zero between launches
};
// Stream-K partial of one CTA: 256 consumer threads x 128 accumulators; one flag per warp.
constexpr int kPartialFloats = 128 * kConsumers * 128;
constexpr int kSkWarps = 4 * kConsumers;
// The op workspace's last 64 KiB hold the stream-K flags (zero between launches; beyond the
// reduce layout, static_assert in sm90_tma_wgmma.cpp). The partials go to the stream's cuBLAS
// workspace (scratch between vendor calls, in stream order), kPartialFloats floats per CTA.
constexpr std::size_t kSkFlagsBytes = std::size_t{64} << 10;
constexpr std::size_t kSkFlagsOffset = kOpWorkspaceBytes - kSkFlagsBytes;
// A stream-K tail pays for its partials (a write and a read of 128 KiB per CTA, measured at the
// time of 8-18 k blocks of 64 bf16 on an H100) only where the last wave leaves this many k
// blocks per cluster idle.
constexpr int kSkMinIdleKBlocks = 32;
// The units a launch of `clusters` clusters runs as a stream-K tail (Params::sk_units): the
// partial last wave, when a whole wave comes before it, it fills a quarter of the clusters or
// more (a tile's k blocks then span at most 5 clusters' ranges) and the clusters it leaves idle
// would wait kSkMinIdleKBlocks or more.
inline int stream_k_units(const Params& p, int clusters) {
  if (p.partials == nullptr || p.flags == nullptr || clusters < 1 || p.total_units <= clusters)
    return 0;
  const int rest = p.total_units % clusters;
  const long long idle = static_cast<long long>(clusters - rest) * p.k_blocks / clusters;
  if (4 * rest < clusters || idle < kSkMinIdleKBlocks) return 0;
  return rest;
}

// Everything a launch needs, built on the host without allocating (graph-capture safe).
struct Plan {
  CUtensorMap map_p;  // P = op(B)^T: wgmma A operand, rows over n
  CUtensorMap map_q;  // Q = op(A): wgmma B operand, rows over m
  Params params;
  int grid = 0;
  int cluster = 1;       // 1 or kMaxCluster (TMA multicast of the Q tile)
  bool p_kmajor = true;  // P K-major in global memory (else MN-major)
  bool q_kmajor = true;  // Q K-major in global memory (else MN-major)
  // tf32 with an MN-major operand: P (MN-major) goes through registers (wgmma RS form).
  bool p_regs = false;
  // P = op(A), Q = op(B)^T: D(i, j) = C(i, j) (tf32 NN); else P = op(B)^T, Q = op(A).
  bool swap = false;
  bool pingpong = false;  // the ping-pong schedule (Cfg<true>) rather than the cooperative one
};

// The run-time configurations (gemm.hpp's kSm90TmaWgmmaConfigs, in this order): schedule x
// cluster size. make_plan's config -1 is the rung's own rule (ping-pong for 16-bit inputs with
// k <= kPingPongMaxK, clusters of kMaxCluster where there are two column tiles).
enum Config : int { kCoopC1 = 0, kCoopC2 = 1, kPingPongC1 = 2, kPingPongC2 = 3 };
constexpr bool config_pingpong(int config) { return config >= kPingPongC1; }
constexpr int config_cluster(int config) { return config % 2 ? 2 : 1; }

// Tensor map of one operand as stored: `inner` contiguous elements per line, `outer` lines at
// ld elements, `batch` matrices at stride elements; boxes of box_inner x box_outer x 1 landing
// 128-byte swizzled in shared memory. false when the driver refuses it.
bool encode_tma_map(CUtensorMap* map, gpuopt_dtype_t type, const void* base, std::int64_t inner,
                    std::int64_t outer, std::int64_t ld, std::int64_t batch, std::int64_t stride,
                    int box_inner, int box_outer);

// Fills plan for p on dev; nullptr on success, else why the variant cannot run p. config: one of
// Config (the tuning cache's, a forced one's, or a harness's), or -1 for the rung's own rule; a
// configuration the problem or the build cannot take is refused.
const char* make_plan(const GemmProblem& p, const DeviceDesc& dev, Plan* plan, int config = -1);

// Per-input-type launchers (sm90_tma_wgmma_launchers.cu; the kernels are compiled one set per
// translation unit, sm90_tma_wgmma_instances.hpp).
gpuopt_status_t launch_bf16(const Plan& plan, const GemmProblem& p, const ExecEnv& env);
gpuopt_status_t launch_f16(const Plan& plan, const GemmProblem& p, const ExecEnv& env);
gpuopt_status_t launch_tf32(const Plan& plan, const GemmProblem& p, const ExecEnv& env);

}  // namespace sm90
}  // namespace gpuopt
