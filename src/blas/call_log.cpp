#include "call_log.hpp"

#include <stdio.h>

#include "config.hpp"

namespace gpuopt_blas {

bool logging() { return config().log; }

void log_call(const char* routine, const std::string& shape, bool gpu, const std::string& why) {
  const Config& c = config();
  if (!c.log) return;
  std::string line =
      std::string("gpuopt_blas: ") + routine + " " + shape + (gpu ? " [gpu] " : " [cpu] ") + why;
  if (!c.problems.empty()) line += " (" + c.problems + ")";
  line += "\n";
  fputs(line.c_str(), stderr);  // one write per line: lines of concurrent calls do not mix
}

}  // namespace gpuopt_blas
