#include "check.hpp"

#include <vector>

namespace bench {

std::string gpuopt_message() {
  size_t length = 0;
  char small[512];
  if (gpuopt_last_error_message(small, sizeof(small), &length) != GPUOPT_SUCCESS) return "";
  if (length < sizeof(small)) return std::string(small);
  std::vector<char> big(length + 1);
  if (gpuopt_last_error_message(big.data(), big.size(), &length) != GPUOPT_SUCCESS) return "";
  return std::string(big.data());
}

std::string gpuopt_describe(gpuopt_status_t status) {
  return std::string(gpuopt_status_name(status)) + ": " + gpuopt_message();
}

static std::string where(const char* file, int line) {
  std::string f(file);
  size_t slash = f.find_last_of('/');
  if (slash != std::string::npos) f = f.substr(slash + 1);
  return f + ":" + std::to_string(line);
}

void check_gpuopt(gpuopt_status_t status, const char* call, const char* file, int line) {
  if (status == GPUOPT_SUCCESS) return;
  throw BenchError(status,
                   gpuopt_describe(status) + " [" + call + " at " + where(file, line) + "]");
}

void check_cuda(cudaError_t err, const char* call, const char* file, int line) {
  if (err == cudaSuccess) return;
  throw BenchError(GPUOPT_ERROR_CUDA, std::string(cudaGetErrorName(err)) + ": " +
                                          cudaGetErrorString(err) + " [" + call + " at " +
                                          where(file, line) + "]");
}

}  // namespace bench
