// Host-side pieces shared by the reduce variants: type sizes, the launch plans (functions of the
// problem only, so results do not depend on the device) and the textbook rungs' limits.
#include <algorithm>
#include <cstdint>

#include "kernels/reduce/reduce.hpp"

namespace gpuopt {

std::size_t reduce_in_size(gpuopt_dtype_t t) {
  return t == GPUOPT_DTYPE_U64 ? 0 : dtype_size(t);  // every input type but u64
}

std::size_t reduce_out_size(gpuopt_reduce_op_t op, gpuopt_dtype_t t) {
  const std::size_t in = reduce_in_size(t);
  if (!in) return 0;
  switch (op) {
    case GPUOPT_REDUCE_SUM:
      if (t == GPUOPT_DTYPE_I32 || t == GPUOPT_DTYPE_U32) return 8;
      return in == 2 ? 4 : in;
    case GPUOPT_REDUCE_MIN:
    case GPUOPT_REDUCE_MAX:
      return in == 2 ? 4 : in;
    case GPUOPT_REDUCE_ARGMIN:
    case GPUOPT_REDUCE_ARGMAX:
      return 8;
  }
  return 0;
}

const char* reduce_op_name(gpuopt_reduce_op_t op) {
  switch (op) {
    case GPUOPT_REDUCE_SUM:
      return "sum";
    case GPUOPT_REDUCE_MIN:
      return "min";
    case GPUOPT_REDUCE_MAX:
      return "max";
    case GPUOPT_REDUCE_ARGMIN:
      return "argmin";
    case GPUOPT_REDUCE_ARGMAX:
      return "argmax";
  }
  return nullptr;
}

std::int64_t reduce_segment_len_hint(const ReduceProblem& p) {
  if (!p.offsets) return p.n;
  if (p.num_segments <= 0) return 0;
  return (p.n + p.num_segments - 1) / p.num_segments;
}

namespace {
std::int64_t ceil_div64(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0); }

// Bytes of one segment (the average one for offsets) and the segment count, at least 1.
// len * elem cannot overflow: the API checked n * elem against the address space.
std::int64_t segment_bytes(const ReduceProblem& p) {
  const std::int64_t elem = static_cast<std::int64_t>(reduce_in_size(p.in_type));
  return reduce_segment_len_hint(p) * (elem ? elem : 1);
}
std::int64_t segment_count(const ReduceProblem& p) {
  return p.num_segments < 1 ? 1 : p.num_segments;
}

// Pieces per segment: at most by_blocks, each at least kReduceMinPieceBytes, 1..kReduceMaxSplits.
std::int64_t split_count(std::int64_t bytes, std::int64_t by_blocks) {
  const std::int64_t by_size = ceil_div64(bytes, kReduceMinPieceBytes);
  return std::clamp<std::int64_t>(std::min(by_size, by_blocks), 1, kReduceMaxSplits);
}
}  // namespace

ReducePlan reduce_plan(const ReduceProblem& p) {
  ReducePlan plan;
  if (p.segmented() && reduce_segment_len_hint(p) <= kReduceWarpMaxLen) {
    plan.warp_per_segment = true;
    return plan;
  }
  const std::int64_t segs = segment_count(p), bytes = segment_bytes(p);
  // One array of SUM/MIN/MAX: the deep kernel over kReduceTargetBlocks pieces (H100: 0.4-1.2%
  // over the 4-load kernel at 2^27..2^29, 2048 pieces 0.4-1.0% over 1024). ARGMIN/ARGMAX (the
  // deep kernel lost 4-8% there) and one segment of offsets: pieces of kReduceArrayPieceBytes,
  // between kReduceTargetBlocks / 2 and kReduceTargetBlocks of them (H200: fewer, longer pieces
  // won up to 1 GiB). Several segments: kReduceTargetBlocks blocks spread over them.
  const bool arg = p.op == GPUOPT_REDUCE_ARGMIN || p.op == GPUOPT_REDUCE_ARGMAX;
  plan.deep = !p.segmented() && !arg;
  const std::int64_t by_blocks = plan.deep ? kReduceTargetBlocks
                                 : segs == 1
                                     ? std::clamp(ceil_div64(bytes, kReduceArrayPieceBytes),
                                                  kReduceTargetBlocks / 2, kReduceTargetBlocks)
                                     : ceil_div64(kReduceTargetBlocks, segs);
  plan.splits = split_count(bytes, by_blocks);
  return plan;
}

ClusterPlan reduce_cluster_plan(const ReduceProblem& p) {
  ClusterPlan c;
  // kReduceTargetBlocks CTAs spread over the segments, one segment included: the cluster rung
  // lost 4-8% with 1024 pieces of 1 MiB for one segment (H200).
  const std::int64_t k =
      reduce_plan(p).warp_per_segment
          ? 1
          : split_count(segment_bytes(p), ceil_div64(kReduceTargetBlocks, segment_count(p)));
  if (!p.segmented()) {
    c.cluster = 8;
  } else {
    int size = 2;
    while (size < 8 && size < k) size *= 2;
    c.cluster = size;
  }
  c.clusters_per_segment = ceil_div64(k, c.cluster);
  return c;
}

int complete_unroll_threads(std::int64_t n) {
  int b = 64;
  while (b < 512 && static_cast<std::int64_t>(b) * 8 < n) b *= 2;
  return b;
}

const char* textbook_can(const ReduceProblem& p, const TextbookShape& shape) {
  if (p.op != GPUOPT_REDUCE_SUM) return "textbook rungs compute SUM only";
  if (p.in_type != GPUOPT_DTYPE_I32 && p.in_type != GPUOPT_DTYPE_F32 &&
      p.in_type != GPUOPT_DTYPE_F64)
    return "textbook rungs take i32, f32 and f64 only";
  if (p.segmented()) return "textbook rungs reduce one array (no segments, no offsets)";
  const std::int64_t per_block = static_cast<std::int64_t>(shape.threads) * shape.per_thread;
  const std::int64_t first = ceil_div64(p.n, per_block);
  if (first > static_cast<std::int64_t>(reduce_ws::kPartialABytes / 8))
    return "n too large for the textbook rung's partial buffer (2^19 block partials of 8 bytes)";
  if (ceil_div64(first, per_block) > static_cast<std::int64_t>(reduce_ws::kPartialBBytes / 8))
    return "n too large for the textbook rung's second-level buffer";
  return nullptr;
}

}  // namespace gpuopt
