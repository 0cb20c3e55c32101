// The segmented_sort variant table and its dispatch rule (see segmented_sort.hpp).
#include <cstdint>

#include "kernels/segmented_sort/segmented_sort.hpp"

namespace gpuopt {
namespace {

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
int pref_warp_bitonic(const SegmentedSortProblem&, const DeviceDesc&) { return 30; }
int pref_block_bitonic(const SegmentedSortProblem&, const DeviceDesc&) { return 20; }
int pref_binned(const SegmentedSortProblem&, const DeviceDesc&) { return 10; }
int pref_cub(const SegmentedSortProblem&, const DeviceDesc&) { return 1; }

const Variant<SegmentedSortProblem> kTable[] = {
    {{"warp_bitonic",
      "bitonic network in registers, a warp or part of one per segment (<= 512 keys), "
      "shuffles across lanes, 16-byte loads",
      0, 0, false, kKeyTypes},
     can_warp_bitonic,
     pref_warp_bitonic,
     sort_launch_warp_bitonic},
    {{"block_bitonic",
      "a block per segment (<= 4096 keys): warp networks in registers, merges across warps "
      "in shared memory",
      0, 0, false, kKeyTypes},
     can_block_bitonic,
     pref_block_bitonic,
     sort_launch_block_bitonic},
    {{"binned",
      "segments binned by size in one sweep; thread, warp and block networks per class, "
      "a block radix sort for segments over 4096 keys",
      0, 0, false, kKeyTypes},
     can_binned,
     pref_binned,
     sort_launch_binned},
    {{"cub", "cub::DeviceSegmentedSort stable sort (vendor)", 0, 0, true, kKeyTypes},
     can_cub,
     pref_cub,
     sort_launch_cub},
};

}  // namespace

const Variant<SegmentedSortProblem>* segmented_sort_variants(int* count) {
  *count = static_cast<int>(sizeof kTable / sizeof kTable[0]);
  return kTable;
}

}  // namespace gpuopt
