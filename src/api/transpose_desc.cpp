// The transpose entry point's host-side checks (unit-tested without a device): descriptor
// validation, operand extents and the overlap check.
#include "api/transpose_desc.hpp"

#include <cinttypes>
#include <cstdint>

#include "runtime/error.hpp"
#include "runtime/versioned_struct.hpp"

namespace gpuopt {
namespace {

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

gpuopt_status_t transpose_read_desc(const char* fn, const gpuopt_transpose_desc_t* d,
                                    TransposeProblem* out) {
  gpuopt_transpose_desc_t full{};  // every field of the first version is required
  GPUOPT_TRY(read_versioned(fn, "desc", "gpuopt_transpose_desc_t", d,
                            GPUOPT_SIZE_THROUGH(gpuopt_transpose_desc_t, ldb), &full));
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

}  // namespace gpuopt
