// segmented_sort warp_bitonic: a group of LANES lanes (a warp or a part of one) sorts one
// segment of up to N = ITEMS * LANES keys entirely in registers: ITEMS keys per lane, loaded as
// striped 16-byte vectors (any placement works: the index travels with the key), the bitonic
// network in its flip form, stages within a lane as register compare-exchanges and stages across
// lanes through __shfl_xor_sync, sorted keys stored blocked. Keys are mapped to order-preserving
// unsigned bits once; keys-only sorts compare bits alone (equal keys are identical), sorts with
// values carry the key's index, break ties by it (stable) and gather the values at the end.
// Segments of 128 keys: 8 lanes x 16 keys (6 of the 28 stages cross lanes, against 10 with
// 16 x 8), four segments per warp, and an L2 prefetch of the warp's next span while it sorts.
// Figure (H200, 4M x 128 i32 keys, read + write): 3171 GB/s, 1.354 ms, 237x cub
// (docs/notes/segmented_sort.md, run 3).
#include <algorithm>

#include "common/launch.hpp"
#include "kernels/segmented_sort/sort_keys.cuh"

namespace gpuopt {
namespace sort {
namespace {

template <class U, int VB, int ITEMS, int LANES>
__global__ void __launch_bounds__(kWarpKernelThreads) warp_bitonic_kernel(const SortArgs a) {
  constexpr int N = ITEMS * LANES;
  constexpr int kGroups = 32 / LANES;  // segments per warp
  constexpr int kWarps = kWarpKernelThreads / 32;
  const int lane = threadIdx.x & 31;
  const int gl = lane & (LANES - 1);
  const int group = lane / LANES;
  const long long total = work_count(a);
  const long long start = work_start(a);
  const long long stride = static_cast<long long>(gridDim.x) * kWarps;
  for (long long w = static_cast<long long>(blockIdx.x) * kWarps + threadIdx.x / 32;
       w * kGroups < total; w += stride) {
    const long long item = w * kGroups + group;
    long long lo = 0, size = 0;
    if (item < total) work_range(a, item, start, &lo, &size);
    U k[ITEMS];
    unsigned x[ITEMS];
    load_keys<U, ITEMS>(a, lo, size, gl, LANES, k, x);
    if ((a.tune & kTunePrefetch) && a.vec &&
        (w + stride) * kGroups < total) {  // the next span into L2 meanwhile
      const U* next = static_cast<const U*>(a.keys_in) + (w + stride) * kGroups * N + lane * ITEMS;
      asm volatile("prefetch.global.L2 [%0];" ::"l"(next));
    }
    group_sort<U, VB != 0, ITEMS, LANES>(k, x, gl);
    store_sorted<U, VB, ITEMS>(a, lo, size, gl * ITEMS, k, x);
  }
}

template <class U, int VB, int ITEMS, int LANES>
gpuopt_status_t launch(const SortArgs& a, long long blocks, cudaStream_t stream, const char* fn) {
  warp_bitonic_kernel<U, VB, ITEMS, LANES>
      <<<static_cast<unsigned>(blocks), kWarpKernelThreads, 0, stream>>>(a);
  return check_launch(fn, "segmented_sort warp_bitonic kernel");
}

template <class U, int VB>
gpuopt_status_t launch_n(const SortArgs& a, int n, long long blocks, cudaStream_t stream,
                         const char* fn) {
  switch (n) {
    case 8:
      return launch<U, VB, 8, 1>(a, blocks, stream, fn);
    case 16:
      return launch<U, VB, 8, 2>(a, blocks, stream, fn);
    case 32:
      return launch<U, VB, 8, 4>(a, blocks, stream, fn);
    case 64:
      return launch<U, VB, 8, 8>(a, blocks, stream, fn);
    case 128:
      if (a.tune & kTuneItems16) return launch<U, VB, 16, 8>(a, blocks, stream, fn);
      return launch<U, VB, 8, 16>(a, blocks, stream, fn);
    case 256:
      if (a.tune & kTuneItems16) return launch<U, VB, 16, 16>(a, blocks, stream, fn);
      return launch<U, VB, 8, 32>(a, blocks, stream, fn);
    case 512:
      return launch<U, VB, 16, 32>(a, blocks, stream, fn);
    default:
      return fail(GPUOPT_ERROR_INTERNAL, fn, "segmented_sort warp_bitonic: no kernel for N = %d",
                  n);
  }
}

}  // namespace

int warp_network_items(int n, int tune) {
  return n > 256 || (n >= 128 && (tune & kTuneItems16)) ? 16 : 8;
}

int warp_network_segments_per_block(int n, int tune) {
  return kWarpKernelThreads / (n / warp_network_items(n, tune));
}

gpuopt_status_t launch_warp_network(const SortArgs& a, int key_bytes, int value_bytes, int n,
                                    long long blocks, cudaStream_t stream, const char* fn) {
  return launch_network(a, key_bytes, value_bytes, n, blocks, stream, fn, [](auto u, auto vb) {
    return &launch_n<decltype(u), decltype(vb)::value>;
  });
}

}  // namespace sort

gpuopt_status_t sort_launch_warp_bitonic(const SegmentedSortProblem& p, const ExecEnv& env) {
  const int n = static_cast<int>(sort_pow2(p.segment_size, 8));
  sort::SortArgs a = sort::make_sort_args(p);
  const int key_bytes = static_cast<int>(sort_key_size(p.key_type));
  a.tune = sort::kTuneDefault;
  const int items = sort::warp_network_items(n, a.tune);
  a.vec = (items * key_bytes) % 16 == 0 && sort::whole_segment_vectors(p, n);
  const long long per_block = sort::warp_network_segments_per_block(n, a.tune);
  const long long cap = static_cast<long long>(env.device->sm_count) * 64;
  const long long blocks = std::min<long long>(ceil_div(p.num_segments, per_block), cap);
  return sort::launch_warp_network(a, key_bytes, p.value_bytes, n, blocks, env.stream, env.fn);
}

}  // namespace gpuopt
