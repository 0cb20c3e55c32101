// Entry points of the logging group: the process-wide log level and log callback.
#include "runtime/error.hpp"
#include "runtime/log.hpp"

using gpuopt::fail;
using gpuopt::guarded;

extern "C" {

GPUOPT_API gpuopt_status_t gpuopt_set_log_callback(gpuopt_log_fn fn, void* user) {
  static const char* fn_name = "gpuopt_set_log_callback";
  return guarded(fn_name, [&] {
    if (!gpuopt::set_log_sink(fn, user))
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn_name,
                  "called from inside the log callback; the callback is unchanged");
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_set_log_level(gpuopt_log_level_t level) {
  static const char* fn = "gpuopt_set_log_level";
  return guarded(fn, [&] {
    const int v = static_cast<int>(level);
    if (v < GPUOPT_LOG_OFF || v > GPUOPT_LOG_DEBUG)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "level is %d; expected GPUOPT_LOG_OFF (0), GPUOPT_LOG_INFO (1) or "
                  "GPUOPT_LOG_DEBUG (2)",
                  v);
    gpuopt::set_log_level(static_cast<gpuopt::LogLevel>(v));
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_get_log_level(gpuopt_log_level_t* level) {
  static const char* fn = "gpuopt_get_log_level";
  return guarded(fn, [&] {
    if (!level) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "level is NULL");
    *level = static_cast<gpuopt_log_level_t>(gpuopt::log_level());
    return GPUOPT_SUCCESS;
  });
}

}  // extern "C"
