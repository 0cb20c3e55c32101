// Random bits and the on-device B = A^T check of the transpose rows (see transpose_data.hpp).
#include "check.hpp"
#include "transpose_data.hpp"

namespace bench {
namespace {

// Random bits per element, with the exponent field moved off all-zeros and all-ones (no NaN,
// infinity or subnormal: every variant, cuBLAS's arithmetic geam included, must return the bits).
template <class W>
__global__ void fill_bits_kernel(W* out, std::int64_t n, std::uint64_t seed, W exp_mask,
                                 W exp_low) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(i + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    W w = static_cast<W>(z ^ (z >> 31));
    if ((w & exp_mask) == 0) w = static_cast<W>(w | exp_low);
    if ((w & exp_mask) == exp_mask) w = static_cast<W>(w & ~exp_low);
    out[i] = w;
  }
}

struct Scratch {
  unsigned long long count;
  long long first;  // smallest linear index i + j * rows of a mismatch
};

// One thread per element of B, output-line order (coalesced on B).
template <class W>
__global__ void check_kernel(const W* a, const W* b, long long rows, long long cols, long long lda,
                             long long ldb, Scratch* s) {
  const long long n = rows * cols;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (long long q = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; q < n;
       q += stride) {
    const long long i = q / cols, j = q % cols;
    if (b[j + i * ldb] != a[i + j * lda]) {
      ++bad;
      atomicMin(&s->first, i + j * rows);
    }
  }
  if (bad) atomicAdd(&s->count, bad);
}

}  // namespace

void fill_random_bits(void* ptr, std::size_t bytes, std::size_t elem, std::uint64_t seed,
                      cudaStream_t s) {
  const auto n = static_cast<std::int64_t>(bytes / elem);
  switch (elem) {
    case 2:
      fill_bits_kernel<std::uint16_t>
          <<<4096, 256, 0, s>>>(static_cast<std::uint16_t*>(ptr), n, seed, 0x7F80, 0x0080);
      break;
    case 8:
      fill_bits_kernel<std::uint64_t><<<4096, 256, 0, s>>>(
          static_cast<std::uint64_t*>(ptr), n, seed, 0x7FF0000000000000ull, 0x0010000000000000ull);
      break;
    default:
      fill_bits_kernel<std::uint32_t><<<4096, 256, 0, s>>>(static_cast<std::uint32_t*>(ptr), n,
                                                           seed, 0x7F800000u, 0x00800000u);
      break;
  }
  CUDA_CHECK(cudaGetLastError());
}

std::uint64_t count_transpose_mismatches(const void* a, const void* b, std::size_t elem,
                                         std::int64_t rows, std::int64_t cols, std::int64_t lda,
                                         std::int64_t ldb, void* scratch, cudaStream_t s,
                                         std::int64_t* first_i, std::int64_t* first_j) {
  auto* sc = static_cast<Scratch*>(scratch);
  const Scratch init{0, 0x7fffffffffffffffll};
  CUDA_CHECK(cudaMemcpyAsync(sc, &init, sizeof init, cudaMemcpyHostToDevice, s));
  switch (elem) {
    case 2:
      check_kernel<<<4096, 256, 0, s>>>(static_cast<const std::uint16_t*>(a),
                                        static_cast<const std::uint16_t*>(b), rows, cols, lda, ldb,
                                        sc);
      break;
    case 8:
      check_kernel<<<4096, 256, 0, s>>>(static_cast<const std::uint64_t*>(a),
                                        static_cast<const std::uint64_t*>(b), rows, cols, lda, ldb,
                                        sc);
      break;
    default:
      check_kernel<<<4096, 256, 0, s>>>(static_cast<const std::uint32_t*>(a),
                                        static_cast<const std::uint32_t*>(b), rows, cols, lda, ldb,
                                        sc);
      break;
  }
  CUDA_CHECK(cudaGetLastError());
  Scratch got{};
  CUDA_CHECK(cudaMemcpyAsync(&got, sc, sizeof got, cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  *first_i = got.count ? got.first % rows : -1;
  *first_j = got.count ? got.first / rows : -1;
  return got.count;
}

}  // namespace bench
