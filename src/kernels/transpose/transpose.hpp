// Out-of-place transpose (B = A^T, column-major): the problem and the variant table (the entry
// point's validation: api/transpose_desc.hpp).
//
// A is rows x cols with leading dimension lda: the kernels see it as `cols` input lines of `rows`
// contiguous elements; B is cols x rows: `rows` output lines of `cols` contiguous elements. Every
// variant moves bits (f32, f64 and bf16 are copied as 32-, 64- and 16-bit words), so results are
// exact.
//
// Dispatch rule (measured on the H200 and, for sm80_vec_tile and sm90_tma_onetile, the H100,
// docs/notes/transpose.md): among the variants that can run the problem, f32 and bf16 prefer
// sm80_vec_tile (cc >= 8.0) where A, B and the pitches hold whole pairs of elements; f32 then
// sm90_tma_onetile, sm90_tma (sm_90a; 16-byte-aligned operands and pitches, cols a multiple of
// 4), sm90_tma_store (the same conditions, f32 only), then smem_swizzled; f64 (and bf16 without
// pair alignment) prefer smem_swizzled, which handles every size and alignment (16-byte vectors
// where pointers and pitches allow, element copies elsewhere). naive and smem_padded are the
// textbook rungs, below all others; cublas (f32/f64) runs only when forced, since geam is
// arithmetic (NaN payloads are not preserved) and the own rungs copy bits.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/registry.hpp"

namespace gpuopt {

struct TransposeProblem {
  gpuopt_dtype_t dtype = GPUOPT_DTYPE_F32;
  std::int64_t rows = 0;  // rows of A: contiguous elements of an input line
  std::int64_t cols = 0;  // columns of A: contiguous elements of an output line
  std::int64_t lda = 1;
  std::int64_t ldb = 1;
  const void* A = nullptr;
  void* B = nullptr;
};

// Bytes per element of a transpose dtype (f32 4, f64 8, bf16 2), 0 for any other.
std::size_t transpose_elem_size(gpuopt_dtype_t t);

// True when A, B and both pitches are multiples of 16 bytes (16-byte vector and TMA access).
bool transpose_aligned16(const TransposeProblem& p);

gpuopt_status_t transpose_launch_naive(const TransposeProblem& p, const ExecEnv& env);
gpuopt_status_t transpose_launch_smem_padded(const TransposeProblem& p, const ExecEnv& env);
gpuopt_status_t transpose_launch_smem_swizzled(const TransposeProblem& p, const ExecEnv& env);
gpuopt_status_t transpose_launch_sm90_tma(const TransposeProblem& p, const ExecEnv& env);
gpuopt_status_t transpose_launch_cublas(const TransposeProblem& p, const ExecEnv& env);
gpuopt_status_t transpose_launch_sm90_tma_store(const TransposeProblem& p, const ExecEnv& env);
gpuopt_status_t transpose_launch_sm80_vec_tile(const TransposeProblem& p, const ExecEnv& env);
gpuopt_status_t transpose_launch_sm90_tma_onetile(const TransposeProblem& p, const ExecEnv& env);

// True when sm80_vec_tile moves p's whole tiles as pairs of elements: A and B aligned to two
// elements, even pitches of at most 2^25 elements (else it copies element by element).
bool transpose_vec_tile_pairs(const TransposeProblem& p);

// Why sm90_tma (and sm90_tma_store) cannot run p on dev (nullptr when it can).
const char* transpose_can_sm90_tma(const TransposeProblem& p, const DeviceDesc& dev);

// The variant table of GPUOPT_OP_TRANSPOSE, in ladder order (textbook rung first, vendor last).
const Variant<TransposeProblem>* transpose_variants(int* count);

}  // namespace gpuopt
