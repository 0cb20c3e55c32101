#include "runtime/log.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gpuopt {

LogLevel log_level() {
  static const LogLevel level = [] {
    const char* v = std::getenv("GPUOPT_LOG");
    if (!v) return LogLevel::off;
    if (std::strcmp(v, "debug") == 0) return LogLevel::debug;
    if (std::strcmp(v, "info") == 0) return LogLevel::info;
    return LogLevel::off;
  }();
  return level;
}

void log(LogLevel level, const char* fmt, ...) {
  if (!log_enabled(level)) return;
  char line[2048];
  int head =
      std::snprintf(line, sizeof line, "[gpuopt %s] ", level == LogLevel::debug ? "debug" : "info");
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(line + head, sizeof line - head - 1, fmt, ap);
  va_end(ap);
  std::strncat(line, "\n", sizeof line - std::strlen(line) - 1);
  std::fputs(line, stderr);  // one call per line: lines from threads do not interleave
}

}  // namespace gpuopt
