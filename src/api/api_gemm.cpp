// gpuopt_gemm: validate the descriptor and operands, resolve the compute mode, dispatch.
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "api/dispatch.hpp"
#include "kernels/gemm/gemm.hpp"
#include "runtime/versioned_struct.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace {

constexpr const char* kFn = "gpuopt_gemm";

// Fields a caller must provide: everything up to and including ldc (batching defaults to one
// product).
gpuopt_status_t read_desc(const gpuopt_gemm_desc_t* d, gpuopt_gemm_desc_t* out) {
  *out = gpuopt_gemm_desc_t{};
  out->batch_count = 1;
  return gpuopt::read_versioned(kFn, "desc", "gpuopt_gemm_desc_t", d,
                                GPUOPT_SIZE_THROUGH(gpuopt_gemm_desc_t, ldc), out);
}

// Resolves DEFAULT and checks the type combination.
gpuopt_status_t resolve_types(const gpuopt_gemm_desc_t& d, gpuopt_compute_t* compute) {
  const char* an = gpuopt_dtype_name(d.a_type);
  const char* cn = gpuopt_dtype_name(d.c_type);
  if (!an) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn, "desc->a_type is not a gpuopt_dtype_t");
  if (!cn) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn, "desc->c_type is not a gpuopt_dtype_t");
  gpuopt_compute_t c = d.compute;
  switch (d.a_type) {
    case GPUOPT_DTYPE_F64:
      if (c == GPUOPT_COMPUTE_DEFAULT) c = GPUOPT_COMPUTE_F64;
      if (d.c_type == GPUOPT_DTYPE_F64 && c == GPUOPT_COMPUTE_F64) break;
      return fail(GPUOPT_ERROR_UNSUPPORTED, kFn,
                  "f64 inputs need c_type f64 and compute F64 (got c_type %s)", cn);
    case GPUOPT_DTYPE_F32:
      if (c == GPUOPT_COMPUTE_DEFAULT) c = GPUOPT_COMPUTE_F32;
      if (d.c_type == GPUOPT_DTYPE_F32 && (c == GPUOPT_COMPUTE_F32 || c == GPUOPT_COMPUTE_TF32))
        break;
      return fail(GPUOPT_ERROR_UNSUPPORTED, kFn,
                  "f32 inputs need c_type f32 and compute F32 or TF32 (got c_type %s)", cn);
    case GPUOPT_DTYPE_BF16:
    case GPUOPT_DTYPE_F16:
      if (c == GPUOPT_COMPUTE_DEFAULT) c = GPUOPT_COMPUTE_F32;
      if ((d.c_type == GPUOPT_DTYPE_F32 || d.c_type == d.a_type) && c == GPUOPT_COMPUTE_F32) break;
      return fail(GPUOPT_ERROR_UNSUPPORTED, kFn,
                  "%s inputs need c_type f32 or %s and compute F32 (f32 accumulation); got c_type "
                  "%s",
                  an, an, cn);
    default:
      return fail(GPUOPT_ERROR_UNSUPPORTED, kFn, "desc->a_type %s is not a gemm input type", an);
  }
  *compute = c;
  return GPUOPT_SUCCESS;
}

// Elements spanned by a rows x cols column-major matrix with leading dimension ld, repeated
// batch times at stride; 0 on overflow.
std::uint64_t span_elems(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t batch,
                         std::int64_t stride) {
  const std::uint64_t lim = static_cast<std::uint64_t>(INT64_MAX) / 16;
  const std::uint64_t r = rows, c = cols, l = ld, b = batch, s = stride;
  if (c > 0 && (c - 1) > (lim - r) / (l ? l : 1)) return 0;
  std::uint64_t one = (c - 1) * l + r;
  if (b > 1 && s > 0 && (b - 1) > (lim - one) / s) return 0;
  return one + (b - 1) * s;
}

gpuopt_status_t check_matrix(gpuopt::Context& ctx, const char* name, const char* ld_name,
                             const void* p, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                             std::int64_t batch, std::int64_t stride, const char* stride_name,
                             std::size_t elem, gpuopt::CallVerified* verified) {
  const std::int64_t min_ld = rows > 1 ? rows : 1;
  if (ld < min_ld)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                "desc->%s is %" PRId64 "; expected >= %" PRId64 " (rows of %s as stored)", ld_name,
                ld, min_ld, name);
  if (batch > 1 && stride < 0)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn, "desc->%s is %" PRId64 "; expected >= 0",
                stride_name, stride);
  if (!p) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn, "%s is NULL", name);
  if (reinterpret_cast<std::uintptr_t>(p) % elem)
    return fail(GPUOPT_ERROR_MISALIGNED, kFn, "%s (%p) is not aligned to its %zu-byte elements",
                name, p, elem);
  std::uint64_t elems = span_elems(rows, cols, ld, batch, stride);
  if (!elems)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn, "%s's extent overflows the address space",
                name);
  return gpuopt::check_device_range(kFn, name, ctx, p, elems * elem, verified);
}

}  // namespace

extern "C" GPUOPT_API gpuopt_status_t gpuopt_gemm(gpuopt_context_t ctx, gpuopt_stream_t stream,
                                                  const gpuopt_gemm_desc_t* desc, const void* A,
                                                  const void* B, void* C) {
  return guarded(kFn, [&] {
    GPUOPT_TRY(gpuopt::check_context(kFn, ctx));
    GPUOPT_TRY(gpuopt::check_stream(kFn, stream, ctx));
    gpuopt_gemm_desc_t d{};
    GPUOPT_TRY(read_desc(desc, &d));
    if (d.trans_a != GPUOPT_TRANS_N && d.trans_a != GPUOPT_TRANS_T)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn, "desc->trans_a is %d; expected N or T",
                  static_cast<int>(d.trans_a));
    if (d.trans_b != GPUOPT_TRANS_N && d.trans_b != GPUOPT_TRANS_T)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn, "desc->trans_b is %d; expected N or T",
                  static_cast<int>(d.trans_b));
    if (d.m < 0 || d.n < 0 || d.k < 0)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                  "desc->m, n, k are %" PRId64 ", %" PRId64 ", %" PRId64 "; expected >= 0", d.m,
                  d.n, d.k);
    if (d.batch_count < 0)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                  "desc->batch_count is %" PRId64 "; expected >= 0", d.batch_count);
    gpuopt_compute_t compute = GPUOPT_COMPUTE_DEFAULT;
    GPUOPT_TRY(resolve_types(d, &compute));
    const std::int64_t batch = d.batch_count < 1 ? 1 : d.batch_count;
    if (d.m == 0 || d.n == 0) return GPUOPT_SUCCESS;
    const std::size_t ea = gpuopt::dtype_size(d.a_type), ec = gpuopt::dtype_size(d.c_type);
    const bool ta = d.trans_a == GPUOPT_TRANS_T, tb = d.trans_b == GPUOPT_TRANS_T;
    GPUOPT_TRY(gpuopt::make_current(kFn, *ctx));
    gpuopt::CallVerified verified;  // operands in one allocation: one driver query
    if (d.k > 0) {
      GPUOPT_TRY(check_matrix(*ctx, "A", "lda", A, ta ? d.k : d.m, ta ? d.m : d.k, d.lda, batch,
                              d.stride_a, "stride_a", ea, &verified));
      GPUOPT_TRY(check_matrix(*ctx, "B", "ldb", B, tb ? d.n : d.k, tb ? d.k : d.n, d.ldb, batch,
                              d.stride_b, "stride_b", ea, &verified));
    }
    GPUOPT_TRY(check_matrix(*ctx, "C", "ldc", C, d.m, d.n, d.ldc, batch, d.stride_c, "stride_c", ec,
                            &verified));
    if (batch > 1 && d.stride_c < d.ldc * d.n)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                  "desc->stride_c is %" PRId64
                  "; batches' C would overlap (need >= ldc * n = "
                  "%" PRId64 ")",
                  d.stride_c, d.ldc * d.n);

    gpuopt::GemmProblem p;
    p.trans_a = d.trans_a;
    p.trans_b = d.trans_b;
    p.m = d.m;
    p.n = d.n;
    p.k = d.k;
    p.alpha = d.alpha;
    p.beta = d.beta;
    p.a_type = d.a_type;
    p.c_type = d.c_type;
    p.compute = compute;
    p.A = A;
    p.B = B;
    p.C = C;
    p.lda = d.lda;
    p.ldb = d.ldb;
    p.ldc = d.ldc;
    p.batch = batch;
    p.stride_a = d.stride_a;
    p.stride_b = d.stride_b;
    p.stride_c = d.stride_c;
    int count = 0;
    const gpuopt::Variant<gpuopt::GemmProblem>* table = gpuopt::gemm_variants(&count);
    return gpuopt::run_dispatched(
        kFn, *ctx, *stream, GPUOPT_OP_GEMM, table, count, p, d.a_type, [&] {
          char s[200];
          std::snprintf(s, sizeof s,
                        "%s->%s %s%s m=%" PRId64 " n=%" PRId64 " k=%" PRId64 " batch=%" PRId64,
                        gpuopt_dtype_name(d.a_type), gpuopt_dtype_name(d.c_type), ta ? "T" : "N",
                        tb ? "T" : "N", d.m, d.n, d.k, batch);
          return std::string(s);
        });
  });
}
