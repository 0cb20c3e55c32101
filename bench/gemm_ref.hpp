// Checking a GEMM result against its f64 reference (cuBLAS f64 on the same inputs, upcast on the
// device where they are not f64): the per-element accumulation, shared by the device reduction
// (gemm_device.cu) and the host, the input values, and the host-side verdict.
//
// The verdict: every output finite (C is poisoned with NaN before the call, so an unwritten
// element fails), and the relative Frobenius error ||out - ref|| / ||ref|| within the config's
// tolerance (f64 1e-12, f32 1e-5, tf32 5e-3, bf16 2e-2: issue 3 and gpuopt.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "data_gen.hpp"

namespace bench {

// Sums over a part of the output (one device block, or a host range). Plain data: it lives in
// device shared memory, so no constructors; start from gemm_part_init().
struct GemmCheckPart {
  double err2;                    // sum of (out - ref)^2 over finite outputs
  double ref2;                    // sum of ref^2 over the same elements
  double max_abs;                 // largest |out - ref| over finite outputs
  std::uint64_t max_index;        // its flat index (lowest on ties)
  std::uint64_t nonfinite;        // outputs that are NaN or infinite
  std::uint64_t first_nonfinite;  // lowest flat index of those (UINT64_MAX when none)
  std::uint64_t ref_nonfinite;    // reference elements that are not finite (a bench failure)
};

BENCH_HD void gemm_part_init(GemmCheckPart* p) {
  p->err2 = 0.0;
  p->ref2 = 0.0;
  p->max_abs = 0.0;
  p->max_index = 0;
  p->nonfinite = 0;
  p->first_nonfinite = ~std::uint64_t{0};
  p->ref_nonfinite = 0;
}

// True for finite x (false for NaN and infinities); plain comparisons, same on host and device.
BENCH_HD bool gemm_finite(double x) {
  return x >= -1.7976931348623157e308 && x <= 1.7976931348623157e308;
}

// Adds element i (flat index) with output got and reference want.
BENCH_HD void gemm_part_add(GemmCheckPart* p, double got, double want, std::uint64_t i) {
  if (!gemm_finite(want)) {
    ++p->ref_nonfinite;
    return;
  }
  if (!gemm_finite(got)) {
    if (i < p->first_nonfinite) p->first_nonfinite = i;
    ++p->nonfinite;
    return;
  }
  const double d = got - want;
  p->err2 += d * d;
  p->ref2 += want * want;
  const double a = d < 0 ? -d : d;
  if (a > p->max_abs || (a == p->max_abs && i < p->max_index)) {
    p->max_abs = a;
    p->max_index = i;
  }
}

// a += b.
BENCH_HD void gemm_part_merge(GemmCheckPart* a, const GemmCheckPart& b) {
  a->err2 += b.err2;
  a->ref2 += b.ref2;
  if (b.max_abs > a->max_abs || (b.max_abs == a->max_abs && b.max_index < a->max_index)) {
    a->max_abs = b.max_abs;
    a->max_index = b.max_index;
  }
  a->nonfinite += b.nonfinite;
  if (b.first_nonfinite < a->first_nonfinite) a->first_nonfinite = b.first_nonfinite;
  a->ref_nonfinite += b.ref_nonfinite;
}

// GEMM input values: sign * [1, 2) from the index hash of data_gen.hpp, never zero. f64 and f32
// use the full mantissa; bf16 values have 7 mantissa bits, so they are exact in bf16 (and the
// f64 reference on the upcast inputs is the exact product of what the kernel reads).
BENCH_HD double gemm_value_f64(std::uint64_t seed, std::uint32_t stream, std::uint64_t i) {
  return random_f64(value_hash(seed, stream, i));
}
BENCH_HD float gemm_value_f32(std::uint64_t seed, std::uint32_t stream, std::uint64_t i) {
  return random_f32(value_hash(seed, stream, i));
}
BENCH_HD float gemm_value_bf16(std::uint64_t seed, std::uint32_t stream, std::uint64_t i) {
  const std::uint64_t h = value_hash(seed, stream, i);
  const float mag =
      1.0f + static_cast<float>(static_cast<std::uint32_t>(h >> 57)) * (1.0f / 128.0f);
  return (h & 1u) ? -mag : mag;
}

// Host side.

// The tolerance of a config ("f64", "f32", "tf32", "bf16", "bf16_bf16"); throws
// std::invalid_argument for others.
double gemm_tolerance(const std::string& config);

// Where flat index i of a column-major m x n x batch output lies.
struct GemmIndex {
  std::int64_t row = 0, col = 0, batch = 0;
};
GemmIndex gemm_unflatten(std::uint64_t i, std::int64_t m, std::int64_t n);

struct GemmVerdict {
  double rel_err = 0.0;  // NaN when an output is not finite
  double max_abs = 0.0;
  std::uint64_t nonfinite = 0;
  bool reference_ok = true;  // false: the reference itself was not finite (bench failure)
  bool correct = false;
  std::string mismatch;  // "" when correct
};

// Merges the parts in order and judges them against tol. m, n: the output's shape (for the
// positions named in mismatch); elements: m * n * batch.
GemmVerdict gemm_judge(const std::vector<GemmCheckPart>& parts, double tol, std::int64_t m,
                       std::int64_t n, std::uint64_t elements);

}  // namespace bench
