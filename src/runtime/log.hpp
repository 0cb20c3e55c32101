// Dispatch and runtime logging to stderr, switched by GPUOPT_LOG=info|debug.
#pragma once

namespace gpuopt {

enum class LogLevel { off = 0, info = 1, debug = 2 };

// Level from GPUOPT_LOG, read once per process.
LogLevel log_level();

inline bool log_enabled(LogLevel level) { return log_level() >= level; }

// Writes "[gpuopt info] message\n" to stderr when level is enabled. Lines are written whole.
void log(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace gpuopt
