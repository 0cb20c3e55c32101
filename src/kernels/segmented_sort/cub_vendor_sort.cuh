// Definition of cub_segmented_sort<K> (cub_vendor_sort.hpp), included only by the per-key-type
// translation units that instantiate it: segment iterators that clamp the offsets as the own
// kernels do (segment_range()), then StableSortKeys or StableSortPairs with 4- or 8-byte values.
#pragma once
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_segmented_sort.cuh>

#include "kernels/segmented_sort/cub_vendor_sort.hpp"

namespace gpuopt {
namespace cub_sort {

// Begin (end = false) or end offset of segment s, clamped as segment_range() does.
struct SegmentBound {
  const long long* offsets;
  long long num_items;
  long long segment_size;
  bool end;
  __host__ __device__ long long operator()(long long s) const {
    if (!offsets) return (s + (end ? 1 : 0)) * segment_size;
    long long b = offsets[s];
    b = b < 0 ? 0 : (b > num_items ? num_items : b);
    if (!end) return b;
    const long long e = offsets[s + 1];
    return e < b ? b : (e > num_items ? num_items : e);
  }
};

using BoundIt = thrust::transform_iterator<SegmentBound, thrust::counting_iterator<long long>>;

inline BoundIt bounds(const SegmentedSortProblem& p, bool end) {
  return BoundIt(thrust::counting_iterator<long long>(0),
                 SegmentBound{reinterpret_cast<const long long*>(p.offsets), p.num_items,
                              p.segment_size, end});
}

}  // namespace cub_sort

template <class K>
cudaError_t cub_segmented_sort(const SegmentedSortProblem& p, void* temp, std::size_t& bytes,
                               const K* kin, K* kout, cudaStream_t stream) {
  const cub_sort::BoundIt b = cub_sort::bounds(p, false), e = cub_sort::bounds(p, true);
  if (p.value_bytes == 0)
    return cub::DeviceSegmentedSort::StableSortKeys(temp, bytes, kin, kout, p.num_items,
                                                    p.num_segments, b, e, stream);
  if (p.value_bytes == 4)
    return cub::DeviceSegmentedSort::StableSortPairs(
        temp, bytes, kin, kout, static_cast<const unsigned*>(p.values_in),
        static_cast<unsigned*>(p.values_out), p.num_items, p.num_segments, b, e, stream);
  return cub::DeviceSegmentedSort::StableSortPairs(
      temp, bytes, kin, kout, static_cast<const unsigned long long*>(p.values_in),
      static_cast<unsigned long long*>(p.values_out), p.num_items, p.num_segments, b, e, stream);
}

}  // namespace gpuopt
