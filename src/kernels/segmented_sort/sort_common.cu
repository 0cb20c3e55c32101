// The kernel arguments of a segmented-sort problem (sort_keys.cuh).
#include <cstdint>

#include "kernels/segmented_sort/sort_keys.cuh"

namespace gpuopt {
namespace sort {

SortArgs make_sort_args(const SegmentedSortProblem& p) {
  SortArgs a{};
  a.keys_in = p.keys_in;
  a.keys_out = p.keys_out;
  a.values_in = p.values_in;
  a.values_out = p.values_out;
  a.offsets = reinterpret_cast<const long long*>(p.offsets);
  a.num_items = p.num_items;
  a.num_segments = p.num_segments;
  a.segment_size = p.segment_size;
  a.kind = static_cast<int>(sort_key_kind(p.key_type));
  a.descending = p.descending ? 1 : 0;
  return a;
}

bool whole_segment_vectors(const SegmentedSortProblem& p, int n) {
  return p.segment_size == n && reinterpret_cast<std::uintptr_t>(p.keys_in) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(p.keys_out) % 16 == 0;
}

}  // namespace sort
}  // namespace gpuopt
