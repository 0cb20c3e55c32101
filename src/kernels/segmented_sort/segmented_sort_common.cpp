// Host-side pieces shared by the segmented-sort variants: key sizes and kinds, the network sizes
// and the workspace layouts (functions of the descriptor only).
#include <algorithm>
#include <cstdint>

#include "kernels/segmented_sort/segmented_sort.hpp"

namespace gpuopt {

std::size_t sort_key_size(gpuopt_dtype_t t) {
  return t == GPUOPT_DTYPE_F16 || t == GPUOPT_DTYPE_BF16 ? 0 : dtype_size(t);  // no 16-bit keys
}

KeyKind sort_key_kind(gpuopt_dtype_t t) {
  switch (t) {
    case GPUOPT_DTYPE_I32:
    case GPUOPT_DTYPE_I64:
      return KeyKind::kSigned;
    case GPUOPT_DTYPE_F32:
    case GPUOPT_DTYPE_F64:
      return KeyKind::kFloat;
    default:
      return KeyKind::kUnsigned;
  }
}

std::int64_t sort_pow2(std::int64_t n, std::int64_t lo) {
  std::int64_t p = lo;
  while (p < n) p *= 2;
  return p;
}

namespace {}  // namespace

BinnedLayout binned_layout(const SegmentedSortProblem& p) {
  BinnedLayout l;
  std::size_t at = 0;
  l.counters = at;
  at += align256(2 * kSortClasses * sizeof(unsigned));
  l.list = at;
  at += align256(static_cast<std::size_t>(p.num_segments) * sizeof(unsigned));
  l.radix = p.offsets ? p.num_items > kSortBlockMax : p.segment_size > kSortBlockMax;
  if (l.radix) {
    const std::size_t n = static_cast<std::size_t>(p.num_items);
    l.radix_keys = at;
    at += align256(n * sort_key_size(p.key_type));
    l.radix_values = at;
    at += align256(n * static_cast<std::size_t>(p.value_bytes));
  }
  l.total = at;
  return l;
}

std::size_t segmented_sort_workspace_bytes(const SegmentedSortProblem& p) {
  std::size_t bytes = binned_layout(p).total;
  CubLayout c;
  if (cub_layout(p, &c)) bytes = std::max(bytes, c.total);
  return bytes;
}

}  // namespace gpuopt
