// The reduce variant table and its dispatch rule (see reduce.hpp).
#include <cstdint>

#include "kernels/reduce/reduce.hpp"
#include "kernels/variant_row.hpp"

namespace gpuopt {
namespace {

using Row = VariantRow<ReduceProblem>;

constexpr unsigned kTextbookTypes =
    dtype_bit(GPUOPT_DTYPE_I32) | dtype_bit(GPUOPT_DTYPE_F32) | dtype_bit(GPUOPT_DTYPE_F64);
constexpr unsigned kAllTypes = kTextbookTypes | dtype_bit(GPUOPT_DTYPE_I64) |
                               dtype_bit(GPUOPT_DTYPE_U32) | dtype_bit(GPUOPT_DTYPE_BF16) |
                               dtype_bit(GPUOPT_DTYPE_F16);

const char* can_cub(const ReduceProblem& p, const DeviceDesc& dev) {
  if ((p.op == GPUOPT_REDUCE_ARGMIN || p.op == GPUOPT_REDUCE_ARGMAX) &&
      p.num_segments > static_cast<std::int64_t>(reduce_ws::kPartialABytes / 16))
    return "cub argmin/argmax stage (value, index) pairs in the stream workspace: at most 262144 "
           "segments";
  // cub::DeviceReduce keeps one accumulator per block of a grid of at most ~40 blocks per SM.
  if (static_cast<std::size_t>(dev.sm_count) * 40 * 16 + 4096 > reduce_ws::kCubBytes)
    return "cub temp storage for this many SMs may exceed the stream workspace's CUB region";
  return nullptr;
}

const char* can_one_per_thread(const ReduceProblem& p, const DeviceDesc&) {
  return textbook_can(p, TextbookShape{512, 1});
}
const char* can_eight_per_thread(const ReduceProblem& p, const DeviceDesc&) {
  return textbook_can(p, TextbookShape{512, 8});
}
const char* can_complete_unroll(const ReduceProblem& p, const DeviceDesc&) {
  return textbook_can(p, TextbookShape{complete_unroll_threads(p.n), 8});
}

// Textbook rungs rank by their place on the ladder, below everything else; cub below the own
// fast rungs; sm90_cluster below warp_shuffle_vec everywhere: on the H200 it lost on every shape
// measured, few long rows included (512 x 131072 f32: 3764 vs 4043 GB/s; docs/notes/reduce.md).
constexpr Variant<ReduceProblem> kTable[] = {
    Row("neighbored",
        "shared-memory tree over neighbouring pairs (divergent warps), 1 element per "
        "thread, one pass per 512 elements",
        kTextbookTypes)
        .can(can_one_per_thread)
        .rank<1>()
        .launch(reduce_launch_neighbored),
    Row("interleaved",
        "shared-memory tree with halving strides (packed active threads), 1 element "
        "per thread",
        kTextbookTypes)
        .can(can_one_per_thread)
        .rank<2>()
        .launch(reduce_launch_interleaved),
    Row("unroll8",
        "each block first adds 8 blocks' worth (8 loads in flight per thread), then the "
        "interleaved tree",
        kTextbookTypes)
        .can(can_eight_per_thread)
        .rank<3>()
        .launch(reduce_launch_unroll8),
    Row("unroll8_warp", "unroll8 with the last warp finished by shuffles (no barriers)",
        kTextbookTypes)
        .can(can_eight_per_thread)
        .rank<4>()
        .launch(reduce_launch_unroll8_warp),
    Row("complete_unroll",
        "unroll8_warp with the block size a template parameter: the whole tree "
        "unrolled, a switch over block sizes at launch",
        kTextbookTypes)
        .can(can_complete_unroll)
        .rank<5>()
        .launch(reduce_launch_complete_unroll),
    Row("warp_shuffle_vec",
        "16-byte loads, 4 in flight per thread, warp-shuffle trees; segments "
        "split over blocks with a last-block-done pass in index order",
        kAllTypes)
        .rank<30>()
        .launch(reduce_launch_warp_shuffle_vec),
    Row("sm90_cluster",
        "a thread-block cluster per segment, CTA partials combined through "
        "distributed shared memory in one launch",
        kAllTypes)
        .min_sm(90)
        .rank<20>()
        .launch(reduce_launch_sm90_cluster),
    Row("cub", "cub::DeviceReduce / cub::DeviceSegmentedReduce (vendor)", kAllTypes)
        .vendor()
        .can(can_cub)
        .rank<10>()
        .launch(reduce_launch_cub),
};

}  // namespace

const Variant<ReduceProblem>* reduce_variants(int* count) { return table_entries(kTable, count); }

}  // namespace gpuopt
