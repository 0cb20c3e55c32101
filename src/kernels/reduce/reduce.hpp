// Reduction (sum, min, max, argmin, argmax over arrays, rows or offset segments): the problem,
// the per-stream workspace layout, the shared launch plan and the variant table.
//
// Dispatch rule (reduce_table.cpp; measured on an H200, docs/notes/reduce.md): warp_shuffle_vec
// for every problem (it takes every op, type and layout); sm90_cluster (cc >= 9.0) next, then
// cub (the vendor); the textbook rungs (sum of i32/f32/f64, one array) last, in ladder order.
// sm90_cluster lost to warp_shuffle_vec on every measured shape, few long rows included.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/registry.hpp"

namespace gpuopt {

struct ReduceProblem {
  gpuopt_reduce_op_t op = GPUOPT_REDUCE_SUM;
  gpuopt_dtype_t in_type = GPUOPT_DTYPE_F32;
  std::int64_t n = 0;             // per segment (fixed layouts) or total (offsets)
  std::int64_t num_segments = 1;  // >= 1 for fixed layouts (one reduction: 1); >= 1 for offsets
  std::int64_t stride = 0;        // fixed layouts with num_segments > 1: elements between rows
  const std::int64_t* offsets = nullptr;  // device, num_segments + 1 entries; nullptr: fixed
  gpuopt_reduce_mode_t mode = GPUOPT_REDUCE_DETERMINISTIC;
  const void* in = nullptr;
  void* out = nullptr;

  bool segmented() const { return offsets != nullptr || num_segments > 1; }
};

// Element size of a reduce input type (0 for types reduce does not take).
std::size_t reduce_in_size(gpuopt_dtype_t t);
// Element size of the result of op over t (0 when unsupported).
std::size_t reduce_out_size(gpuopt_reduce_op_t op, gpuopt_dtype_t t);
// "sum", "min", ...; nullptr for values outside the enum.
const char* reduce_op_name(gpuopt_reduce_op_t op);

// Layout of the stream's op workspace (kOpWorkspaceBytes) as the reduce variants use it (its
// last 64 KiB are the sm90 GEMM's stream-K flags: kSkFlagsOffset in sm90_tma_wgmma.hpp).
// Counters must be zero between calls: the block that uses one last resets it.
namespace reduce_ws {
constexpr std::size_t kCounterOffset = 0;
constexpr std::size_t kCounterBytes = std::size_t{64} << 10;  // 16384 x u32
constexpr std::size_t kCubOffset = kCounterOffset + kCounterBytes;
constexpr std::size_t kCubBytes = std::size_t{1} << 20;  // CUB temp storage
constexpr std::size_t kPartialAOffset = kCubOffset + kCubBytes;
constexpr std::size_t kPartialABytes = std::size_t{4} << 20;  // per-block partials
constexpr std::size_t kPartialBOffset = kPartialAOffset + kPartialABytes;
constexpr std::size_t kPartialBBytes = std::size_t{64} << 10;  // textbook second level
constexpr std::size_t kTotal = kPartialBOffset + kPartialBBytes;
constexpr std::size_t kCounters = kCounterBytes / 4;
constexpr std::size_t kMaxPartialBytes = 16;  // largest accumulator (value + int64 index)
static_assert(kTotal <= kOpWorkspaceBytes, "reduce workspace layout exceeds the stream workspace");
}  // namespace reduce_ws

// The launch plan of the vectorized rungs (warp_shuffle_vec, sm90_cluster). It depends on the
// problem only (never on the device), so the reduction tree and therefore the result bits are
// the same on every device.
struct ReducePlan {
  bool warp_per_segment = false;  // short segments: one warp per segment, scalar loads
  // One array of SUM/MIN/MAX: warp_shuffle_vec's deep kernel (kReduceDeepUnroll loads in flight
  // per thread, kReduceDeepMinBlocks resident blocks) over kReduceTargetBlocks pieces.
  bool deep = false;
  std::int64_t splits = 1;  // pieces per segment (block class); > 1 uses partials+counters
};

// Tuning constants of the plan (see docs/notes/reduce.md).
constexpr int kReduceThreads = 256;   // block size of the vector rungs
constexpr int kReduceUnroll = 4;      // 16-byte loads in flight per thread
constexpr int kReduceLaneRounds = 8;  // f32 SUM: rounds between widenings of the f32 partials
constexpr int kReduceDeepUnroll = 8;  // deep kernel (ReducePlan::deep): loads in flight per thread
constexpr int kReduceDeepMinBlocks = 2;  // deep kernel: resident blocks per SM (128 registers)
// Piece boundaries fall on multiples of this many bytes of the input's address (H100: pieces
// starting mid-line cost 4-8%, 128-byte boundaries half of that; docs/notes/reduce.md).
constexpr int kReducePieceAlignBytes = 512;
constexpr std::int64_t kReduceTargetBlocks = 2048;  // pieces of the deep kernel; several segments
constexpr std::int64_t kReduceMinPieceBytes = 16 << 10;   // one iteration of a block
constexpr std::int64_t kReduceArrayPieceBytes = 1 << 20;  // one segment: piece size aimed at
constexpr std::int64_t kReduceWarpMaxLen = 512;           // warp per segment up to this
constexpr std::int64_t kReduceMaxSplits = 2048;

ReducePlan reduce_plan(const ReduceProblem& p);
// Average (offsets) or exact (fixed) elements per segment.
std::int64_t reduce_segment_len_hint(const ReduceProblem& p);

// Cluster shape of sm90_cluster: CTAs per cluster (1..8) and clusters per segment.
struct ClusterPlan {
  int cluster = 2;
  std::int64_t clusters_per_segment = 1;
  bool needs_partials() const { return clusters_per_segment > 1; }
};
ClusterPlan reduce_cluster_plan(const ReduceProblem& p);

// Textbook rungs: elements per block of pass 1, and whether the partials fit the workspace.
struct TextbookShape {
  int threads = 512;
  int per_thread = 1;  // elements each thread adds before the tree (1, or 8 for unroll rungs)
};
const char* textbook_can(const ReduceProblem& p, const TextbookShape& shape);
// complete_unroll's block size for n: the smallest power of two in [64, 512] giving every thread
// its 8 elements.
int complete_unroll_threads(std::int64_t n);

gpuopt_status_t reduce_launch_neighbored(const ReduceProblem& p, const ExecEnv& env);
gpuopt_status_t reduce_launch_interleaved(const ReduceProblem& p, const ExecEnv& env);
gpuopt_status_t reduce_launch_unroll8(const ReduceProblem& p, const ExecEnv& env);
gpuopt_status_t reduce_launch_unroll8_warp(const ReduceProblem& p, const ExecEnv& env);
gpuopt_status_t reduce_launch_complete_unroll(const ReduceProblem& p, const ExecEnv& env);
gpuopt_status_t reduce_launch_warp_shuffle_vec(const ReduceProblem& p, const ExecEnv& env);
gpuopt_status_t reduce_launch_sm90_cluster(const ReduceProblem& p, const ExecEnv& env);
gpuopt_status_t reduce_launch_cub(const ReduceProblem& p, const ExecEnv& env);
// cub per op family (cub_vendor_sum.cu, cub_vendor_minmax.cu, cub_vendor_arg.cu).
gpuopt_status_t reduce_launch_cub_sum(const ReduceProblem& p, const ExecEnv& env);
gpuopt_status_t reduce_launch_cub_minmax(const ReduceProblem& p, const ExecEnv& env);
gpuopt_status_t reduce_launch_cub_arg(const ReduceProblem& p, const ExecEnv& env);

// The table, in ladder order (textbook rung first, vendor last).
const Variant<ReduceProblem>* reduce_variants(int* count);

}  // namespace gpuopt
