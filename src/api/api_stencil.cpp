// stencil entry points (PLACEHOLDER: the stencil work replaces this file with validation and dispatch).
#include "api/dispatch.hpp"

using gpuopt::fail;
using gpuopt::guarded;

extern "C" GPUOPT_API gpuopt_status_t gpuopt_stencil(gpuopt_context_t ctx, gpuopt_stream_t stream, const gpuopt_stencil_desc_t* desc, const void* in, void* out) {
  constexpr const char* kFn = "gpuopt_stencil";
  return guarded(kFn, [&] {
    GPUOPT_TRY(gpuopt::check_context(kFn, ctx));
    GPUOPT_TRY(gpuopt::check_stream(kFn, stream, ctx));
    (void)desc;
    (void)in;
    (void)out;
    return fail(GPUOPT_ERROR_UNSUPPORTED, kFn, "not implemented in this build");
  });
}
