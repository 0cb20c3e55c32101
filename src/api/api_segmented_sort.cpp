// segmented_sort entry points (PLACEHOLDER: the segmented_sort work replaces this file with validation and dispatch).
#include "api/dispatch.hpp"

using gpuopt::fail;
using gpuopt::guarded;

extern "C" GPUOPT_API gpuopt_status_t gpuopt_segmented_sort_workspace_size(gpuopt_context_t ctx, const gpuopt_segmented_sort_desc_t* desc, size_t* bytes) {
  constexpr const char* kFn = "gpuopt_segmented_sort_workspace_size";
  return guarded(kFn, [&] {
    GPUOPT_TRY(gpuopt::check_context(kFn, ctx));
    (void)desc;
    (void)bytes;
    return fail(GPUOPT_ERROR_UNSUPPORTED, kFn, "not implemented in this build");
  });
}

extern "C" GPUOPT_API gpuopt_status_t gpuopt_segmented_sort(gpuopt_context_t ctx, gpuopt_stream_t stream, const gpuopt_segmented_sort_desc_t* desc, const void* keys_in, void* keys_out, const void* values_in, void* values_out, void* workspace, size_t workspace_bytes) {
  constexpr const char* kFn = "gpuopt_segmented_sort";
  return guarded(kFn, [&] {
    GPUOPT_TRY(gpuopt::check_context(kFn, ctx));
    GPUOPT_TRY(gpuopt::check_stream(kFn, stream, ctx));
    (void)desc;
    (void)keys_in;
    (void)keys_out;
    (void)values_in;
    (void)values_out;
    (void)workspace;
    (void)workspace_bytes;
    return fail(GPUOPT_ERROR_UNSUPPORTED, kFn, "not implemented in this build");
  });
}
