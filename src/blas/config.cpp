#include "config.hpp"

#include <stdlib.h>
#include <string.h>

namespace gpuopt_blas {

bool parse_device_list(const char* text, std::vector<int>* out) {
  std::vector<int> list;
  const char* p = text;
  while (*p) {
    if (*p < '0' || *p > '9') return false;
    long v = 0;
    while (*p >= '0' && *p <= '9') {
      v = v * 10 + (*p - '0');
      if (v > 4096) return false;
      ++p;
    }
    for (int d : list)
      if (d == v) return false;
    list.push_back(static_cast<int>(v));
    if (*p == ',') {
      ++p;
      if (!*p) return false;
    } else if (*p) {
      return false;
    }
  }
  *out = list;
  return true;
}

bool parse_streams(const char* text, int* out) {
  if (text[0] < '1' || text[0] > '0' + kMaxStreams || text[1]) return false;
  *out = text[0] - '0';
  return true;
}

bool parse_positive(const char* text, long max, long* out) {
  long v = 0;
  const char* p = text;
  for (; *p >= '0' && *p <= '9'; ++p) {
    v = v * 10 + (*p - '0');
    if (v > max) return false;
  }
  if (p == text || *p || v < 1) return false;
  *out = v;
  return true;
}

namespace {

Config read() {
  Config c;
  if (const char* v = secure_getenv("GPUOPT_BLAS_CPU_LIB")) c.cpu_lib = v;
  if (const char* v = secure_getenv("GPUOPT_BLAS_FORCE")) {
    if (!strcmp(v, "gpu"))
      c.force = Force::kGpu;
    else if (!strcmp(v, "cpu"))
      c.force = Force::kCpu;
    else if (*v)
      c.problems += std::string("GPUOPT_BLAS_FORCE=") + v + " ignored (gpu or cpu); ";
  }
  if (const char* v = secure_getenv("GPUOPT_BLAS_DEVICES")) {
    c.devices_set = true;
    if (!parse_device_list(v, &c.devices)) {
      c.devices_set = false;
      c.problems += std::string("GPUOPT_BLAS_DEVICES=") + v + " ignored (e.g. 0,1); ";
    }
  }
  if (const char* v = secure_getenv("GPUOPT_BLAS_STREAMS")) {
    if (!parse_streams(v, &c.streams))
      c.problems += std::string("GPUOPT_BLAS_STREAMS=") + v + " ignored (1 to " +
                    std::to_string(kMaxStreams) + "); ";
  }
  // Testing only: the blocked out-of-core path (src/blas/gpu_blocked.hpp) forced, and a fault.
  struct {
    const char* name;
    long max;
    long* out;
  } const positives[] = {{"GPUOPT_BLAS_OOC_BLOCK", kMaxOocBlock, &c.ooc_block},
                         {"GPUOPT_BLAS_OOC_FAIL_STEP", kMaxOocFailStep, &c.ooc_fail_step}};
  for (const auto& s : positives)
    if (const char* v = secure_getenv(s.name))
      if (!parse_positive(v, s.max, s.out))
        c.problems +=
            std::string(s.name) + "=" + v + " ignored (1 to " + std::to_string(s.max) + "); ";
  if (const char* v = secure_getenv("GPUOPT_BLAS_LOG")) c.log = *v && strcmp(v, "0") != 0;
  return c;
}

}  // namespace

const Config& config() {
  static const Config c = read();
  return c;
}

}  // namespace gpuopt_blas
