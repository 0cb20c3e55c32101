// gpuopt_stencil: read the descriptor, validate extents, pitches, coefficients and pointers, copy
// the coefficients, dispatch.
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "api/dispatch.hpp"
#include "kernels/stencil/stencil.hpp"
#include "runtime/versioned_struct.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace {

constexpr const char* kFn = "gpuopt_stencil";

gpuopt_status_t read_desc(const gpuopt_stencil_desc_t* d, gpuopt_stencil_desc_t* out) {
  // Every field is needed (coeffs is the last one).
  *out = gpuopt_stencil_desc_t{};
  return gpuopt::read_versioned(kFn, "desc", "gpuopt_stencil_desc_t", d,
                                sizeof(gpuopt_stencil_desc_t), out);
}

// The row pitch (and for 3D the slice pitch) of the `which` grid ("in" or "out") against nx, ny.
gpuopt_status_t check_layout(const gpuopt_stencil_desc_t& d, const char* which, std::int64_t pitch,
                             std::int64_t slice) {
  if (pitch < d.nx || pitch < 1)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                "desc->%s_pitch is %" PRId64 "; expected >= max(1, nx) (%" PRId64 ")", which, pitch,
                d.nx);
  if (d.dims != 3) return GPUOPT_SUCCESS;
  const bool ok = d.ny == 0 || (pitch <= INT64_MAX / d.ny && slice >= pitch * d.ny);
  if (!ok || slice < 1)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                "desc->%s_slice_pitch is %" PRId64 "; expected >= %s_pitch * ny (%" PRId64
                " * %" PRId64 ") and >= 1",
                which, slice, which, pitch, d.ny);
  return GPUOPT_SUCCESS;
}

gpuopt_status_t check_extents(const gpuopt_stencil_desc_t& d) {
  if (d.nx < 0 || d.ny < 0 || d.nz < 0)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                "desc->nx, ny, nz are %" PRId64 ", %" PRId64 ", %" PRId64 "; expected >= 0", d.nx,
                d.ny, d.nz);
  if (d.dims == 2 && d.nz > 1)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                "desc->nz is %" PRId64 "; a 2D stencil (dims 2) takes nz = 1 (or 0 for empty)",
                d.nz);
  GPUOPT_TRY(check_layout(d, "in", d.in_pitch, d.in_slice_pitch));
  return check_layout(d, "out", d.out_pitch, d.out_slice_pitch);
}

gpuopt_status_t check_fields(const gpuopt_stencil_desc_t& d) {
  const char* tn = gpuopt_dtype_name(d.dtype);
  if (!tn)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn, "desc->dtype (%d) is not a gpuopt_dtype_t",
                static_cast<int>(d.dtype));
  if (d.dtype != GPUOPT_DTYPE_F32 && d.dtype != GPUOPT_DTYPE_F64)
    return fail(GPUOPT_ERROR_UNSUPPORTED, kFn,
                "desc->dtype is %s; gpuopt_stencil takes f32 and f64", tn);
  if (d.dims != 2 && d.dims != 3)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn, "desc->dims is %d; expected 2 or 3", d.dims);
  if (d.radius < 1 || d.radius > GPUOPT_STENCIL_MAX_RADIUS)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn, "desc->radius is %d; expected 1 to %d",
                d.radius, GPUOPT_STENCIL_MAX_RADIUS);
  if (d.boundary != GPUOPT_BOUNDARY_ZERO && d.boundary != GPUOPT_BOUNDARY_CLAMP)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                "desc->boundary is %d; expected GPUOPT_BOUNDARY_ZERO or GPUOPT_BOUNDARY_CLAMP",
                static_cast<int>(d.boundary));
  if (!d.coeffs)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                "desc->coeffs is NULL; expected a host array of 1 + dims * 2 * radius values");
  return check_extents(d);
}

// Elements spanned from the first to the last grid element (grid non-empty), or -1 on overflow.
std::int64_t span(std::int64_t nx, std::int64_t ny, std::int64_t nz, std::int64_t pitch,
                  std::int64_t slice, std::size_t elem) {
  const std::int64_t limit = INT64_MAX / static_cast<std::int64_t>(elem);
  const std::int64_t z = nz - 1, y = ny - 1;
  if (z > 0 && slice > (limit - nx) / z) return -1;
  const std::int64_t zs = z * slice;
  if (y > 0 && pitch > (limit - nx - zs) / y) return -1;
  return zs + y * pitch + nx;
}

gpuopt_status_t check_pointer(const char* name, const void* p, std::size_t elem) {
  if (!p) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn, "%s is NULL", name);
  if (reinterpret_cast<std::uintptr_t>(p) % elem)
    return fail(GPUOPT_ERROR_MISALIGNED, kFn, "%s (%p) is not aligned to its %zu-byte elements",
                name, p, elem);
  return GPUOPT_SUCCESS;
}

}  // namespace

namespace gpuopt {

gpuopt_status_t stencil_prepare(const gpuopt_stencil_desc_t* desc, const void* in, void* out,
                                StencilProblem* p, std::size_t* in_bytes, std::size_t* out_bytes) {
  gpuopt_stencil_desc_t d{};
  GPUOPT_TRY(read_desc(desc, &d));
  GPUOPT_TRY(check_fields(d));
  const std::int64_t nz = d.dims == 3 || d.nz == 0 ? d.nz : 1;  // 2D: nz 0 is empty
  *in_bytes = *out_bytes = 0;
  p->nx = d.nx;
  p->ny = d.ny;
  p->nz = nz;
  if (d.nx == 0 || d.ny == 0 || nz == 0) return GPUOPT_SUCCESS;  // empty grid: nothing to do
  const std::size_t elem = d.dtype == GPUOPT_DTYPE_F64 ? 8 : 4;
  const std::int64_t in_span = span(d.nx, d.ny, nz, d.in_pitch, d.in_slice_pitch, elem);
  const std::int64_t out_span = span(d.nx, d.ny, nz, d.out_pitch, d.out_slice_pitch, elem);
  if (in_span < 0 || out_span < 0)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                "the grid's extent with its pitches overflows the address space");
  GPUOPT_TRY(check_pointer("in", in, elem));
  GPUOPT_TRY(check_pointer("out", out, elem));
  *in_bytes = static_cast<std::size_t>(in_span) * elem;
  *out_bytes = static_cast<std::size_t>(out_span) * elem;
  const auto ib = reinterpret_cast<std::uintptr_t>(in), ob = reinterpret_cast<std::uintptr_t>(out);
  if (ib < ob + *out_bytes && ob < ib + *in_bytes)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                "in and out overlap; gpuopt_stencil is out-of-place (in %p, %zu bytes; out %p, "
                "%zu bytes)",
                in, *in_bytes, out, *out_bytes);
  p->dtype = d.dtype;
  p->dims = d.dims;
  p->radius = d.radius;
  p->boundary = d.boundary;
  p->in_pitch = d.in_pitch;
  p->out_pitch = d.out_pitch;
  p->in_slice = d.dims == 3 ? d.in_slice_pitch : 0;
  p->out_slice = d.dims == 3 ? d.out_slice_pitch : 0;
  const int ncoef = 1 + d.dims * 2 * d.radius;
  for (int i = 0; i < kStencilMaxCoeffs; ++i) p->coeffs[i] = i < ncoef ? d.coeffs[i] : 0.0;
  p->in = in;
  p->out = out;
  return GPUOPT_SUCCESS;
}

}  // namespace gpuopt

extern "C" GPUOPT_API gpuopt_status_t gpuopt_stencil(gpuopt_context_t ctx, gpuopt_stream_t stream,
                                                     const gpuopt_stencil_desc_t* desc,
                                                     const void* in, void* out) {
  return guarded(kFn, [&] {
    GPUOPT_TRY(gpuopt::check_context(kFn, ctx));
    GPUOPT_TRY(gpuopt::check_stream(kFn, stream, ctx));
    gpuopt::StencilProblem p;
    std::size_t in_bytes = 0, out_bytes = 0;
    GPUOPT_TRY(gpuopt::stencil_prepare(desc, in, out, &p, &in_bytes, &out_bytes));
    if (in_bytes == 0) return GPUOPT_SUCCESS;  // empty grid
    GPUOPT_TRY(gpuopt::make_current(kFn, *ctx));
    gpuopt::CallVerified verified;  // in and out in one allocation: one driver query
    GPUOPT_TRY(gpuopt::check_device_range(kFn, "in", *ctx, in, in_bytes, &verified));
    GPUOPT_TRY(gpuopt::check_device_range(kFn, "out", *ctx, out, out_bytes, &verified));
    int count = 0;
    const gpuopt::Variant<gpuopt::StencilProblem>* table = gpuopt::stencil_variants(&count);
    return gpuopt::run_dispatched(
        kFn, *ctx, *stream, GPUOPT_OP_STENCIL, table, count, p, p.dtype, [&] {
          char s[200];
          std::snprintf(
              s, sizeof s, "%s %dD r=%d %s %" PRId64 "x%" PRId64 "x%" PRId64 " pitch %" PRId64,
              gpuopt_dtype_name(p.dtype), p.dims, p.radius,
              p.boundary == GPUOPT_BOUNDARY_ZERO ? "zero" : "clamp", p.nx, p.ny, p.nz, p.in_pitch);
          return std::string(s);
        });
  });
}
