// Dispatch and runtime logging: the level (GPUOPT_LOG=info|debug, or gpuopt_set_log_level) and
// the sink (stderr, or the callback of gpuopt_set_log_callback), both process-wide.
#pragma once

#include "gpuopt.h"

namespace gpuopt {

enum class LogLevel { off = GPUOPT_LOG_OFF, info = GPUOPT_LOG_INFO, debug = GPUOPT_LOG_DEBUG };

// The current level: GPUOPT_LOG (read once per process) until set_log_level() is called.
LogLevel log_level();
void set_log_level(LogLevel level);

inline bool log_enabled(LogLevel level) { return log_level() >= level; }

// Installs the sink (fn == nullptr: stderr). Returns false, changing nothing, when called from
// inside the current callback. When it returns, no thread is inside the previous callback.
bool set_log_sink(gpuopt_log_fn fn, void* user);

// Sends one line to the sink when level is enabled: the callback gets the bare message; stderr
// gets "[gpuopt info] message\n" in one write, so lines from threads do not interleave. Lines
// logged from inside the callback (gpuopt calls it makes) are dropped.
void log(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace gpuopt
