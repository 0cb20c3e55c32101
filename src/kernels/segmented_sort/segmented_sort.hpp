// Segmented sort (stable, keys with optional values, fixed-size or offset segments): the
// problem, the workspace layout, the size classes of the binned pipeline and the variant table.
//
// Dispatch rule (segmented_sort_table.cpp; measured on an H200, docs/notes/segmented_sort.md):
// fixed segments up to 512 keys: warp_bitonic; fixed up to 4096: block_bitonic; everything else
// (offsets, larger fixed segments): binned; cub (the vendor) only when forced.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/registry.hpp"

namespace gpuopt {

struct SegmentedSortProblem {
  gpuopt_dtype_t key_type = GPUOPT_DTYPE_I32;
  int value_bytes = 0;  // 0, 4 or 8
  bool descending = false;
  std::int64_t num_items = 0;
  std::int64_t num_segments = 0;
  std::int64_t segment_size = 0;          // fixed layout (offsets == nullptr)
  const std::int64_t* offsets = nullptr;  // device, num_segments + 1 entries
  const void* keys_in = nullptr;
  void* keys_out = nullptr;
  const void* values_in = nullptr;
  void* values_out = nullptr;
  void* workspace = nullptr;  // the caller's, >= segmented_sort_workspace_bytes()
  std::size_t workspace_bytes = 0;
};

// Bytes of a key of type t (0 for types the sort does not take).
std::size_t sort_key_size(gpuopt_dtype_t t);

// Workspace regions start on 256-byte boundaries.
inline std::size_t align256(std::size_t n) { return (n + 255) / 256 * 256; }

// How keys map to order-preserving unsigned bits (sort_keys.cuh).
enum class KeyKind : int { kUnsigned = 0, kSigned = 1, kFloat = 2 };
KeyKind sort_key_kind(gpuopt_dtype_t t);

// Largest segment a sorting network takes (warp: registers; block: shared memory).
constexpr std::int64_t kSortWarpMax = 512;
constexpr std::int64_t kSortBlockMax = 4096;

// The binned pipeline's size classes: class c < kSortNetClasses sorts segments of at most
// 8 << c keys with a network (c <= 6: warp_bitonic's kernel, c >= 7: block_bitonic's); the last
// class (> 4096 keys) by the per-segment radix sort.
constexpr int kSortNetClasses = 10;
constexpr int kSortClasses = kSortNetClasses + 1;

// Layout of the caller's workspace for the binned pipeline: class counters and cursors, the
// segment ids grouped by class, then (when a segment may exceed 4096 keys) the radix sort's
// ping-pong keys and values.
struct BinnedLayout {
  std::size_t counters = 0;  // 2 * kSortClasses u32 (counts, cursors)
  std::size_t list = 0;      // num_segments u32
  std::size_t radix_keys = 0;
  std::size_t radix_values = 0;
  std::size_t total = 0;
  bool radix = false;
};
BinnedLayout binned_layout(const SegmentedSortProblem& p);

// Workspace of the cub variant: its mapped-key buffers, then CUB's temp storage.
struct CubLayout {
  bool mapped = false;        // keys sorted as mapped bits (all but ascending i32 and u64)
  std::size_t mapped_in = 0;  // num_items keys
  std::size_t mapped_out = 0;
  std::size_t temp = 0;
  std::size_t temp_bytes = 0;
  std::size_t total = 0;
};
// Queries CUB's temp size on the host (no device work); false when CUB refuses the sizes.
bool cub_layout(const SegmentedSortProblem& p, CubLayout* out);

// The workspace every variant fits in (max over the variants).
std::size_t segmented_sort_workspace_bytes(const SegmentedSortProblem& p);

// Next power of two >= n, at least lo.
std::int64_t sort_pow2(std::int64_t n, std::int64_t lo);

gpuopt_status_t sort_launch_warp_bitonic(const SegmentedSortProblem& p, const ExecEnv& env);
gpuopt_status_t sort_launch_block_bitonic(const SegmentedSortProblem& p, const ExecEnv& env);
gpuopt_status_t sort_launch_binned(const SegmentedSortProblem& p, const ExecEnv& env);
gpuopt_status_t sort_launch_cub(const SegmentedSortProblem& p, const ExecEnv& env);

// The table, in ladder order (vendor last).
const Variant<SegmentedSortProblem>* segmented_sort_variants(int* count);

}  // namespace gpuopt
