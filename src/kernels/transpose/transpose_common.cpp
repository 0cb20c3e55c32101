// Host-side pieces of the transpose shared by the entry point, the launchers and the unit tests:
// descriptor validation, operand extents, the overlap check and the alignment predicate.
#include <cinttypes>
#include <cstdint>
#include <cstring>

#include "kernels/transpose/transpose.hpp"
#include "runtime/error.hpp"

namespace gpuopt {
namespace {

// Every field of the first version of the descriptor is required.
constexpr std::size_t kMinDescSize = offsetof(gpuopt_transpose_desc_t, ldb) + sizeof(int64_t);

// Elements from the first to one past the last of `lines` lines of `len` at pitch ld, or -1 when
// that overflows (bytes of elem-sized elements must fit int64).
std::int64_t extent(std::int64_t len, std::int64_t lines, std::int64_t ld, std::size_t elem) {
  if (len == 0 || lines == 0) return 0;
  const std::int64_t limit = INT64_MAX / static_cast<std::int64_t>(elem);
  if (lines - 1 > (limit - len) / ld) return -1;
  return (lines - 1) * ld + len;
}

std::size_t span(std::int64_t len, std::int64_t lines, std::int64_t ld, gpuopt_dtype_t t) {
  const std::int64_t e = extent(len, lines, ld, transpose_elem_size(t));
  return e <= 0 ? 0 : static_cast<std::size_t>(e) * transpose_elem_size(t);
}

}  // namespace

std::size_t transpose_elem_size(gpuopt_dtype_t t) {
  const bool supported = t == GPUOPT_DTYPE_F32 || t == GPUOPT_DTYPE_F64 || t == GPUOPT_DTYPE_BF16;
  return supported ? dtype_size(t) : 0;
}

gpuopt_status_t transpose_read_desc(const char* fn, const gpuopt_transpose_desc_t* d,
                                    TransposeProblem* out) {
  if (!d) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "desc is NULL");
  if (d->struct_size < kMinDescSize)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "desc->struct_size is %zu; set it to sizeof(gpuopt_transpose_desc_t) (%zu)",
                d->struct_size, sizeof(gpuopt_transpose_desc_t));
  gpuopt_transpose_desc_t full{};
  std::memcpy(&full, d, d->struct_size < sizeof full ? d->struct_size : sizeof full);
  const char* tn = gpuopt_dtype_name(full.dtype);
  if (!tn)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "desc->dtype (%d) is not a gpuopt_dtype_t",
                static_cast<int>(full.dtype));
  const std::size_t elem = transpose_elem_size(full.dtype);
  if (!elem)
    return fail(GPUOPT_ERROR_UNSUPPORTED, fn,
                "desc->dtype is %s; gpuopt_transpose takes f32, f64 and bf16", tn);
  if (full.rows < 0)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "desc->rows is %" PRId64 "; expected >= 0",
                full.rows);
  if (full.cols < 0)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "desc->cols is %" PRId64 "; expected >= 0",
                full.cols);
  const std::int64_t min_lda = full.rows > 1 ? full.rows : 1;
  if (full.lda < min_lda)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "desc->lda is %" PRId64 "; expected >= max(1, rows) = %" PRId64, full.lda, min_lda);
  const std::int64_t min_ldb = full.cols > 1 ? full.cols : 1;
  if (full.ldb < min_ldb)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "desc->ldb is %" PRId64 "; expected >= max(1, cols) = %" PRId64, full.ldb, min_ldb);
  if (extent(full.rows, full.cols, full.lda, elem) < 0)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "A's extent (rows %" PRId64 ", cols %" PRId64 ", lda %" PRId64
                ") overflows the address space",
                full.rows, full.cols, full.lda);
  if (extent(full.cols, full.rows, full.ldb, elem) < 0)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "B's extent (cols %" PRId64 ", rows %" PRId64 ", ldb %" PRId64
                ") overflows the address space",
                full.cols, full.rows, full.ldb);
  TransposeProblem p;
  p.dtype = full.dtype;
  p.rows = full.rows;
  p.cols = full.cols;
  p.lda = full.lda;
  p.ldb = full.ldb;
  *out = p;
  return GPUOPT_SUCCESS;
}

std::size_t transpose_a_span(const TransposeProblem& p) {
  return span(p.rows, p.cols, p.lda, p.dtype);
}

std::size_t transpose_b_span(const TransposeProblem& p) {
  return span(p.cols, p.rows, p.ldb, p.dtype);
}

gpuopt_status_t transpose_check_overlap(const char* fn, const TransposeProblem& p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p.A);
  const auto b = reinterpret_cast<std::uintptr_t>(p.B);
  const std::size_t na = transpose_a_span(p), nb = transpose_b_span(p);
  if (na == 0 || nb == 0) return GPUOPT_SUCCESS;
  if (a < b + nb && b < a + na)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "A [%p, +%zu bytes) and B [%p, +%zu bytes) overlap; the transpose is out of place",
                p.A, na, static_cast<const void*>(p.B), nb);
  return GPUOPT_SUCCESS;
}

bool transpose_aligned16(const TransposeProblem& p) {
  const std::uint64_t e = transpose_elem_size(p.dtype);
  const auto addr = reinterpret_cast<std::uintptr_t>(p.A) | reinterpret_cast<std::uintptr_t>(p.B);
  return addr % 16 == 0 && (static_cast<std::uint64_t>(p.lda) * e) % 16 == 0 &&
         (static_cast<std::uint64_t>(p.ldb) * e) % 16 == 0;
}

}  // namespace gpuopt
