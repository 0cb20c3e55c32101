// segmented_sort cub (vendor): cub::DeviceSegmentedSort for 32-bit keys: signed ones in ascending
// order as they are (the bench's vendor row), every other 32-bit key type and order mapped.
#include "kernels/segmented_sort/cub_vendor_sort.cuh"

namespace gpuopt {
template cudaError_t cub_segmented_sort<int>(const SegmentedSortProblem&, void*, std::size_t&,
                                             const int*, int*, cudaStream_t);
}  // namespace gpuopt
