// segmented_sort cub (vendor): cub::DeviceSegmentedSort for 32-bit unsigned keys, and every mapped
// 32-bit sort (floats, descending).
#include "kernels/segmented_sort/cub_vendor_sort.cuh"

namespace gpuopt {
template cudaError_t cub_segmented_sort<unsigned>(const SegmentedSortProblem&, void*, std::size_t&,
                                                  const unsigned*, unsigned*, cudaStream_t);
}  // namespace gpuopt
