// Device fills of the stencil rows' grids: random values (data_gen.hpp) or the smooth field,
// written with the grid's pitches.
#include "check.hpp"
#include "data_gen.hpp"
#include "stencil_fill.hpp"

namespace bench {
namespace {

__global__ void stencil_fill_kernel(float* p, long long nx, long long ny, long long nz, bool smooth,
                                    unsigned long long seed) {
  const long long cells = nx * ny * nz;
  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < cells; i += gridDim.x * 256LL) {
    const long long x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
    p[i] = smooth
               ? stencil_smooth_value(x, y, z)
               : gen_value<float>(DataKind::kRandom, seed, kStreamX, static_cast<std::uint64_t>(i));
  }
}

}  // namespace

void fill_stencil_grid(float* p, long long nx, long long ny, long long nz, bool smooth,
                       std::uint64_t seed, cudaStream_t s) {
  stencil_fill_kernel<<<4096, 256, 0, s>>>(p, nx, ny, nz, smooth, seed);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace bench
