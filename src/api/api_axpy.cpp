// gpuopt_axpy: validate, describe, dispatch.
#include <cinttypes>
#include <cstdint>
#include <string>

#include "api/dispatch.hpp"
#include "kernels/axpy/axpy.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace {

// Bytes spanned by n elements at stride inc, or 0 when that overflows.
std::size_t span_bytes(std::int64_t n, std::int64_t inc, std::size_t elem) {
  const auto limit = static_cast<std::uint64_t>(INT64_MAX) / elem;
  const auto un = static_cast<std::uint64_t>(n), uinc = static_cast<std::uint64_t>(inc);
  if (un - 1 > (limit - 1) / uinc) return 0;
  return static_cast<std::size_t>(((un - 1) * uinc + 1) * elem);
}

gpuopt_status_t check_vector(const char* fn, gpuopt::Context& ctx, const char* name,
                             const char* inc_name, const void* p, std::int64_t n, std::int64_t inc,
                             std::size_t elem, gpuopt::CallVerified* verified) {
  if (inc < 1)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "%s is %" PRId64 "; expected >= 1", inc_name,
                inc);
  if (!p) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "%s is NULL", name);
  if (reinterpret_cast<std::uintptr_t>(p) % elem)
    return fail(GPUOPT_ERROR_MISALIGNED, fn, "%s (%p) is not aligned to its %zu-byte elements",
                name, p, elem);
  std::size_t bytes = span_bytes(n, inc, elem);
  if (!bytes)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "n = %" PRId64 " with %s = %" PRId64 " overflows the addressable range", n,
                inc_name, inc);
  return gpuopt::check_device_range(fn, name, ctx, p, bytes, verified);
}

}  // namespace

extern "C" GPUOPT_API gpuopt_status_t gpuopt_axpy(gpuopt_context_t ctx, gpuopt_stream_t stream,
                                                  gpuopt_dtype_t dtype, int64_t n, double alpha,
                                                  const void* x, int64_t incx, void* y,
                                                  int64_t incy) {
  static const char* fn = "gpuopt_axpy";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    GPUOPT_TRY(gpuopt::check_stream(fn, stream, ctx));
    if (dtype != GPUOPT_DTYPE_F32 && dtype != GPUOPT_DTYPE_F64) {
      const char* name = gpuopt_dtype_name(dtype);
      return fail(name ? GPUOPT_ERROR_UNSUPPORTED : GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "dtype is %s; axpy supports f32 and f64", name ? name : "not a gpuopt_dtype_t");
    }
    if (n < 0) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "n is %" PRId64 "; expected >= 0", n);
    if (n == 0) return GPUOPT_SUCCESS;
    const std::size_t elem = dtype == GPUOPT_DTYPE_F32 ? 4 : 8;
    GPUOPT_TRY(gpuopt::make_current(fn, *ctx));
    gpuopt::CallVerified verified;  // x and y in one allocation: one driver query
    GPUOPT_TRY(check_vector(fn, *ctx, "x", "incx", x, n, incx, elem, &verified));
    GPUOPT_TRY(check_vector(fn, *ctx, "y", "incy", y, n, incy, elem, &verified));

    gpuopt::AxpyProblem p;
    p.dtype = dtype;
    p.n = n;
    p.alpha = alpha;
    p.x = x;
    p.incx = incx;
    p.y = y;
    p.incy = incy;
    p.compressible = gpuopt::in_compressible_range(*ctx, x, elem) ||
                     gpuopt::in_compressible_range(*ctx, y, elem);
    int count = 0;
    const gpuopt::Variant<gpuopt::AxpyProblem>* table = gpuopt::axpy_variants(&count);
    return gpuopt::run_dispatched(fn, *ctx, *stream, GPUOPT_OP_AXPY, table, count, p, dtype, [&] {
      char d[160];
      std::snprintf(d, sizeof d, "%s n=%" PRId64 " incx=%" PRId64 " incy=%" PRId64 "%s",
                    gpuopt_dtype_name(dtype), n, incx, incy, p.compressible ? " compressible" : "");
      return std::string(d);
    });
  });
}
