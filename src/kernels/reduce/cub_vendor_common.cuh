// Pieces shared by the cub vendor variant (cub_vendor_sum.cu, cub_vendor_minmax.cu,
// cub_vendor_arg.cu; the launcher is cub_vendor.cpp): the two-phase call (size query, then the
// run in the stream workspace's CUB region: nothing is allocated, so it can be captured),
// segment-offset iterators that clamp like the own kernels do, and functors wrapping the op
// traits.
#pragma once
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include "common/launch.hpp"
#include "kernels/reduce/reduce_dispatch.cuh"
#include "kernels/reduce/reduce_ops.cuh"

namespace gpuopt {
namespace red {

// Runs call(temp, bytes) twice: with temp = nullptr to size it, then in the workspace's CUB
// region; UNSUPPORTED when it does not fit.
template <class Call>
gpuopt_status_t cub_two_phase(const ExecEnv& env, const char* what, Call&& call) {
  if (!env.workspace || env.workspace_bytes < reduce_ws::kTotal)
    return fail(GPUOPT_ERROR_INTERNAL, env.fn, "reduce: the stream has no op workspace");
  std::size_t bytes = 0;
  cudaError_t err = call(nullptr, bytes);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return fail_cuda(err, env.fn, what);
  }
  if (bytes > reduce_ws::kCubBytes)
    return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn,
                "reduce cub: %s needs %zu bytes of temp storage; the stream workspace holds %zu",
                what, bytes, reduce_ws::kCubBytes);
  void* temp = static_cast<unsigned char*>(env.workspace) + reduce_ws::kCubOffset;
  err = call(temp, bytes);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return fail_cuda(err, env.fn, what);
  }
  return check_launch(env.fn, what);
}

// Begin / end of segment s, clamped as segment_bounds() does.
struct SegBegin {
  long long n, stride;
  const long long* offsets;
  __host__ __device__ long long operator()(long long s) const {
    if (!offsets) return s * stride;
    const long long lo = offsets[s];
    return lo < 0 ? 0 : (lo > n ? n : lo);
  }
};
struct SegEnd {
  long long n, stride;
  const long long* offsets;
  __host__ __device__ long long operator()(long long s) const {
    if (!offsets) return s * stride + n;
    const long long lo = SegBegin{n, stride, offsets}(s);
    const long long hi = offsets[s + 1];
    return hi < lo ? lo : (hi > n ? n : hi);
  }
};

inline thrust::transform_iterator<SegBegin, thrust::counting_iterator<long long>> seg_begins(
    const SegArgs& a) {
  return thrust::make_transform_iterator(thrust::counting_iterator<long long>(0),
                                         SegBegin{a.n, a.stride, a.offsets});
}
inline thrust::transform_iterator<SegEnd, thrust::counting_iterator<long long>> seg_ends(
    const SegArgs& a) {
  return thrust::make_transform_iterator(thrust::counting_iterator<long long>(0),
                                         SegEnd{a.n, a.stride, a.offsets});
}

// Element -> accumulator (16-bit floats widen to float).
template <class T, class A>
struct ToAcc {
  __host__ __device__ A operator()(T x) const {
#if defined(__CUDA_ARCH__)
    return static_cast<A>(widen(x));
#else
    return A{};
#endif
  }
};

// The op's combine as a binary functor.
template <class Tr>
struct Combine {
  __host__ __device__ typename Tr::Acc operator()(const typename Tr::Acc& a,
                                                  const typename Tr::Acc& b) const {
#if defined(__CUDA_ARCH__)
    return Tr::combine(a, b);
#else
    return a;
#endif
  }
};

}  // namespace red
}  // namespace gpuopt
