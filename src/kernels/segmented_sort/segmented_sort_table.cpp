// The segmented_sort variant table and its dispatch rule (see segmented_sort.hpp).
#include <cstdint>

#include "kernels/segmented_sort/segmented_sort.hpp"
#include "kernels/variant_row.hpp"

namespace gpuopt {
namespace {

using Row = VariantRow<SegmentedSortProblem>;

constexpr unsigned kKeyTypes = dtype_bit(GPUOPT_DTYPE_I32) | dtype_bit(GPUOPT_DTYPE_U32) |
                               dtype_bit(GPUOPT_DTYPE_F32) | dtype_bit(GPUOPT_DTYPE_I64) |
                               dtype_bit(GPUOPT_DTYPE_U64) | dtype_bit(GPUOPT_DTYPE_F64);

const char* can_warp_bitonic(const SegmentedSortProblem& p, const DeviceDesc&) {
  if (p.offsets) return "needs fixed-size segments (desc->offsets NULL); binned sorts offsets";
  if (p.segment_size > kSortWarpMax)
    return "segment_size > 512 (a warp holds at most 512 keys in registers)";
  return nullptr;
}

const char* can_block_bitonic(const SegmentedSortProblem& p, const DeviceDesc&) {
  if (p.offsets) return "needs fixed-size segments (desc->offsets NULL); binned sorts offsets";
  if (p.segment_size > kSortBlockMax)
    return "segment_size > 4096 (a block sorts at most 4096 keys in shared memory)";
  return nullptr;
}

const char* can_binned(const SegmentedSortProblem& p, const DeviceDesc&) {
  if (p.num_segments > static_cast<std::int64_t>(UINT32_MAX))
    return "num_segments > 2^32 - 1 (segment ids are 32-bit in the class lists)";
  return nullptr;
}

const char* can_cub(const SegmentedSortProblem& p, const DeviceDesc&) {
  CubLayout l;
  if (!cub_layout(p, &l)) return "cub::DeviceSegmentedSort refused the sizes";
  return nullptr;
}

// Measured on the H200 (docs/notes/segmented_sort.md): the register network wins where it fits,
// the shared-memory network next; binned takes everything else; cub only when forced.
constexpr Variant<SegmentedSortProblem> kTable[] = {
    Row("warp_bitonic",
        "bitonic network in registers, a warp or part of one per segment (<= 512 keys), "
        "shuffles across lanes, 16-byte loads",
        kKeyTypes)
        .can(can_warp_bitonic)
        .rank<30>()
        .launch(sort_launch_warp_bitonic),
    Row("block_bitonic",
        "a block per segment (<= 4096 keys): warp networks in registers, merges across warps "
        "in shared memory",
        kKeyTypes)
        .can(can_block_bitonic)
        .rank<20>()
        .launch(sort_launch_block_bitonic),
    Row("binned",
        "segments binned by size in one sweep; thread, warp and block networks per class, "
        "a block radix sort for segments over 4096 keys",
        kKeyTypes)
        .can(can_binned)
        .rank<10>()
        .launch(sort_launch_binned),
    Row("cub", "cub::DeviceSegmentedSort stable sort (vendor)", kKeyTypes)
        .vendor()
        .can(can_cub)
        .rank<1>()
        .launch(sort_launch_cub),
};

}  // namespace

const Variant<SegmentedSortProblem>* segmented_sort_variants(int* count) {
  return table_entries(kTable, count);
}

}  // namespace gpuopt
