// Device building blocks of the vectorized rungs (warp_shuffle_vec, sm90_cluster): segment
// bounds, the split of a segment into 16-byte-aligned pieces, one block's reduction of a piece
// with several 16-byte loads in flight per thread, and one warp's reduction of a short segment.
// The order each thread visits its elements is fixed by the segment's length, its address modulo
// kReducePieceAlignBytes and the piece count, never by the grid, so the result bits are too.
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/reduce/reduce_dispatch.cuh"
#include "kernels/reduce/reduce_ops.cuh"

namespace gpuopt {
namespace red {

// 16-byte loads in flight per thread: kReduceUnroll, halved for ARGMIN/ARGMAX of 16-bit and
// 64-bit types (their (value, index) accumulators and candidates spill at 64 registers with 4).
template <class Tr>
constexpr int unroll_of() {
  return sizeof(typename Tr::Acc) > 8 && sizeof(typename Tr::In) != 4 ? kReduceUnroll / 2
                                                                      : kReduceUnroll;
}

// [*b, *e) of segment s. Offsets are clamped to [0, n] and an end before its begin gives an
// empty segment, so bad offsets never read outside the input.
__device__ __forceinline__ void segment_bounds(const SegArgs& a, long long s, long long* b,
                                               long long* e) {
  if (a.offsets) {
    long long lo = a.offsets[s], hi = a.offsets[s + 1];
    lo = lo < 0 ? 0 : (lo > a.n ? a.n : lo);
    hi = hi < lo ? lo : (hi > a.n ? a.n : hi);
    *b = lo;
    *e = hi;
  } else {
    *b = s * a.stride;
    *e = *b + a.n;
  }
}

// Vector index (from the first aligned vector, `base` vectors past a kReducePieceAlignBytes
// boundary of the address) where piece j of `pieces` over nvec vectors starts: j / pieces of
// the way, rounded down to such a boundary, so that no warp's 512-byte load straddles a piece
// start (H100: 4-8% on the bandwidth). Non-decreasing in j; pieces may be empty.
__device__ __forceinline__ long long piece_start(long long nvec, long long j, long long pieces,
                                                 long long base) {
  constexpr long long kAlignVec = kReducePieceAlignBytes / 16;
  if (j == 0 || j == pieces) return j == 0 ? 0 : nvec;
  const long long x = nvec * j / pieces + base;
  const long long v = x - x % kAlignVec - base;
  return v < 0 ? 0 : v;
}

// Reduction by one block of piece k of `pieces` of segment [b, e): the aligned body is split in
// whole 16-byte vectors at piece_start, piece 0 also takes the unaligned head and the last piece
// the tail.
// Thread t visits vectors t, t + kThreads, ... in order, kUnroll loads in flight, vector slot u
// of each round into accumulator u. Indices given to make() are relative to b. Returns this
// thread's partial.
// Where Tr::Lane is not Tr::Acc (f32 SUM) and kLaneRounds > 0, element l of slot u goes into its
// own lane partial part[u][l] instead (kUnroll x W independent FADD chains), and every
// kLaneRounds rounds, and at the end, the partials are widened and added into acc[u] in (u, l)
// order: a partial holds at most kLaneRounds - 1 + kUnroll - 1 elements. kLaneRounds = 0: every
// element straight into its accumulator.
template <class Tr, int kThreads, int kUnroll, int kLaneRounds = kReduceLaneRounds>
__device__ __forceinline__ typename Tr::Acc reduce_piece(const typename Tr::In* in, long long b,
                                                         long long e, long long k,
                                                         long long pieces) {
  using T = typename Tr::In;
  using Acc = typename Tr::Acc;
  using Lane = typename Tr::Lane;
  constexpr int W = Vec16<T>::kWidth;
  constexpr bool kLanes = !std::is_same<Lane, Acc>::value && kLaneRounds > 0;
  const long long len = e - b;
  const auto addr = reinterpret_cast<std::uintptr_t>(in + b);
  const long long mis = static_cast<long long>((addr % 16) / sizeof(T));
  long long head = mis ? W - mis : 0;
  if (head > len) head = len;
  const long long nvec = (len - head) / W;
  const long long body = b + head;  // element index of the first aligned vector
  const long long tail = b + head + nvec * W;
  const int t = static_cast<int>(threadIdx.x);

  // One accumulator per load slot: kUnroll independent dependency chains (the combines of
  // MIN/MAX/ARGMIN/ARGMAX are several dependent instructions each), merged in slot order.
  Acc acc[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) acc[u] = Tr::identity();
  Lane part[kUnroll][kLanes ? W : 1];
  // Widens the lane partials into the accumulators in (u, l) order and clears them.
  auto flush = [&] {
    if constexpr (kLanes) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
        for (int l = 0; l < W; ++l) {
          acc[u] = Tr::combine(acc[u], static_cast<Acc>(part[u][l]));
          part[u][l] = Lane{};
        }
      }
    }
  };
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
    for (int l = 0; l < (kLanes ? W : 1); ++l) part[u][l] = Lane{};
  }
  // Element l of vector x, which is in load slot u and starts at element `first`.
  auto add = [&](int u, const Vec16<T>& x, long long first) {
#pragma unroll
    for (int l = 0; l < W; ++l) {
      if constexpr (kLanes) {
        part[u][l] += Tr::to_lane(x.v[l]);
      } else {
        acc[u] = Tr::combine(acc[u], Tr::make(x.v[l], first + l));
      }
    }
  };
  if (k == 0 && t < head) acc[0] = Tr::combine(acc[0], Tr::make(load_stream(in + b + t), t));
  const uint4* vp = reinterpret_cast<const uint4*>(in + body);
  const long long base =
      static_cast<long long>((addr + head * sizeof(T)) / 16 % (kReducePieceAlignBytes / 16));
  const long long v1 = piece_start(nvec, k + 1, pieces, base);
  long long v = piece_start(nvec, k, pieces, base) + t;
  int rounds = 0;
  for (; v + (kUnroll - 1) * kThreads < v1; v += kUnroll * kThreads) {
    Vec16<T> x[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) x[u] = load_vec_stream<T>(vp + v + u * kThreads);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) add(u, x[u], head + (v + u * kThreads) * W);
    if constexpr (kLanes) {
      if (++rounds == kLaneRounds) {
        flush();
        rounds = 0;
      }
    }
  }
  for (; v < v1; v += kThreads) add(0, load_vec_stream<T>(vp + v), head + v * W);
  flush();
#pragma unroll
  for (int u = 1; u < kUnroll; ++u) acc[0] = Tr::combine(acc[0], acc[u]);
  if (k == pieces - 1 && tail + t < e)
    acc[0] = Tr::combine(acc[0], Tr::make(load_stream(in + tail + t), tail + t - b));
  return acc[0];
}

// Reduction of a short segment [b, e) by one warp with scalar loads, 4 in flight per lane; the
// result is in lane 0. Order fixed by the length alone.
template <class Tr>
__device__ __forceinline__ typename Tr::Acc reduce_warp_segment(const typename Tr::In* in,
                                                                long long b, long long e) {
  using T = typename Tr::In;
  using Acc = typename Tr::Acc;
  const int lane = static_cast<int>(threadIdx.x % 32);
  Acc acc = Tr::identity();
  long long i = b + lane;
  for (; i + 96 < e; i += 128) {
    T x[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) x[u] = load_stream(in + i + 32 * u);
#pragma unroll
    for (int u = 0; u < 4; ++u) acc = Tr::combine(acc, Tr::make(x[u], i + 32 * u - b));
  }
  for (; i < e; i += 32) acc = Tr::combine(acc, Tr::make(load_stream(in + i), i - b));
  return warp_reduce<Tr>(acc);
}

}  // namespace red
}  // namespace gpuopt
