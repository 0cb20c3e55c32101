// Keys of the segmented-sort bench: a hash of (seed, index), the same on host and device.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

namespace bench {

#if defined(__CUDACC__)
__host__ __device__
#endif
    inline int
    sort_key_at(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<int>(static_cast<std::uint32_t>(z ^ (z >> 31)));
}

// keys[i] = sort_key_at(seed, i) for i < n, enqueued on s.
void fill_sort_keys(int* keys, std::int64_t n, std::uint64_t seed, cudaStream_t s);

}  // namespace bench
