// segmented_sort cub (vendor): cub::DeviceSegmentedSort for 64-bit unsigned keys, and every mapped
// 64-bit sort (floats, signed, descending).
#include "kernels/segmented_sort/cub_vendor_sort.cuh"

namespace gpuopt {
template cudaError_t cub_segmented_sort<unsigned long long>(const SegmentedSortProblem&, void*,
                                                            std::size_t&, const unsigned long long*,
                                                            unsigned long long*, cudaStream_t);
}  // namespace gpuopt
