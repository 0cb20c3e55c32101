// segmented_sort: problem, variant table (PLACEHOLDER: the segmented_sort work replaces this file).
#pragma once
#include "runtime/registry.hpp"

namespace gpuopt {

struct SegmentedSortProblem {
  int placeholder = 0;
};

// The variant table of GPUOPT_OP_SEGMENTED_SORT (empty until the kernels land).
const Variant<SegmentedSortProblem>* segmented_sort_variants(int* count);

}  // namespace gpuopt
