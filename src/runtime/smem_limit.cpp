#include "runtime/smem_limit.hpp"

#include <cuda_runtime_api.h>

#include <string>

#include "runtime/context_key.hpp"
#include "runtime/error.hpp"

namespace gpuopt {

namespace {
SmemLimitTable& table() {
  static SmemLimitTable t;
  return t;
}
}  // namespace

gpuopt_status_t raise_smem_limit(const void* kernel, int bytes, const char* fn, const char* what) {
  // (the message is built only where it is used: a recorded raise costs no allocation)
  const auto message = [&](bool with_bytes) {
    std::string m = std::string(what) + ": raising the shared-memory limit";
    return with_bytes ? m + " to " + std::to_string(bytes) + " bytes" : m;
  };
  if (deviceless_active()) return deviceless_stop(fn, message(false).c_str());
  const unsigned long long key = current_context_key();
  SmemLimitTable& t = table();
  if (key != 0 && t.raised(kernel, key, bytes)) return GPUOPT_SUCCESS;
  cudaError_t err = cudaSuccess;
  if (t.raise(kernel, key, bytes, [&](int b) {
        err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, b);
        return err == cudaSuccess;
      }))
    return GPUOPT_SUCCESS;
  return fail_cuda(err, fn, message(true).c_str());
}

}  // namespace gpuopt
