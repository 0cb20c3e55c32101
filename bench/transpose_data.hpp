// Device helpers of the transpose rows: random bits for A, and the exact check of B = A^T done on
// the device (a 1 GiB operand is too large to compare on the host for every row).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace bench {

// Fills `bytes` at ptr with random elements of elem bytes (2, 4, 8) from seed, on s: random
// bits, except that the IEEE exponent field is never all zeros or all ones (no NaN, infinity or
// subnormal, so cuBLAS's arithmetic geam returns the same bits as a copy).
void fill_random_bits(void* ptr, std::size_t bytes, std::size_t elem, std::uint64_t seed,
                      cudaStream_t s);

// Number of elements (elem bytes each: 2, 4 or 8) with B[j + i * ldb] != A[i + j * lda], compared
// bit for bit over the rows x cols of A; the first mismatch's (i, j) in *first_i, *first_j (-1 when
// none). Synchronizes s. count points at device memory of one std::uint64_t plus two int64 (the
// caller's scratch).
std::uint64_t count_transpose_mismatches(const void* a, const void* b, std::size_t elem,
                                         std::int64_t rows, std::int64_t cols, std::int64_t lda,
                                         std::int64_t ldb, void* scratch, cudaStream_t s,
                                         std::int64_t* first_i, std::int64_t* first_j);

}  // namespace bench
