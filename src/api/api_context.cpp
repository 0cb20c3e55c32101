// Context entry points.
#include <cstdlib>
#include <memory>

#include "runtime/context.hpp"
#include "runtime/deviceless.hpp"
#include "runtime/error.hpp"
#include "runtime/handles.hpp"
#include "runtime/log.hpp"
#include "runtime/stream.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace {

// GPUOPT_VARIANT_<OP> from the environment, applied like gpuopt_context_set_variant.
gpuopt_status_t apply_env_variants(const char* fn, gpuopt::Context& ctx) {
  for (int op = 0; op < gpuopt::kOpCount; ++op) {
    const gpuopt::OpTable* t = gpuopt::op_table(static_cast<gpuopt_op_t>(op));
    const char* v = secure_getenv(t->env_name);
    if (!v || !*v || std::string(v) == "auto") continue;
    std::string why;
    const int choice = gpuopt::find_choice(*t, v, &why);
    if (choice < 0)
      return fail(GPUOPT_ERROR_NOT_FOUND, fn, "environment %s=%s: %s", t->env_name, v, why.c_str());
    why = gpuopt::arch_reason(t->meta(gpuopt::choice_variant(choice)), ctx.desc);
    if (!why.empty())
      return fail(GPUOPT_ERROR_UNSUPPORTED, fn, "environment %s=%s: %s", t->env_name, v,
                  why.c_str());
    ctx.forced[op] = choice;
    gpuopt::log(gpuopt::LogLevel::info, "%s: forced by %s", v, t->env_name);
  }
  return GPUOPT_SUCCESS;
}

}  // namespace

extern "C" {

GPUOPT_API gpuopt_status_t gpuopt_context_create(int device, gpuopt_context_t* out) {
  static const char* fn = "gpuopt_context_create";
  const gpuopt_status_t st = guarded(fn, [&] {
    if (!out) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "ctx (the output) is NULL");
    *out = nullptr;
    GPUOPT_TRY(gpuopt::check_not_capturing(fn));
    auto ctx = std::make_unique<gpuopt::Context>();
    ctx->info.struct_size = sizeof ctx->info;
    GPUOPT_TRY(gpuopt::query_device_info(fn, device, &ctx->info));
    ctx->device = device;
    ctx->desc = gpuopt::desc_from_info(ctx->info);
    for (auto& f : ctx->forced) f = -1;
    for (auto& l : ctx->last) l = -1;
    GPUOPT_TRY(gpuopt::make_current(fn, *ctx));
    if (!gpuopt::deviceless_active()) {
      GPUOPT_TRY_CUDA(cudaFree(nullptr), fn, "initializing the device's primary context");
      ctx->primary = gpuopt::primary_context_of(device);
      ctx->ordered.supported = gpuopt::memory_pools_supported(device);
    }
    GPUOPT_TRY(apply_env_variants(fn, *ctx));
    gpuopt::apply_env_pointer_checks(*ctx);  // GPUOPT_POINTER_CHECKS (api_pointer_checks.cpp)
    // GPUOPT_TUNE_CACHE: the tuning cache file (docs/tuning.md); off when unset.
    if (const char* tc = secure_getenv("GPUOPT_TUNE_CACHE"); tc && *tc)
      ctx->tune.attach(tc, gpuopt::tune_stamp_of(ctx->info));
    gpuopt::log(gpuopt::LogLevel::info, "context on device %d: %s, cc %d.%d, %d SMs", device,
                ctx->info.name, ctx->info.cc_major, ctx->info.cc_minor, ctx->info.sm_count);
    gpuopt::handle_register(ctx.get(), gpuopt::HandleKind::context);
    *out = ctx.release();
    return GPUOPT_SUCCESS;
  });
  // The one log line of a failed creation (no driver, no device, bad GPUOPT_VARIANT_<OP>, ...).
  if (st != GPUOPT_SUCCESS && gpuopt::log_enabled(gpuopt::LogLevel::info))
    gpuopt::log(gpuopt::LogLevel::info, "no context on device %d: %s (%s)", device,
                gpuopt::last_message().c_str(), gpuopt_status_name(st));
  return st;
}

GPUOPT_API gpuopt_status_t gpuopt_context_destroy(gpuopt_context_t ctx) {
  static const char* fn = "gpuopt_context_destroy";
  return guarded(fn, [&] {
    if (!ctx) return GPUOPT_SUCCESS;
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    int live = ctx->live_objects.load();
    if (live > 0)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "ctx still owns %d stream(s), buffer(s) or graph(s); destroy them first", live);
    GPUOPT_TRY(gpuopt::make_current(fn, *ctx));
    gpuopt::handle_unregister(ctx);
    // The pooled stream resources (through the free gate: deferred past open captures).
    gpuopt::reap_deallocations(ctx->ordered, ctx->device, true);
    gpuopt::resources_drain(ctx->pool, ctx->device);
    gpuopt::ordered_close(ctx->ordered);
    delete ctx;
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_context_set_allocator(gpuopt_context_t ctx,
                                                        const gpuopt_allocator_t* allocator) {
  static const char* fn = "gpuopt_context_set_allocator";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    gpuopt::Allocator a;
    GPUOPT_TRY(gpuopt::allocator_from(fn, allocator, &a));
    int live = ctx->live_objects.load();
    if (live > 0)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "ctx still owns %d stream(s), buffer(s) or graph(s); set the allocator before "
                  "creating any, or destroy them first",
                  live);
    GPUOPT_TRY(gpuopt::check_not_capturing(fn));
    GPUOPT_TRY(gpuopt::make_current(fn, *ctx));
    // Pooled workspaces and deferred frees go back to the allocator that made them.
    gpuopt::reap_deallocations(ctx->ordered, ctx->device, true);
    gpuopt::resources_drain(ctx->pool, ctx->device);
    ctx->allocator = a;
    gpuopt::log(
        gpuopt::LogLevel::info, "context on device %d: %s", ctx->device,
        allocator ? "allocates through the caller's allocator" : "allocates with cudaMalloc");
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_context_device_info(gpuopt_context_t ctx,
                                                      gpuopt_device_info_t* info) {
  static const char* fn = "gpuopt_context_device_info";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    return gpuopt::copy_sized_struct(fn, "info", &ctx->info, sizeof ctx->info, info);
  });
}

}  // extern "C"
