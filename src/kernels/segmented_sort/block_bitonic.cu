// segmented_sort block_bitonic: one block of N / 8 threads sorts a segment of up to N (1024,
// 2048, 4096) keys. Each warp first sorts its 256 keys in registers (warp_bitonic's network);
// then for every merge K > 256 the block exchanges through shared memory for the stages whose
// distance is >= 256 (one barrier per stage; consecutive threads touch consecutive words, so no
// bank conflicts) and returns to registers and shuffles for the distances below 256. Values
// follow their keys by index (gathered at the end), ties break by index (stable). Figure:
// docs/notes/segmented_sort.md.
#include <algorithm>

#include "common/launch.hpp"
#include "kernels/segmented_sort/sort_keys.cuh"

namespace gpuopt {
namespace sort {
namespace {

constexpr int kItems = 8;
constexpr int kChunk = 32 * kItems;  // keys one warp sorts in registers

template <class U, bool IDX>
__device__ __forceinline__ void smem_cmpx(U* sk, unsigned* sx, int i, int j) {
  U a = sk[i], b = sk[j];
  unsigned ia = IDX ? sx[i] : 0u, ib = IDX ? sx[j] : 0u;
  if (key_less<U, IDX>(b, ib, a, ia)) {
    sk[i] = b;
    sk[j] = a;
    if (IDX) {
      sx[i] = ib;
      sx[j] = ia;
    }
  }
}

// Merge K of the block: the flip stage and the half-cleaners down to kChunk in shared memory,
// the rest in registers.
template <class U, bool IDX, int N, int K>
__device__ __forceinline__ void block_merges(U (&k)[kItems], unsigned (&x)[kItems], U* sk,
                                             unsigned* sx) {
  if constexpr (K <= N) {
    constexpr int kThreads = N / kItems;
    const int t = threadIdx.x;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      sk[t * kItems + j] = k[j];
      if (IDX) sx[t * kItems + j] = x[j];
    }
    __syncthreads();
    for (int p = t; p < N / 2; p += kThreads) {
      const int i = (p / (K / 2)) * K + p % (K / 2);
      smem_cmpx<U, IDX>(sk, sx, i, i ^ (K - 1));
    }
    __syncthreads();
#pragma unroll
    for (int d = K / 4; d >= kChunk; d /= 2) {
      for (int p = t; p < N / 2; p += kThreads) {
        const int i = (p / d) * 2 * d + p % d;
        smem_cmpx<U, IDX>(sk, sx, i, i + d);
      }
      __syncthreads();
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      k[j] = sk[t * kItems + j];
      x[j] = IDX ? sx[t * kItems + j] : 0u;
    }
    half_chain<U, IDX, kItems, kChunk / 2>(k, x, t & 31);
    __syncthreads();  // every read done before the next merge (or segment) writes
    block_merges<U, IDX, N, 2 * K>(k, x, sk, sx);
  }
}

template <class U, int VB, int N>
__global__ void __launch_bounds__(N / kItems) block_bitonic_kernel(const SortArgs a) {
  constexpr bool kIdx = VB != 0;
  __shared__ U sk[N];
  __shared__ unsigned sx[kIdx ? N : 1];
  const long long total = work_count(a);
  const long long start = work_start(a);
  const int t = threadIdx.x;
  for (long long w = blockIdx.x; w < total; w += gridDim.x) {
    long long lo = 0, size = 0;
    work_range(a, w, start, &lo, &size);
    U k[kItems];
    unsigned x[kItems];
    load_keys<U, kItems>(a, lo, size, t, N / kItems, k, x);
    group_sort<U, kIdx, kItems, 32>(k, x, t & 31);
    block_merges<U, kIdx, N, 2 * kChunk>(k, x, sk, sx);
    store_sorted<U, VB, kItems>(a, lo, size, t * kItems, k, x);
  }
}

template <class U, int VB, int N>
gpuopt_status_t launch(const SortArgs& a, long long blocks, cudaStream_t stream, const char* fn) {
  block_bitonic_kernel<U, VB, N><<<static_cast<unsigned>(blocks), N / kItems, 0, stream>>>(a);
  return check_launch(fn, "segmented_sort block_bitonic kernel");
}

template <class U, int VB>
gpuopt_status_t launch_n(const SortArgs& a, int n, long long blocks, cudaStream_t stream,
                         const char* fn) {
  switch (n) {
    case 1024:
      return launch<U, VB, 1024>(a, blocks, stream, fn);
    case 2048:
      return launch<U, VB, 2048>(a, blocks, stream, fn);
    case 4096:
      return launch<U, VB, 4096>(a, blocks, stream, fn);
    default:
      return fail(GPUOPT_ERROR_INTERNAL, fn, "segmented_sort block_bitonic: no kernel for N = %d",
                  n);
  }
}

}  // namespace

gpuopt_status_t launch_block_network(const SortArgs& a, int key_bytes, int value_bytes, int n,
                                     long long blocks, cudaStream_t stream, const char* fn) {
  return launch_network(a, key_bytes, value_bytes, n, blocks, stream, fn, [](auto u, auto vb) {
    return &launch_n<decltype(u), decltype(vb)::value>;
  });
}

}  // namespace sort

gpuopt_status_t sort_launch_block_bitonic(const SegmentedSortProblem& p, const ExecEnv& env) {
  const int n = static_cast<int>(sort_pow2(p.segment_size, 1024));
  sort::SortArgs a = sort::make_sort_args(p);
  const int key_bytes = static_cast<int>(sort_key_size(p.key_type));
  a.vec = sort::whole_segment_vectors(p, n);
  const long long resident = static_cast<long long>(env.device->sm_count) * (2048 / (n / 8));
  const long long blocks = std::min<long long>(p.num_segments, resident * 4);
  return sort::launch_block_network(a, key_bytes, p.value_bytes, n, blocks, env.stream, env.fn);
}

}  // namespace gpuopt
