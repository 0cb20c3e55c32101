// gdn entry points (PLACEHOLDER: the gdn work replaces this file with validation and dispatch).
#include "api/dispatch.hpp"

using gpuopt::fail;
using gpuopt::guarded;

extern "C" GPUOPT_API gpuopt_status_t gpuopt_gdn_workspace_size(gpuopt_context_t ctx, const gpuopt_gdn_desc_t* desc, gpuopt_gdn_pass_t pass, size_t* bytes) {
  constexpr const char* kFn = "gpuopt_gdn_workspace_size";
  return guarded(kFn, [&] {
    GPUOPT_TRY(gpuopt::check_context(kFn, ctx));
    (void)desc;
    (void)pass;
    (void)bytes;
    return fail(GPUOPT_ERROR_UNSUPPORTED, kFn, "not implemented in this build");
  });
}

extern "C" GPUOPT_API gpuopt_status_t gpuopt_gdn_forward(gpuopt_context_t ctx, gpuopt_stream_t stream, const gpuopt_gdn_desc_t* desc, const float* x, const float* beta, const float* gamma, float* y, void* workspace, size_t workspace_bytes) {
  constexpr const char* kFn = "gpuopt_gdn_forward";
  return guarded(kFn, [&] {
    GPUOPT_TRY(gpuopt::check_context(kFn, ctx));
    GPUOPT_TRY(gpuopt::check_stream(kFn, stream, ctx));
    (void)desc;
    (void)x;
    (void)beta;
    (void)gamma;
    (void)y;
    (void)workspace;
    (void)workspace_bytes;
    return fail(GPUOPT_ERROR_UNSUPPORTED, kFn, "not implemented in this build");
  });
}

extern "C" GPUOPT_API gpuopt_status_t gpuopt_gdn_backward(gpuopt_context_t ctx, gpuopt_stream_t stream, const gpuopt_gdn_desc_t* desc, const float* x, const float* beta, const float* gamma, const float* dy, float* dx, float* dbeta, float* dgamma, void* workspace, size_t workspace_bytes) {
  constexpr const char* kFn = "gpuopt_gdn_backward";
  return guarded(kFn, [&] {
    GPUOPT_TRY(gpuopt::check_context(kFn, ctx));
    GPUOPT_TRY(gpuopt::check_stream(kFn, stream, ctx));
    (void)desc;
    (void)x;
    (void)beta;
    (void)gamma;
    (void)dy;
    (void)dx;
    (void)dbeta;
    (void)dgamma;
    (void)workspace;
    (void)workspace_bytes;
    return fail(GPUOPT_ERROR_UNSUPPORTED, kFn, "not implemented in this build");
  });
}
