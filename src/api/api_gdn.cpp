// gpuopt_gdn_workspace_size, gpuopt_gdn_forward, gpuopt_gdn_backward: read the descriptor,
// validate sizes, pointers and workspace, dispatch (one table, GPUOPT_OP_GDN, for both passes).
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "api/dispatch.hpp"
#include "api/gdn_desc.hpp"
#include "kernels/gdn/gdn.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace {

using gpuopt::GdnShape;

gpuopt_status_t check_floats(const char* fn, gpuopt::Context& ctx, const char* name, const void* p,
                             std::int64_t count) {
  return gpuopt::check_device_operand(fn, name, ctx, p, sizeof(float),
                                      static_cast<std::size_t>(count) * sizeof(float));
}

// Outputs must not overlap the inputs the kernels still read.
gpuopt_status_t check_disjoint(const char* fn, const char* out_name, const void* out,
                               const char* in_name, const void* in, std::int64_t count) {
  const auto bytes = static_cast<std::size_t>(count) * sizeof(float);
  return gpuopt::check_disjoint(fn, out_name, out, bytes, in_name, in, bytes);
}

gpuopt_status_t check_workspace(const char* fn, gpuopt::Context& ctx, gpuopt_gdn_pass_t pass,
                                const GdnShape& s, void* workspace, std::size_t bytes) {
  return gpuopt::check_workspace(
      fn, "gpuopt_gdn_workspace_size", ctx, workspace, bytes,
      gpuopt::gdn_workspace_bytes(pass, s.d.batch, s.d.channels, s.pixels));
}

// What both passes check first: handles, the descriptor, beta and gamma.
gpuopt_status_t begin(const char* fn, gpuopt_context_t ctx, gpuopt_stream_t stream,
                      const gpuopt_gdn_desc_t* desc, const float* beta, const float* gamma,
                      GdnShape* s) {
  GPUOPT_TRY(gpuopt::check_context(fn, ctx));
  GPUOPT_TRY(gpuopt::check_stream(fn, stream, ctx));
  GPUOPT_TRY(gpuopt::gdn_read_desc(fn, desc, s));
  const std::int64_t c = s->d.channels;
  GPUOPT_TRY(gpuopt::make_current(fn, *ctx));
  GPUOPT_TRY(check_floats(fn, *ctx, "beta", beta, c));
  return check_floats(fn, *ctx, "gamma", gamma, c * c);
}

gpuopt::GdnProblem problem_of(gpuopt_gdn_pass_t pass, const GdnShape& s, const float* x,
                              const float* beta, const float* gamma, void* workspace,
                              std::size_t bytes) {
  gpuopt::GdnProblem p;
  p.pass = pass;
  p.n = s.d.batch;
  p.c = s.d.channels;
  p.p = s.pixels;
  p.inverse = s.d.inverse == 1;
  p.tf32 = s.d.compute == GPUOPT_COMPUTE_TF32;
  p.x = x;
  p.beta = beta;
  p.gamma = gamma;
  p.workspace = workspace;
  p.workspace_bytes = bytes;
  return p;
}

gpuopt_status_t dispatch(const char* fn, gpuopt::Context& ctx, gpuopt::Stream& stream,
                         const gpuopt::GdnProblem& p) {
  int count = 0;
  const gpuopt::Variant<gpuopt::GdnProblem>* table = gpuopt::gdn_variants(&count);
  return gpuopt::run_dispatched(
      fn, ctx, stream, GPUOPT_OP_GDN, table, count, p, GPUOPT_DTYPE_F32, [&] {
        char s[200];
        std::snprintf(s, sizeof s, "%s n=%" PRId64 " c=%" PRId64 " hw=%" PRId64 "%s %s",
                      p.pass == GPUOPT_GDN_FORWARD ? "forward" : "backward", p.n, p.c, p.p,
                      p.inverse ? " inverse" : "", p.tf32 ? "tf32" : "f32");
        return std::string(s);
      });
}

}  // namespace

extern "C" GPUOPT_API gpuopt_status_t gpuopt_gdn_workspace_size(gpuopt_context_t ctx,
                                                                const gpuopt_gdn_desc_t* desc,
                                                                gpuopt_gdn_pass_t pass,
                                                                size_t* bytes) {
  constexpr const char* kFn = "gpuopt_gdn_workspace_size";
  return guarded(kFn, [&] {
    GPUOPT_TRY(gpuopt::check_context(kFn, ctx));
    GdnShape s;
    GPUOPT_TRY(gpuopt::gdn_read_desc(kFn, desc, &s));
    if (pass != GPUOPT_GDN_FORWARD && pass != GPUOPT_GDN_BACKWARD)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                  "pass is %d; expected GPUOPT_GDN_FORWARD or GPUOPT_GDN_BACKWARD",
                  static_cast<int>(pass));
    if (!bytes) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn, "bytes is NULL");
    *bytes = gpuopt::gdn_workspace_bytes(pass, s.d.batch, s.d.channels, s.pixels);
    return GPUOPT_SUCCESS;
  });
}

extern "C" GPUOPT_API gpuopt_status_t gpuopt_gdn_forward(
    gpuopt_context_t ctx, gpuopt_stream_t stream, const gpuopt_gdn_desc_t* desc, const float* x,
    const float* beta, const float* gamma, float* y, void* workspace, size_t workspace_bytes) {
  constexpr const char* kFn = "gpuopt_gdn_forward";
  return guarded(kFn, [&] {
    GdnShape s;
    GPUOPT_TRY(begin(kFn, ctx, stream, desc, beta, gamma, &s));
    if (s.total > 0) {  // no pixels: x, y and the workspace are not touched (variants: no-op)
      GPUOPT_TRY(check_floats(kFn, *ctx, "x", x, s.total));
      GPUOPT_TRY(check_floats(kFn, *ctx, "y", y, s.total));
      GPUOPT_TRY(check_disjoint(kFn, "y", y, "x", x, s.total));
      GPUOPT_TRY(check_workspace(kFn, *ctx, GPUOPT_GDN_FORWARD, s, workspace, workspace_bytes));
    }
    gpuopt::GdnProblem p =
        problem_of(GPUOPT_GDN_FORWARD, s, x, beta, gamma, workspace, workspace_bytes);
    p.y = y;
    return dispatch(kFn, *ctx, *stream, p);
  });
}

extern "C" GPUOPT_API gpuopt_status_t gpuopt_gdn_backward(
    gpuopt_context_t ctx, gpuopt_stream_t stream, const gpuopt_gdn_desc_t* desc, const float* x,
    const float* beta, const float* gamma, const float* dy, float* dx, float* dbeta, float* dgamma,
    void* workspace, size_t workspace_bytes) {
  constexpr const char* kFn = "gpuopt_gdn_backward";
  return guarded(kFn, [&] {
    GdnShape s;
    GPUOPT_TRY(begin(kFn, ctx, stream, desc, beta, gamma, &s));
    const std::int64_t c = s.d.channels;
    GPUOPT_TRY(check_floats(kFn, *ctx, "dbeta", dbeta, c));
    GPUOPT_TRY(check_floats(kFn, *ctx, "dgamma", dgamma, c * c));
    GPUOPT_TRY(check_disjoint(kFn, "dbeta", dbeta, "dgamma", dgamma, c));
    if (s.total > 0) {  // no pixels: only the zero dbeta and dgamma are written (by the variant)
      GPUOPT_TRY(check_floats(kFn, *ctx, "x", x, s.total));
      GPUOPT_TRY(check_floats(kFn, *ctx, "dy", dy, s.total));
      GPUOPT_TRY(check_floats(kFn, *ctx, "dx", dx, s.total));
      GPUOPT_TRY(check_disjoint(kFn, "dx", dx, "x", x, s.total));
      GPUOPT_TRY(check_disjoint(kFn, "dx", dx, "dy", dy, s.total));
      GPUOPT_TRY(check_workspace(kFn, *ctx, GPUOPT_GDN_BACKWARD, s, workspace, workspace_bytes));
    }
    gpuopt::GdnProblem p =
        problem_of(GPUOPT_GDN_BACKWARD, s, x, beta, gamma, workspace, workspace_bytes);
    p.dy = dy;
    p.dx = dx;
    p.dbeta = dbeta;
    p.dgamma = dgamma;
    return dispatch(kFn, *ctx, *stream, p);
  });
}
