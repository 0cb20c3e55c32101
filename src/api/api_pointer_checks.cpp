// Pointer-check policy entry points: gpuopt_context_set_pointer_checks, _pointer_checks and
// gpuopt_context_forget_pointers (what each mode checks: range_cache.hpp, docs/memory.md).
#include <cstdlib>
#include <cstring>

#include "api/getter.hpp"
#include "runtime/context.hpp"
#include "runtime/error.hpp"
#include "runtime/log.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace gpuopt {

// GPUOPT_POINTER_CHECKS=full|cached at context creation; any other value: one log line and the
// default (full).
void apply_env_pointer_checks(Context& ctx) {
  const char* v = secure_getenv("GPUOPT_POINTER_CHECKS");
  if (!v || !*v) return;
  if (std::strcmp(v, "full") == 0)
    ctx.pointer_checks.store(GPUOPT_POINTER_CHECKS_FULL, std::memory_order_relaxed);
  else if (std::strcmp(v, "cached") == 0)
    ctx.pointer_checks.store(GPUOPT_POINTER_CHECKS_CACHED, std::memory_order_relaxed);
  else
    log(LogLevel::info, "GPUOPT_POINTER_CHECKS=%s is neither full nor cached; using full", v);
}

}  // namespace gpuopt

extern "C" {

GPUOPT_API gpuopt_status_t gpuopt_context_set_pointer_checks(gpuopt_context_t ctx,
                                                             gpuopt_pointer_checks_t mode) {
  static const char* fn = "gpuopt_context_set_pointer_checks";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    if (mode != GPUOPT_POINTER_CHECKS_FULL && mode != GPUOPT_POINTER_CHECKS_CACHED)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "mode is %d; expected GPUOPT_POINTER_CHECKS_FULL or GPUOPT_POINTER_CHECKS_CACHED",
                  static_cast<int>(mode));
    ctx->pointer_checks.store(mode, std::memory_order_relaxed);
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_context_pointer_checks(gpuopt_context_t ctx,
                                                         gpuopt_pointer_checks_t* mode) {
  return gpuopt::get_property("gpuopt_context_pointer_checks", gpuopt::check_context, "ctx", ctx,
                              "mode", mode, [](gpuopt_context_t c) {
                                return static_cast<gpuopt_pointer_checks_t>(
                                    c->pointer_checks.load(std::memory_order_relaxed));
                              });
}

GPUOPT_API gpuopt_status_t gpuopt_context_forget_pointers(gpuopt_context_t ctx) {
  static const char* fn = "gpuopt_context_forget_pointers";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    ctx->ranges.erase_foreign();
    return GPUOPT_SUCCESS;
  });
}

}  // extern "C"
