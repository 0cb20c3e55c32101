#include "runtime/log.hpp"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace gpuopt {
namespace {

LogLevel level_from_env() {
  const char* v = secure_getenv("GPUOPT_LOG");
  if (!v) return LogLevel::off;
  if (std::strcmp(v, "debug") == 0) return LogLevel::debug;
  if (std::strcmp(v, "info") == 0) return LogLevel::info;
  return LogLevel::off;
}

std::atomic<int>& level_store() {
  static std::atomic<int> level{static_cast<int>(level_from_env())};
  return level;
}

// The sink. Lines are delivered to a callback under `mu`, so calls never overlap (a callback
// need not be thread-safe) and set_log_sink() returns only once no thread is inside the old
// callback. Never destroyed: threads may log during static destruction.
struct Sink {
  std::mutex mu;
  gpuopt_log_fn fn = nullptr;
  void* user = nullptr;
};

Sink& sink() {
  static Sink* s = new Sink;
  return *s;
}

thread_local bool in_callback = false;

}  // namespace

LogLevel log_level() {
  return static_cast<LogLevel>(level_store().load(std::memory_order_relaxed));
}

void set_log_level(LogLevel level) {
  level_store().store(static_cast<int>(level), std::memory_order_relaxed);
}

bool set_log_sink(gpuopt_log_fn fn, void* user) {
  if (in_callback) return false;  // would wait for itself
  Sink& s = sink();
  std::lock_guard<std::mutex> lock(s.mu);
  s.fn = fn;
  s.user = user;
  return true;
}

void log(LogLevel level, const char* fmt, ...) {
  if (!log_enabled(level) || in_callback) return;
  const char* name = level == LogLevel::debug ? "debug" : "info";
  char line[2048];
  const int head = std::snprintf(line, sizeof line, "[gpuopt %s] ", name);
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(line + head, sizeof line - head - 1, fmt, ap);
  va_end(ap);

  Sink& s = sink();
  std::unique_lock<std::mutex> lock(s.mu);
  if (s.fn) {
    in_callback = true;
    try {
      s.fn(static_cast<gpuopt_log_level_t>(level), line + head, s.user);
    } catch (...) {  // a C++ callback that throws: nothing may unwind through gpuopt
    }
    in_callback = false;
    return;
  }
  lock.unlock();
  std::strncat(line, "\n", sizeof line - std::strlen(line) - 1);
  std::fputs(line, stderr);  // one call per line: lines from threads do not interleave
}

}  // namespace gpuopt
