// The one cub::DeviceSegmentedSort call of the cub vendor variant (cub_vendor.cu), declared per
// key type K that CUB sorts. Each K is instantiated in a translation unit of its own
// (cub_vendor_i32.cu, cub_vendor_u64.cu): CUB's segmented sort is the heaviest template in the
// library to compile, and one file per key type lets a parallel build spread it over cores.
// Every other key type goes through the mapped path to int or unsigned long long instead of an
// instantiation of its own (cub_vendor.cu).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

#include "kernels/segmented_sort/segmented_sort.hpp"

namespace gpuopt {

// Sorts p's segments (keys kin -> kout, values as p says) with CUB; temp == nullptr: the size
// query, which only sets bytes.
template <class K>
cudaError_t cub_segmented_sort(const SegmentedSortProblem& p, void* temp, std::size_t& bytes,
                               const K* kin, K* kout, cudaStream_t stream);

extern template cudaError_t cub_segmented_sort<int>(const SegmentedSortProblem&, void*,
                                                    std::size_t&, const int*, int*, cudaStream_t);
extern template cudaError_t cub_segmented_sort<unsigned long long>(const SegmentedSortProblem&,
                                                                   void*, std::size_t&,
                                                                   const unsigned long long*,
                                                                   unsigned long long*,
                                                                   cudaStream_t);

}  // namespace gpuopt
