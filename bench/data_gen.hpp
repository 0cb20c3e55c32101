// The bench's input values as pure functions of (kind, seed, stream, index), shared by the device
// fill kernels (data.cu) and the host reference (verify.cpp). Every value is computed with exact
// integer-to-float steps, so host and device agree bit for bit and the host never has to copy
// the inputs back. No value is ever zero.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define BENCH_HD __host__ __device__ __forceinline__
#else
#define BENCH_HD inline
#endif

namespace bench {

// What the inputs look like.
enum class DataKind : int {
  kRandom = 0,     // independent per element: sign * [1, 2), incompressible
  kPatterned = 1,  // one value per 4 KiB block (cycling through a few values): compressible, and
                   // y += a * x keeps y constant per block, so y stays compressible while timed
  kExact = 2,      // small multiples of 1/256: y += 0.5 * x is exact in f32 for thousands of steps
};

// Which operand a value belongs to, so x and y differ.
enum : std::uint32_t { kStreamX = 1, kStreamY = 2, kStreamCopy = 3 };

BENCH_HD std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

BENCH_HD std::uint64_t value_hash(std::uint64_t seed, std::uint32_t stream, std::uint64_t index) {
  return splitmix64(splitmix64(seed * 0x100000001B3ull + stream) ^ index);
}

// sign * (1 + k * 2^-23), k < 2^23: exactly representable in float.
BENCH_HD float random_f32(std::uint64_t h) {
  float mag = 1.0f + static_cast<float>(static_cast<std::uint32_t>(h >> 41)) * (1.0f / 8388608.0f);
  return (h & 1u) ? -mag : mag;
}

// sign * (1 + k * 2^-52), k < 2^52: exactly representable in double.
BENCH_HD double random_f64(std::uint64_t h) {
  double mag = 1.0 + static_cast<double>(h >> 12) * (1.0 / 4503599627370496.0);
  return (h & 1u) ? -mag : mag;
}

// Value of element `index` (of an array of T, elem_bytes = sizeof(T)) as a double; for T = float
// the double is exactly the float that gen_value<float> returns.
template <class T>
BENCH_HD T gen_value(DataKind kind, std::uint64_t seed, std::uint32_t stream, std::uint64_t index) {
  if (kind == DataKind::kPatterned) {
    std::uint64_t block = (index * sizeof(T)) >> 12;  // 4 KiB blocks
    std::uint64_t k = (block + seed) & 7u;
    // x: 1.0 .. 1.875, y: 2.0 .. 3.75 in steps of 1/8 and 1/4: exact in any dtype.
    return stream == kStreamX ? static_cast<T>(1.0 + 0.125 * static_cast<double>(k))
                              : static_cast<T>(2.0 + 0.25 * static_cast<double>((k * 3u) & 7u));
  }
  std::uint64_t h = value_hash(seed, stream, index);
  if (kind == DataKind::kExact) {
    // x: (1..255)/256, y: +-(1..1023)/256.
    if (stream == kStreamX) return static_cast<T>(static_cast<double>(1 + (h >> 8) % 255) / 256.0);
    double m = static_cast<double>(1 + (h >> 8) % 1023) / 256.0;
    return static_cast<T>((h & 1u) ? -m : m);
  }
  if (sizeof(T) == 4) return static_cast<T>(random_f32(h));
  return static_cast<T>(random_f64(h));
}

}  // namespace bench
