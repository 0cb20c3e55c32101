// Device helpers shared by every reduce variant: the op traits (identity, element -> accumulator,
// combine, accumulator -> result), bit-exact loads, and the warp and block reductions over the
// accumulators. Every combine is a fixed function of its two arguments, so a fixed tree gives
// fixed bits; MIN/MAX/ARGMIN/ARGMAX combines are also associative and commutative (NaN and
// signed zeros included), so their results do not depend on the tree at all.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "gpuopt.h"

namespace gpuopt {
namespace red {

enum class Op { sum, min, max, argmin, argmax };

template <class To, class From>
__host__ __device__ __forceinline__ To bit_cast(const From& f) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast between types of different sizes");
  To t;
  memcpy(&t, &f, sizeof t);
  return t;
}

// The value an element takes part in the reduction as: 16-bit floats widen to float.
template <class T>
struct Widen {
  using type = T;
};
template <>
struct Widen<__nv_bfloat16> {
  using type = float;
};
template <>
struct Widen<__half> {
  using type = float;
};
template <class T>
__device__ __forceinline__ T widen(T x) {
  return x;
}
__device__ __forceinline__ float widen(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float widen(__half x) { return __half2float(x); }

template <class T>
constexpr bool is_float() {
  return std::is_same<T, float>::value || std::is_same<T, double>::value;
}

template <class V>
__device__ __forceinline__ bool is_nan(V x) {
  if constexpr (is_float<V>()) {
    return x != x;
  } else {
    return false;
  }
}

// Largest / smallest value of V (+-inf for floats).
template <class V>
__host__ __device__ constexpr V highest() {
  if constexpr (is_float<V>()) {
    return std::numeric_limits<V>::infinity();
  } else {
    return std::numeric_limits<V>::max();
  }
}
template <class V>
__host__ __device__ constexpr V lowest() {
  if constexpr (is_float<V>()) {
    return -std::numeric_limits<V>::infinity();
  } else {
    return std::numeric_limits<V>::min();
  }
}

// The canonical quiet NaN a MIN/MAX of a segment holding a NaN returns.
template <class V>
__device__ __forceinline__ V quiet_nan() {
  if constexpr (std::is_same<V, float>::value) {
    return __int_as_float(0x7fffffff);
  } else {
    return __longlong_as_double(0x7fffffffffffffffLL);
  }
}

// min/max with NaN propagation (canonical NaN) and -0 < +0 (IEEE 754-2019 minimum / maximum),
// both associative and commutative. f32 on sm_80+: one min.NaN / max.NaN instruction, which has
// exactly these semantics (checked on an H200: min.NaN(-0, +0) = -0 either way round, max.NaN
// gives +0, a NaN operand gives 0x7fffffff); faster than the compare-and-select form.
template <bool kMax, class V>
__device__ __forceinline__ V extremum_of(V a, V b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same<V, float>::value) {
    float r;
    if constexpr (kMax)
      asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    else
      asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
  }
#endif
  if constexpr (is_float<V>()) {
    using Bits = typename std::conditional<sizeof(V) == 4, unsigned, unsigned long long>::type;
    if (a != a || b != b) return quiet_nan<V>();
    // Equal values differ only in the sign of zero: the minimum keeps a set sign bit, the
    // maximum a clear one.
    if (a == b) {
      const Bits x = bit_cast<Bits>(a), y = bit_cast<Bits>(b);
      return bit_cast<V>(static_cast<Bits>(kMax ? (x & y) : (x | y)));
    }
  }
  if constexpr (kMax)
    return a < b ? b : a;
  else
    return b < a ? b : a;
}
template <class V>
__device__ __forceinline__ V min_of(V a, V b) {
  return extremum_of<false>(a, b);
}
template <class V>
__device__ __forceinline__ V max_of(V a, V b) {
  return extremum_of<true>(a, b);
}

// Accumulator of ARGMIN/ARGMAX: a value and its index; kNoIndex marks the identity.
template <class V>
struct ArgAcc {
  V v;
  long long i;
};
constexpr long long kNoIndex = 9223372036854775807LL;

// Types of SUM: accumulator and result per input type; `lane` is the type of the short per-thread
// partial sums the vector rungs keep before the accumulator (reduce_piece): the accumulator
// itself except for f32, whose partials of a few elements are added in f32 and each widened to
// f64 once (one FADD per element instead of a convert and a DADD).
template <class T>
struct SumTypes;
template <>
struct SumTypes<int> {
  using acc = unsigned long long;  // exact, wraps modulo 2^64 (never reached below 2^32 items)
  using out = long long;
};
template <>
struct SumTypes<long long> {
  using acc = unsigned long long;  // wraps modulo 2^64
  using out = long long;
};
template <>
struct SumTypes<unsigned> {
  using acc = unsigned long long;
  using out = unsigned long long;
};
template <>
struct SumTypes<float> {
  using acc = double;  // f32 sums accumulate in f64, rounded once at the end
  using out = float;
  using lane = float;  // partials of at most 10 elements (reduce_piece: kLaneRounds + kUnroll - 2)
};
template <>
struct SumTypes<double> {
  using acc = double;
  using out = double;
};
template <>
struct SumTypes<__nv_bfloat16> {
  using acc = float;
  using out = float;
};
template <>
struct SumTypes<__half> {
  using acc = float;
  using out = float;
};

template <Op O, class T>
struct Traits;

// The lane type of SumTypes<T>: the accumulator unless SumTypes<T> names another.
template <class T, class = void>
struct SumLane {
  using type = typename SumTypes<T>::acc;
};
template <class T>
struct SumLane<T, std::void_t<typename SumTypes<T>::lane>> {
  using type = typename SumTypes<T>::lane;
};

template <class T>
struct Traits<Op::sum, T> {
  using In = T;
  using Acc = typename SumTypes<T>::acc;
  using Out = typename SumTypes<T>::out;
  using Lane = typename SumLane<T>::type;  // Acc: no lane partials
  static __device__ __forceinline__ Acc identity() { return Acc(0); }
  // Integers convert modulo 2^64 (sign-extending signed inputs).
  static __device__ __forceinline__ Acc make(T x, long long) { return static_cast<Acc>(widen(x)); }
  static __device__ __forceinline__ Acc combine(Acc a, Acc b) { return a + b; }
  static __device__ __forceinline__ Out finish(Acc a) { return static_cast<Out>(a); }
  static __device__ __forceinline__ Lane to_lane(T x) { return static_cast<Lane>(widen(x)); }
};

// MIN (kMax = false) / MAX (kMax = true) of the widened values (min_of / max_of: NaN handling).
template <class T, bool kMax>
struct ExtremeTraits {
  using In = T;
  using Acc = typename Widen<T>::type;
  using Out = Acc;
  using Lane = Acc;
  static __device__ __forceinline__ Acc identity() { return kMax ? lowest<Acc>() : highest<Acc>(); }
  static __device__ __forceinline__ Acc make(T x, long long) { return widen(x); }
  static __device__ __forceinline__ Acc combine(Acc a, Acc b) {
    return kMax ? max_of(a, b) : min_of(a, b);
  }
  static __device__ __forceinline__ Out finish(Acc a) { return a; }
};
template <class T>
struct Traits<Op::min, T> : ExtremeTraits<T, false> {};
template <class T>
struct Traits<Op::max, T> : ExtremeTraits<T, true> {};

// ARGMIN (kMax = false) / ARGMAX (kMax = true): the first NaN wins, then the extreme value, ties
// to the lower index (so the identity, index kNoIndex, loses to any element).
template <class T, bool kMax>
struct ArgTraits {
  using In = T;
  using V = typename Widen<T>::type;
  using Acc = ArgAcc<V>;
  using Out = long long;
  using Lane = Acc;
  static __device__ __forceinline__ Acc identity() {
    return Acc{kMax ? lowest<V>() : highest<V>(), kNoIndex};
  }
  static __device__ __forceinline__ Acc make(T x, long long i) { return Acc{widen(x), i}; }
  static __device__ __forceinline__ Acc combine(Acc a, Acc b) {
    const bool an = is_nan(a.v), bn = is_nan(b.v);
    if (an != bn) return an ? a : b;
    if (!an) {
      if (kMax ? (a.v < b.v) : (b.v < a.v)) return b;
      if (kMax ? (b.v < a.v) : (a.v < b.v)) return a;
    }
    return b.i < a.i ? b : a;
  }
  static __device__ __forceinline__ Out finish(Acc a) { return a.i == kNoIndex ? -1 : a.i; }
};
template <class T>
struct Traits<Op::argmin, T> : ArgTraits<T, false> {};
template <class T>
struct Traits<Op::argmax, T> : ArgTraits<T, true> {};

// ---- loads ----------------------------------------------------------------------------------

// Same-size unsigned integer of T, for bit-exact scalar loads.
template <int kBytes>
struct RawOf;
template <>
struct RawOf<2> {
  using type = unsigned short;
};
template <>
struct RawOf<4> {
  using type = unsigned;
};
template <>
struct RawOf<8> {
  using type = unsigned long long;
};

// One element, read once (evict-first).
template <class T>
__device__ __forceinline__ T load_stream(const T* p) {
  using R = typename RawOf<sizeof(T)>::type;
  return bit_cast<T>(__ldcs(reinterpret_cast<const R*>(p)));
}

// 16 bytes as elements of T.
template <class T>
struct Vec16 {
  static constexpr int kWidth = 16 / static_cast<int>(sizeof(T));
  T v[kWidth];
};
template <class T>
__device__ __forceinline__ Vec16<T> load_vec_stream(const uint4* p) {
  return bit_cast<Vec16<T>>(__ldcs(p));
}

// ---- accumulator transport (shuffles, L2 loads for cross-block partials) ---------------------

template <class A>
__device__ __forceinline__ A shfl_down(A a, int offset) {
  return __shfl_down_sync(0xffffffffu, a, offset);
}
template <class V>
__device__ __forceinline__ ArgAcc<V> shfl_down(ArgAcc<V> a, int offset) {
  return ArgAcc<V>{__shfl_down_sync(0xffffffffu, a.v, offset),
                   __shfl_down_sync(0xffffffffu, a.i, offset)};
}

// Loads of partials written by other blocks: from L2 (never a stale L1 line).
template <class A>
__device__ __forceinline__ A load_cg(const A* p) {
  return __ldcg(p);
}
template <class V>
__device__ __forceinline__ ArgAcc<V> load_cg(const ArgAcc<V>* p) {
  return ArgAcc<V>{__ldcg(&p->v), __ldcg(&p->i)};
}

// ---- warp and block reductions --------------------------------------------------------------

// Tree over the 32 lanes (lane i combines with lane i + offset); the result is in lane 0.
template <class Tr>
__device__ __forceinline__ typename Tr::Acc warp_reduce(typename Tr::Acc a) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) a = Tr::combine(a, shfl_down(a, offset));
  return a;
}

// Warp trees, then warp 0 over the warps' results in warp order; the result is in thread 0.
// smem holds kThreads / 32 accumulators. Starts and ends with no pending shared-memory use by
// other threads only if the caller separates consecutive calls with __syncthreads().
template <class Tr, int kThreads>
__device__ __forceinline__ typename Tr::Acc block_reduce(typename Tr::Acc a,
                                                         typename Tr::Acc* smem) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "block size");
  constexpr int kWarps = kThreads / 32;
  a = warp_reduce<Tr>(a);
  if (kWarps == 1) return a;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) smem[warp] = a;
  __syncthreads();
  if (warp == 0) {
    a = lane < kWarps ? smem[lane] : Tr::identity();
    a = warp_reduce<Tr>(a);
  }
  return a;
}

}  // namespace red
}  // namespace gpuopt
