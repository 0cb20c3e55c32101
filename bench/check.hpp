// Error checking for the bench: every CUDA and gpuopt call goes through these, and a failure
// becomes a BenchError carrying the call, the place and the library's own message.
#pragma once
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "gpuopt.h"

namespace bench {

// A failed CUDA or gpuopt call. status is the gpuopt status (GPUOPT_ERROR_CUDA for CUDA calls).
class BenchError : public std::runtime_error {
 public:
  BenchError(gpuopt_status_t status, const std::string& what)
      : std::runtime_error(what), status_(status) {}
  gpuopt_status_t status() const { return status_; }

 private:
  gpuopt_status_t status_;
};

// The calling thread's gpuopt message for its last failed call ("" when none).
std::string gpuopt_message();

// "GPUOPT_ERROR_X: <message>" for a failed gpuopt call.
std::string gpuopt_describe(gpuopt_status_t status);

// Throws BenchError when status is not GPUOPT_SUCCESS.
void check_gpuopt(gpuopt_status_t status, const char* call, const char* file, int line);

// Throws BenchError when err is not cudaSuccess.
void check_cuda(cudaError_t err, const char* call, const char* file, int line);

}  // namespace bench

#define GPUOPT_CHECK(call) ::bench::check_gpuopt((call), #call, __FILE__, __LINE__)
#define CUDA_CHECK(call) ::bench::check_cuda((call), #call, __FILE__, __LINE__)
