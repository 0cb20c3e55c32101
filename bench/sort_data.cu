// Device fill of the segmented-sort bench keys: a hash of (seed, index), so the host can
// regenerate any key for the check.
#include <cuda_runtime_api.h>

#include "check.hpp"
#include "sort_data.hpp"

namespace bench {
namespace {

__global__ void fill_keys_kernel(int* keys, long long n, unsigned long long seed) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    keys[i] = sort_key_at(seed, static_cast<unsigned long long>(i));
}

}  // namespace

void fill_sort_keys(int* keys, std::int64_t n, std::uint64_t seed, cudaStream_t s) {
  fill_keys_kernel<<<4096, 256, 0, s>>>(keys, n, seed);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace bench
