// transpose entry points (PLACEHOLDER: the transpose work replaces this file with validation and dispatch).
#include "api/dispatch.hpp"

using gpuopt::fail;
using gpuopt::guarded;

extern "C" GPUOPT_API gpuopt_status_t gpuopt_transpose(gpuopt_context_t ctx, gpuopt_stream_t stream, const gpuopt_transpose_desc_t* desc, const void* A, void* B) {
  constexpr const char* kFn = "gpuopt_transpose";
  return guarded(kFn, [&] {
    GPUOPT_TRY(gpuopt::check_context(kFn, ctx));
    GPUOPT_TRY(gpuopt::check_stream(kFn, stream, ctx));
    (void)desc;
    (void)A;
    (void)B;
    return fail(GPUOPT_ERROR_UNSUPPORTED, kFn, "not implemented in this build");
  });
}
