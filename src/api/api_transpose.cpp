// gpuopt_transpose: read and validate the descriptor, check the operands, dispatch.
#include <cinttypes>
#include <cstdint>
#include <string>

#include "api/dispatch.hpp"
#include "api/transpose_desc.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace {

constexpr const char* kFn = "gpuopt_transpose";

}  // namespace

extern "C" GPUOPT_API gpuopt_status_t gpuopt_transpose(gpuopt_context_t ctx, gpuopt_stream_t stream,
                                                       const gpuopt_transpose_desc_t* desc,
                                                       const void* A, void* B) {
  return guarded(kFn, [&] {
    GPUOPT_TRY(gpuopt::check_context(kFn, ctx));
    GPUOPT_TRY(gpuopt::check_stream(kFn, stream, ctx));
    gpuopt::TransposeProblem p;
    GPUOPT_TRY(gpuopt::transpose_read_desc(kFn, desc, &p));
    if (p.rows == 0 || p.cols == 0) return GPUOPT_SUCCESS;  // nothing to move
    p.A = A;
    p.B = B;
    const std::size_t elem = gpuopt::transpose_elem_size(p.dtype);
    GPUOPT_TRY(gpuopt::make_current(kFn, *ctx));
    gpuopt::CallVerified verified;  // A and B in one allocation: one driver query
    GPUOPT_TRY(gpuopt::check_device_operand(kFn, "A", *ctx, A, elem, gpuopt::transpose_a_span(p),
                                            &verified));
    GPUOPT_TRY(gpuopt::check_device_operand(kFn, "B", *ctx, B, elem, gpuopt::transpose_b_span(p),
                                            &verified));
    GPUOPT_TRY(gpuopt::transpose_check_overlap(kFn, p));
    int count = 0;
    const gpuopt::Variant<gpuopt::TransposeProblem>* table = gpuopt::transpose_variants(&count);
    return gpuopt::run_dispatched(
        kFn, *ctx, *stream, GPUOPT_OP_TRANSPOSE, table, count, p, p.dtype, [&] {
          char s[160];
          std::snprintf(s, sizeof s, "%s %" PRId64 "x%" PRId64 " lda=%" PRId64 " ldb=%" PRId64,
                        gpuopt_dtype_name(p.dtype), p.rows, p.cols, p.lda, p.ldb);
          return std::string(s);
        });
  });
}
