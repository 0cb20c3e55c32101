// Device pieces shared by the segmented-sort kernels: the kernel arguments, segment bounds
// (clamped offsets, fixed layouts, binned work lists), the order-preserving key maps, and the
// bitonic network in registers (flip formulation: every compare-exchange puts the smaller key at
// the lower index, so no direction bit; stages across lanes exchange through __shfl_xor_sync).
#pragma once
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "common/launch.hpp"
#include "kernels/segmented_sort/segmented_sort.hpp"

namespace gpuopt {
namespace sort {

// What every sort kernel gets. bins != nullptr: the kernel sorts the segments of class `bin`
// listed in `list` (grouped by class, counts in bins[0 .. kSortClasses)).
struct SortArgs {
  const void* keys_in;
  void* keys_out;
  const void* values_in;
  void* values_out;
  const long long* offsets;  // nullptr: fixed layout
  long long num_items;
  long long num_segments;
  long long segment_size;
  const unsigned* bins;
  const unsigned* list;
  int bin;
  int kind;        // KeyKind
  int descending;  // 1: keys inverted after the map
  int vec;         // fixed layout, segment_size == N, 16-byte aligned: vector loads and stores
  int tune;        // warp_bitonic's kTune* bits (0 in the binned pipeline)
};

SortArgs make_sort_args(const SegmentedSortProblem& p);

// Whether a network of n keys may load and store whole segments as 16-byte vectors: fixed
// segments of exactly n keys, both key arrays 16-byte aligned.
bool whole_segment_vectors(const SegmentedSortProblem& p, int n);

// Segments (or listed segments) the kernel processes.
__device__ __forceinline__ long long work_count(const SortArgs& a) {
  return a.bins ? static_cast<long long>(a.bins[a.bin]) : a.num_segments;
}
// First list entry of the kernel's class.
__device__ __forceinline__ long long work_start(const SortArgs& a) {
  long long s = 0;
  if (a.bins)
    for (int c = 0; c < a.bin; ++c) s += a.bins[c];
  return s;
}

// [lo, lo + size) of segment s, offsets clamped into [0, num_items] and made non-decreasing.
__device__ __forceinline__ void segment_range(const SortArgs& a, long long s, long long* lo,
                                              long long* size) {
  if (!a.offsets) {
    *lo = s * a.segment_size;
    *size = a.segment_size;
    return;
  }
  long long b = a.offsets[s], e = a.offsets[s + 1];
  b = b < 0 ? 0 : (b > a.num_items ? a.num_items : b);
  e = e < b ? b : (e > a.num_items ? a.num_items : e);
  *lo = b;
  *size = e - b;
}

// Bounds of work item w (start = work_start(a)).
__device__ __forceinline__ void work_range(const SortArgs& a, long long w, long long start,
                                           long long* lo, long long* size) {
  const long long s = a.bins ? static_cast<long long>(a.list[start + w]) : w;
  segment_range(a, s, lo, size);
}

// ---- key maps ------------------------------------------------------------------------------

template <class U>
struct KeyBits;
template <>
struct KeyBits<unsigned> {
  static constexpr unsigned kSign = 0x80000000u;
  static constexpr unsigned kNegNaNs = 0x007FFFFFu;  // negative NaN bit patterns of f32
};
template <>
struct KeyBits<unsigned long long> {
  static constexpr unsigned long long kSign = 0x8000000000000000ull;
  static constexpr unsigned long long kNegNaNs = 0x000FFFFFFFFFFFFFull;
};

// Key bits -> unsigned bits whose ascending order is the requested order. Floats: the usual
// sign flip gives IEEE total order with negative NaNs first; subtracting their count (mod 2^n)
// rotates them above the positive NaNs, so every NaN sorts last. A bijection: unmap_key inverts.
template <class U>
__device__ __forceinline__ U map_key(U x, int kind, int descending) {
  using B = KeyBits<U>;
  if (kind == static_cast<int>(KeyKind::kSigned)) {
    x ^= B::kSign;
  } else if (kind == static_cast<int>(KeyKind::kFloat)) {
    x = (x & B::kSign) ? ~x : (x ^ B::kSign);
    x -= B::kNegNaNs;
  }
  return descending ? ~x : x;
}
template <class U>
__device__ __forceinline__ U unmap_key(U x, int kind, int descending) {
  using B = KeyBits<U>;
  if (descending) x = ~x;
  if (kind == static_cast<int>(KeyKind::kSigned)) {
    x ^= B::kSign;
  } else if (kind == static_cast<int>(KeyKind::kFloat)) {
    x += B::kNegNaNs;
    x = (x & B::kSign) ? (x ^ B::kSign) : ~x;
  }
  return x;
}

template <int VB>
struct ValueOf {
  using type = unsigned long long;
};
template <>
struct ValueOf<4> {
  using type = unsigned;
};

// ---- the bitonic network in registers -------------------------------------------------------
// A group of LANES lanes holds N = ITEMS * LANES keys, key i in register i % ITEMS of lane
// i / ITEMS (blocked). IDX: ties break by x (the key's index in its segment): stable.

template <class U, bool IDX>
__device__ __forceinline__ bool key_less(U a, unsigned ia, U b, unsigned ib) {
  return IDX ? (a < b || (a == b && ia < ib)) : a < b;
}

template <class U, bool IDX>
__device__ __forceinline__ void cmpx(U& a, unsigned& ia, U& b, unsigned& ib) {
  if (!IDX) {
    const U lo = min(a, b);
    b = max(a, b);
    a = lo;
  } else if (key_less<U, true>(b, ib, a, ia)) {
    const U t = a;
    a = b;
    b = t;
    const unsigned ti = ia;
    ia = ib;
    ib = ti;
  }
}

// a (ia) becomes the smaller (lower) or larger of itself and the partner's o (io).
template <class U, bool IDX>
__device__ __forceinline__ void keep(U& a, unsigned& ia, U o, unsigned io, bool lower) {
  if (!IDX) {
    a = lower ? min(a, o) : max(a, o);
  } else if (key_less<U, true>(o, io, a, ia) == lower) {
    a = o;
    ia = io;
  }
}

// First stage of merge K: key i against key i ^ (K - 1).
template <class U, bool IDX, int ITEMS, int K>
__device__ __forceinline__ void flip_stage(U (&k)[ITEMS], unsigned (&x)[ITEMS], int lane) {
  if constexpr (K <= ITEMS) {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const int p = j ^ (K - 1);
      if (j < p) cmpx<U, IDX>(k[j], x[j], k[p], x[p]);
    }
  } else {
    constexpr int kMask = K / ITEMS - 1;
    const bool lower = (lane & (K / ITEMS / 2)) == 0;
    U o[ITEMS];
    unsigned io[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      o[j] = __shfl_xor_sync(0xffffffffu, k[ITEMS - 1 - j], kMask);
      io[j] = IDX ? __shfl_xor_sync(0xffffffffu, x[ITEMS - 1 - j], kMask) : 0u;
    }
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) keep<U, IDX>(k[j], x[j], o[j], io[j], lower);
  }
}

// Half-cleaner stage: key i against key i ^ D.
template <class U, bool IDX, int ITEMS, int D>
__device__ __forceinline__ void half_stage(U (&k)[ITEMS], unsigned (&x)[ITEMS], int lane) {
  if constexpr (D < ITEMS) {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
      if ((j & D) == 0) cmpx<U, IDX>(k[j], x[j], k[j | D], x[j | D]);
  } else {
    constexpr int kMask = D / ITEMS;
    const bool lower = (lane & kMask) == 0;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const U o = __shfl_xor_sync(0xffffffffu, k[j], kMask);
      const unsigned io = IDX ? __shfl_xor_sync(0xffffffffu, x[j], kMask) : 0u;
      keep<U, IDX>(k[j], x[j], o, io, lower);
    }
  }
}

// Half-cleaners D, D / 2, ..., 1.
template <class U, bool IDX, int ITEMS, int D>
__device__ __forceinline__ void half_chain(U (&k)[ITEMS], unsigned (&x)[ITEMS], int lane) {
  if constexpr (D >= 1) {
    half_stage<U, IDX, ITEMS, D>(k, x, lane);
    half_chain<U, IDX, ITEMS, D / 2>(k, x, lane);
  }
}

// Merges K, 2K, ..., N: sorts the group's N keys ascending.
template <class U, bool IDX, int ITEMS, int K, int N>
__device__ __forceinline__ void merge_chain(U (&k)[ITEMS], unsigned (&x)[ITEMS], int lane) {
  if constexpr (K <= N) {
    flip_stage<U, IDX, ITEMS, K>(k, x, lane);
    half_chain<U, IDX, ITEMS, K / 4>(k, x, lane);
    merge_chain<U, IDX, ITEMS, 2 * K, N>(k, x, lane);
  }
}

template <class U, bool IDX, int ITEMS, int LANES>
__device__ __forceinline__ void group_sort(U (&k)[ITEMS], unsigned (&x)[ITEMS], int lane) {
  merge_chain<U, IDX, ITEMS, 2, ITEMS * LANES>(k, x, lane);
}

// ---- register tiles <-> global memory --------------------------------------------------------

// Loads ITEMS keys of the segment into thread g of a group of G threads, striped (key j of the
// thread is item j * G + g; 16-byte vectors q * G + g on the vector path), so every load
// instruction is coalesced. Any placement works: the network sorts by key (and index), and x
// records each key's index in the segment. Keys past size: all ones (sorting last), mapped.
template <class U, int ITEMS>
__device__ __forceinline__ void load_keys(const SortArgs& a, long long lo, long long size, int g,
                                          int G, U (&k)[ITEMS], unsigned (&x)[ITEMS]) {
  const U* in = static_cast<const U*>(a.keys_in) + lo;
  if constexpr ((ITEMS * sizeof(U)) % 16 == 0) {
    constexpr int kPer = static_cast<int>(16 / sizeof(U));  // keys per vector
    if (a.vec && size > 0) {
      const uint4* v = reinterpret_cast<const uint4*>(in);
#pragma unroll
      for (int q = 0; q < ITEMS / kPer; ++q) {
        const int vi = q * G + g;
        const uint4 raw = __ldcs(v + vi);
        alignas(16) U t[kPer];
        *reinterpret_cast<uint4*>(t) = raw;
#pragma unroll
        for (int e = 0; e < kPer; ++e) {
          k[q * kPer + e] = map_key(t[e], a.kind, a.descending);
          x[q * kPer + e] = static_cast<unsigned>(vi * kPer + e);
        }
      }
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    const int i = j * G + g;
    k[j] = i < size ? map_key(in[i], a.kind, a.descending) : ~U(0);
    x[j] = static_cast<unsigned>(i);
  }
}

// Gathers the values of the sorted keys' source indices (positions first .. first + ITEMS).
template <int VB, int ITEMS>
__device__ __forceinline__ void store_values(const SortArgs& a, long long lo, long long size,
                                             int first, const unsigned (&x)[ITEMS]) {
  if constexpr (VB != 0) {
    using V = typename ValueOf<VB>::type;
    const V* vin = static_cast<const V*>(a.values_in) + lo;
    V* vout = static_cast<V*>(a.values_out) + lo;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
      if (first + j < size) vout[first + j] = vin[x[j]];
  }
}

// Stores the first size keys (unmapped) and gathers the values of their source indices.
template <class U, int VB, int ITEMS>
__device__ __forceinline__ void store_sorted(const SortArgs& a, long long lo, long long size,
                                             int first, const U (&k)[ITEMS],
                                             const unsigned (&x)[ITEMS]) {
  U* out = static_cast<U*>(a.keys_out) + lo;
  bool done = false;
  if constexpr ((ITEMS * sizeof(U)) % 16 == 0) {
    if (a.vec && size > 0) {
      alignas(16) U t[ITEMS];
#pragma unroll
      for (int j = 0; j < ITEMS; ++j) t[j] = unmap_key(k[j], a.kind, a.descending);
      uint4* v = reinterpret_cast<uint4*>(out + first);
#pragma unroll
      for (int q = 0; q < static_cast<int>(ITEMS * sizeof(U) / 16); ++q)
        __stcs(v + q, reinterpret_cast<const uint4*>(t)[q]);
      done = true;
    }
  }
  if (!done) {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
      if (first + j < size) out[first + j] = unmap_key(k[j], a.kind, a.descending);
  }
  store_values<VB, ITEMS>(a, lo, size, first, x);
}

// Calls f(U{}, std::integral_constant<int, VB>{}) with U the key's unsigned type (4 or 8 bytes)
// and VB the value bytes (0, 4, 8).
template <class F>
gpuopt_status_t with_shape(int key_bytes, int value_bytes, F&& f) {
  auto by_value = [&](auto u) {
    if (value_bytes == 0) return f(u, std::integral_constant<int, 0>{});
    if (value_bytes == 4) return f(u, std::integral_constant<int, 4>{});
    return f(u, std::integral_constant<int, 8>{});
  };
  return key_bytes == 4 ? by_value(0u) : by_value(0ull);
}

// The network launchers' common part: pick(U{}, std::integral_constant<int, VB>{}) gives the
// launcher of the key and value sizes' shape, which runs the kernel of N = n keys on a grid of
// blocks clamped to [1, kMaxGridX].
template <class Pick>
gpuopt_status_t launch_network(const SortArgs& a, int key_bytes, int value_bytes, int n,
                               long long blocks, cudaStream_t stream, const char* fn, Pick pick) {
  const long long grid = std::max<long long>(1, std::min<long long>(blocks, kMaxGridX));
  return with_shape(key_bytes, value_bytes,
                    [&](auto u, auto vb) { return pick(u, vb)(a, n, grid, stream, fn); });
}

// Launchers of the network kernels for one (N, key size, value size) shape (warp_bitonic.cu,
// block_bitonic.cu); blocks: the grid (kernels loop over their work).
gpuopt_status_t launch_warp_network(const SortArgs& a, int key_bytes, int value_bytes, int n,
                                    long long blocks, cudaStream_t stream, const char* fn);
gpuopt_status_t launch_block_network(const SortArgs& a, int key_bytes, int value_bytes, int n,
                                     long long blocks, cudaStream_t stream, const char* fn);
// Threads per block of the warp kernel; keys per lane and segments one block sorts at a time.
constexpr int kWarpKernelThreads = 256;
int warp_network_items(int n, int tune);
int warp_network_segments_per_block(int n, int tune);

// warp_bitonic's shape options for fixed segments (docs/notes/segmented_sort.md): 16 keys per
// lane for 128 and 256 keys (fewer stages across lanes) and an L2 prefetch of the next span. The
// fixed-size path runs kTuneDefault, the fastest combination measured (run 3: 1.354 ms vs 1.537;
// staging the sorted keys through shared memory measured slower and was removed); the binned
// pipeline runs neither option (tune 0).
constexpr int kTuneItems16 = 1;
constexpr int kTunePrefetch = 4;
constexpr int kTuneDefault = kTuneItems16 | kTunePrefetch;

}  // namespace sort
}  // namespace gpuopt
