// segmented_sort binned: segments given by offsets (or fixed ones of any size) are binned by
// size in one sweep (count per class, then scatter the segment ids into per-class lists in the
// workspace), then each class runs the kernel that fits it: one thread (<= 8 keys), part of a
// warp or a whole warp (<= 512 keys, warp_bitonic's kernel), a block (<= 4096 keys,
// block_bitonic's kernel), and for larger segments a block-per-segment LSD radix sort (8-bit
// digits, stable ranks from warp match masks, ping-pong between the outputs and the workspace).
// The class kernels loop over their lists (the counts live on the device), so the pipeline has
// a fixed number of launches and no host synchronization: it can be captured in a graph.
// Figure (H200, 1M segments of random sizes 1..1024): docs/notes/segmented_sort.md.
#include <algorithm>

#include "common/launch.hpp"
#include "kernels/segmented_sort/sort_keys.cuh"

namespace gpuopt {
namespace sort {
namespace {

constexpr int kBinThreads = 256;
constexpr int kRadixThreads = 512;
constexpr int kRadixWarps = kRadixThreads / 32;

// Class of a segment of size keys (-1: empty, nothing to do).
__device__ __forceinline__ int size_class(long long size) {
  if (size <= 0) return -1;
  if (size <= 8) return 0;
  if (size > kSortBlockMax) return kSortNetClasses;
  return 32 - __clz(static_cast<unsigned>(size - 1)) - 3;
}

__global__ void __launch_bounds__(kBinThreads)
    bin_count_kernel(const SortArgs a, unsigned* counts) {
  __shared__ unsigned c[kSortClasses];
  if (threadIdx.x < kSortClasses) c[threadIdx.x] = 0;
  __syncthreads();
  const long long s = static_cast<long long>(blockIdx.x) * kBinThreads + threadIdx.x;
  if (s < a.num_segments) {
    long long lo = 0, size = 0;
    segment_range(a, s, &lo, &size);
    const int cls = size_class(size);
    if (cls >= 0) atomicAdd(&c[cls], 1u);
  }
  __syncthreads();
  if (threadIdx.x < kSortClasses && c[threadIdx.x]) atomicAdd(&counts[threadIdx.x], c[threadIdx.x]);
}

__global__ void __launch_bounds__(kBinThreads)
    bin_scatter_kernel(const SortArgs a, const unsigned* counts, unsigned* cursors,
                       unsigned* list) {
  __shared__ unsigned c[kSortClasses];
  __shared__ unsigned base[kSortClasses];
  if (threadIdx.x < kSortClasses) c[threadIdx.x] = 0;
  __syncthreads();
  const long long s = static_cast<long long>(blockIdx.x) * kBinThreads + threadIdx.x;
  int cls = -1;
  unsigned rank = 0;
  if (s < a.num_segments) {
    long long lo = 0, size = 0;
    segment_range(a, s, &lo, &size);
    cls = size_class(size);
    if (cls >= 0) rank = atomicAdd(&c[cls], 1u);
  }
  __syncthreads();
  if (threadIdx.x < kSortClasses && c[threadIdx.x]) {
    unsigned first = 0;
    for (unsigned q = 0; q < threadIdx.x; ++q) first += counts[q];
    base[threadIdx.x] = first + atomicAdd(&cursors[threadIdx.x], c[threadIdx.x]);
  }
  __syncthreads();
  if (cls >= 0) list[base[cls] + rank] = static_cast<unsigned>(s);
}

// One block per segment (> 4096 keys): LSD radix sort, 8 bits a pass, sizeof(U) passes (even),
// keys in mapped form in between: in -> tmp -> out -> tmp -> ... -> out. Each pass counts the
// digits, then ranks tiles of 512 keys stably: a warp's keys with one digit are ranked by their
// match mask, warps in order by a scan over the per-warp digit counts.
template <class U, int VB>
__global__ void __launch_bounds__(kRadixThreads)
    radix_kernel(const SortArgs a, U* tmp_keys, typename ValueOf<VB>::type* tmp_values) {
  using V = typename ValueOf<VB>::type;
  constexpr int kPasses = static_cast<int>(sizeof(U));
  __shared__ unsigned base[256];
  __shared__ unsigned warp_digits[kRadixWarps][256];
  const long long total = work_count(a);
  const long long start = work_start(a);
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const unsigned lanes_below = (1u << lane) - 1u;
  U* out = static_cast<U*>(a.keys_out);
  V* vout = static_cast<V*>(a.values_out);
  for (long long w = blockIdx.x; w < total; w += gridDim.x) {
    long long lo = 0, size = 0;
    work_range(a, w, start, &lo, &size);
    for (int pass = 0; pass < kPasses; ++pass) {
      const int shift = 8 * pass;
      const bool first = pass == 0, last = pass == kPasses - 1;
      const U* src = first ? static_cast<const U*>(a.keys_in) : (pass & 1 ? tmp_keys : out);
      U* dst = pass & 1 ? out : tmp_keys;
      const V* vsrc = first ? static_cast<const V*>(a.values_in) : (pass & 1 ? tmp_values : vout);
      V* vdst = pass & 1 ? vout : tmp_values;
      auto key_at = [&](long long i) {
        const U k = src[lo + i];
        return first ? map_key(k, a.kind, a.descending) : k;
      };
      if (t < 256) base[t] = 0;
      __syncthreads();
      for (long long i = t; i < size; i += kRadixThreads)
        atomicAdd(&base[static_cast<unsigned>(key_at(i) >> shift) & 255u], 1u);
      __syncthreads();
      if (t == 0) {
        unsigned run = 0;
        for (int d = 0; d < 256; ++d) {
          const unsigned c = base[d];
          base[d] = run;
          run += c;
        }
      }
      __syncthreads();
      for (long long tile = 0; tile < size; tile += kRadixThreads) {
        const long long i = tile + t;
        const bool valid = i < size;
        const U k = valid ? key_at(i) : U(0);
        const unsigned d = valid ? static_cast<unsigned>(k >> shift) & 255u : 256u;
        for (int q = t; q < kRadixWarps * 256; q += kRadixThreads) (&warp_digits[0][0])[q] = 0;
        __syncthreads();
        const unsigned peers = __match_any_sync(0xffffffffu, d);
        const unsigned rank = __popc(peers & lanes_below);
        if (valid && rank == 0) warp_digits[warp][d] = __popc(peers);
        __syncthreads();
        if (t < 256) {
          unsigned run = base[t];
          for (int q = 0; q < kRadixWarps; ++q) {
            const unsigned c = warp_digits[q][t];
            warp_digits[q][t] = run;
            run += c;
          }
          base[t] = run;
        }
        __syncthreads();
        if (valid) {
          const long long pos = lo + warp_digits[warp][d] + rank;
          dst[pos] = last ? unmap_key(k, a.kind, a.descending) : k;
          if constexpr (VB != 0) vdst[pos] = vsrc[lo + i];
        }
        __syncthreads();
      }
    }
  }
}

}  // namespace
}  // namespace sort

gpuopt_status_t sort_launch_binned(const SegmentedSortProblem& p, const ExecEnv& env) {
  using namespace sort;
  const BinnedLayout lay = binned_layout(p);
  if (!p.workspace || p.workspace_bytes < lay.total)
    return fail(GPUOPT_ERROR_INTERNAL, env.fn, "segmented_sort binned: workspace too small");
  unsigned char* ws = static_cast<unsigned char*>(p.workspace);
  unsigned* counts = reinterpret_cast<unsigned*>(ws + lay.counters);
  unsigned* cursors = counts + kSortClasses;
  unsigned* list = reinterpret_cast<unsigned*>(ws + lay.list);
  SortArgs a = make_sort_args(p);
  GPUOPT_TRY_CUDA(cudaMemsetAsync(counts, 0, 2 * kSortClasses * sizeof(unsigned), env.stream),
                  env.fn, "segmented_sort binned: clearing the class counters");
  const long long bin_blocks = ceil_div(p.num_segments, kBinThreads);
  bin_count_kernel<<<static_cast<unsigned>(bin_blocks), kBinThreads, 0, env.stream>>>(a, counts);
  GPUOPT_TRY(check_launch(env.fn, "segmented_sort bin_count_kernel"));
  bin_scatter_kernel<<<static_cast<unsigned>(bin_blocks), kBinThreads, 0, env.stream>>>(
      a, counts, cursors, list);
  GPUOPT_TRY(check_launch(env.fn, "segmented_sort bin_scatter_kernel"));

  a.bins = counts;
  a.list = list;
  a.vec = 0;
  const int key_bytes = static_cast<int>(sort_key_size(p.key_type));
  const long long sms = env.device->sm_count;
  for (int c = 0; c < kSortNetClasses; ++c) {
    a.bin = c;
    const int n = 8 << c;
    if (n <= kSortWarpMax) {
      const long long per_block = warp_network_segments_per_block(n, a.tune);
      const long long blocks = std::min<long long>(ceil_div(p.num_segments, per_block), sms * 32);
      GPUOPT_TRY(launch_warp_network(a, key_bytes, p.value_bytes, n, blocks, env.stream, env.fn));
    } else {
      const long long blocks = std::min<long long>(p.num_segments, sms * (2048 / (n / 8)) * 2);
      GPUOPT_TRY(launch_block_network(a, key_bytes, p.value_bytes, n, blocks, env.stream, env.fn));
    }
  }
  if (!lay.radix) return GPUOPT_SUCCESS;
  a.bin = kSortNetClasses;
  const long long blocks = std::min<long long>(p.num_segments, sms * 4);
  return with_shape(key_bytes, p.value_bytes, [&](auto u, auto vb) {
    using U = decltype(u);
    constexpr int kVb = decltype(vb)::value;
    using V = typename ValueOf<kVb>::type;
    radix_kernel<U, kVb><<<static_cast<unsigned>(blocks), kRadixThreads, 0, env.stream>>>(
        a, reinterpret_cast<U*>(ws + lay.radix_keys), reinterpret_cast<V*>(ws + lay.radix_values));
    return check_launch(env.fn, "segmented_sort radix_kernel");
  });
}

}  // namespace gpuopt
