// gpuopt_reduce: read the descriptor, validate layout and pointers, dispatch.
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "api/dispatch.hpp"
#include "kernels/reduce/reduce.hpp"
#include "runtime/versioned_struct.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace {

constexpr const char* kFn = "gpuopt_reduce";

// Fields a caller must provide: everything up to and including offsets (mode defaults to
// DETERMINISTIC).
gpuopt_status_t read_desc(const gpuopt_reduce_desc_t* d, gpuopt_reduce_desc_t* out) {
  *out = gpuopt_reduce_desc_t{};
  out->mode = GPUOPT_REDUCE_DETERMINISTIC;
  return gpuopt::read_versioned(kFn, "desc", "gpuopt_reduce_desc_t", d,
                                GPUOPT_SIZE_THROUGH(gpuopt_reduce_desc_t, offsets), out);
}

gpuopt_status_t check_fields(const gpuopt_reduce_desc_t& d) {
  if (!gpuopt::reduce_op_name(d.op))
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                "desc->op is %d; expected GPUOPT_REDUCE_SUM, _MIN, _MAX, _ARGMIN or _ARGMAX",
                static_cast<int>(d.op));
  const char* tn = gpuopt_dtype_name(d.in_type);
  if (!tn)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn, "desc->in_type (%d) is not a gpuopt_dtype_t",
                static_cast<int>(d.in_type));
  if (!gpuopt::reduce_in_size(d.in_type))
    return fail(GPUOPT_ERROR_UNSUPPORTED, kFn,
                "desc->in_type is %s; gpuopt_reduce takes i32, i64, u32, f32, f64, bf16 and f16",
                tn);
  if (d.mode != GPUOPT_REDUCE_DETERMINISTIC && d.mode != GPUOPT_REDUCE_FAST)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                "desc->mode is %d; expected GPUOPT_REDUCE_DETERMINISTIC or GPUOPT_REDUCE_FAST",
                static_cast<int>(d.mode));
  if (d.n < 0)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn, "desc->n is %" PRId64 "; expected >= 0", d.n);
  if (d.num_segments < 0)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                "desc->num_segments is %" PRId64 "; expected >= 0", d.num_segments);
  if (!d.offsets && d.num_segments > 1 && d.segment_stride < d.n)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                "desc->segment_stride is %" PRId64
                "; fixed-size segments (desc->offsets NULL, "
                "num_segments %" PRId64 ") need segment_stride >= n (%" PRId64
                "); for variable segments set desc->offsets",
                d.segment_stride, d.num_segments, d.n);
  return GPUOPT_SUCCESS;
}

// Elements of `in` the problem spans (0 when it reads nothing), or -1 on overflow.
std::int64_t input_extent(const gpuopt_reduce_desc_t& d, std::size_t elem) {
  const std::int64_t limit = INT64_MAX / static_cast<std::int64_t>(elem);
  if (d.offsets || d.num_segments <= 1 || d.n == 0) return d.n > limit ? -1 : d.n;
  // (num_segments - 1) * segment_stride + n, without overflow.
  const std::int64_t rows = d.num_segments - 1;
  if (d.segment_stride > 0 && rows > (limit - d.n) / d.segment_stride) return -1;
  return rows * d.segment_stride + d.n;
}

}  // namespace

extern "C" GPUOPT_API gpuopt_status_t gpuopt_reduce(gpuopt_context_t ctx, gpuopt_stream_t stream,
                                                    const gpuopt_reduce_desc_t* desc,
                                                    const void* in, void* out) {
  return guarded(kFn, [&] {
    GPUOPT_TRY(gpuopt::check_context(kFn, ctx));
    GPUOPT_TRY(gpuopt::check_stream(kFn, stream, ctx));
    gpuopt_reduce_desc_t d{};
    GPUOPT_TRY(read_desc(desc, &d));
    GPUOPT_TRY(check_fields(d));
    const std::size_t elem = gpuopt::reduce_in_size(d.in_type);
    const std::size_t out_elem = gpuopt::reduce_out_size(d.op, d.in_type);
    const std::int64_t extent = input_extent(d, elem);
    if (extent < 0)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                  "the input's extent (n = %" PRId64 ", num_segments = %" PRId64
                  ", segment_stride = %" PRId64 ") overflows the address space",
                  d.n, d.num_segments, d.segment_stride);
    const std::int64_t results =
        d.offsets ? d.num_segments : (d.num_segments > 1 ? d.num_segments : 1);
    if (results == 0) return GPUOPT_SUCCESS;  // variable segments, none given
    if (static_cast<std::uint64_t>(results) > SIZE_MAX / 16)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                  "desc->num_segments is %" PRId64 "; the results overflow the address space",
                  d.num_segments);
    GPUOPT_TRY(gpuopt::make_current(kFn, *ctx));
    gpuopt::CallVerified verified;  // operands in one allocation: one driver query
    if (extent > 0)
      GPUOPT_TRY(gpuopt::check_device_operand(kFn, "in", *ctx, in, elem,
                                              static_cast<std::size_t>(extent) * elem, &verified));
    GPUOPT_TRY(gpuopt::check_device_operand(
        kFn, "out", *ctx, out, out_elem, static_cast<std::size_t>(results) * out_elem, &verified));
    if (d.offsets)
      GPUOPT_TRY(gpuopt::check_device_operand(
          kFn, "desc->offsets", *ctx, d.offsets, sizeof(int64_t),
          static_cast<std::size_t>(results + 1) * sizeof(int64_t), &verified));

    gpuopt::ReduceProblem p;
    p.op = d.op;
    p.in_type = d.in_type;
    p.n = d.n;
    p.num_segments = results;
    p.stride = d.offsets || results <= 1 ? 0 : d.segment_stride;
    p.offsets = d.offsets;
    p.mode = d.mode;
    p.in = in;
    p.out = out;
    int count = 0;
    const gpuopt::Variant<gpuopt::ReduceProblem>* table = gpuopt::reduce_variants(&count);
    return gpuopt::run_dispatched(
        kFn, *ctx, *stream, GPUOPT_OP_REDUCE, table, count, p, d.in_type, [&] {
          char s[200];
          std::snprintf(s, sizeof s, "%s %s n=%" PRId64 " segments=%" PRId64 "%s%s",
                        gpuopt::reduce_op_name(d.op), gpuopt_dtype_name(d.in_type), d.n, results,
                        d.offsets ? " offsets" : "", d.mode == GPUOPT_REDUCE_FAST ? " fast" : "");
          return std::string(s);
        });
  });
}

extern "C" GPUOPT_API const char* gpuopt_reduce_op_name(gpuopt_reduce_op_t op) {
  return gpuopt::reduce_op_name(op);
}
