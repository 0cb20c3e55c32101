// Grids of the stencil rows (dense, x fastest): random values or a smooth field, as pure
// functions of the coordinates so the host reference needs no copy of the input.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "data_gen.hpp"

namespace bench {

// Smooth field: 1 + (x / 32 + y / 32 + z / 32) mod 8 / 8, piecewise constant in 32-cell steps.
BENCH_HD float stencil_smooth_value(long long x, long long y, long long z) {
  return 1.0f + 0.125f * static_cast<float>((x / 32 + y / 32 + z / 32) % 8);
}

// Element i of the dense grid.
inline float stencil_value(bool smooth, std::uint64_t seed, long long nx, long long ny,
                           long long i) {
  if (smooth) return stencil_smooth_value(i % nx, (i / nx) % ny, i / (nx * ny));
  return gen_value<float>(DataKind::kRandom, seed, kStreamX, static_cast<std::uint64_t>(i));
}

// Fills the nx x ny x nz f32 grid at p on s (throws BenchError on a failed launch).
void fill_stencil_grid(float* p, long long nx, long long ny, long long nz, bool smooth,
                       std::uint64_t seed, cudaStream_t s);

}  // namespace bench
