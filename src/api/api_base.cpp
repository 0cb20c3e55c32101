// Entry points that need no context: version, status names, messages, devices, names.
#include <cuda_runtime_api.h>

#include <cstring>

#include "runtime/device.hpp"
#include "runtime/error.hpp"
#include "runtime/no_device.hpp"
#include "runtime/registry.hpp"

using gpuopt::fail;
using gpuopt::guarded;

extern "C" {

GPUOPT_API int gpuopt_version(void) { return GPUOPT_VERSION; }

GPUOPT_API const char* gpuopt_version_string(void) {
#define GPUOPT_STR2(x) #x
#define GPUOPT_STR(x) GPUOPT_STR2(x)
  return GPUOPT_STR(GPUOPT_VERSION_MAJOR) "." GPUOPT_STR(GPUOPT_VERSION_MINOR) "." GPUOPT_STR(
      GPUOPT_VERSION_PATCH);
}

GPUOPT_API const char* gpuopt_status_name(gpuopt_status_t status) {
  switch (status) {
    case GPUOPT_SUCCESS:
      return "GPUOPT_SUCCESS";
    case GPUOPT_ERROR_INVALID_ARGUMENT:
      return "GPUOPT_ERROR_INVALID_ARGUMENT";
    case GPUOPT_ERROR_INVALID_HANDLE:
      return "GPUOPT_ERROR_INVALID_HANDLE";
    case GPUOPT_ERROR_NO_DEVICE:
      return "GPUOPT_ERROR_NO_DEVICE";
    case GPUOPT_ERROR_UNSUPPORTED:
      return "GPUOPT_ERROR_UNSUPPORTED";
    case GPUOPT_ERROR_OUT_OF_MEMORY:
      return "GPUOPT_ERROR_OUT_OF_MEMORY";
    case GPUOPT_ERROR_MISALIGNED:
      return "GPUOPT_ERROR_MISALIGNED";
    case GPUOPT_ERROR_CAPTURE_ILLEGAL:
      return "GPUOPT_ERROR_CAPTURE_ILLEGAL";
    case GPUOPT_ERROR_NOT_FOUND:
      return "GPUOPT_ERROR_NOT_FOUND";
    case GPUOPT_ERROR_CUDA:
      return "GPUOPT_ERROR_CUDA";
    case GPUOPT_ERROR_CUBLAS:
      return "GPUOPT_ERROR_CUBLAS";
    case GPUOPT_ERROR_INTERNAL:
      return "GPUOPT_ERROR_INTERNAL";
    case GPUOPT_ERROR_WRONG_DEVICE:
      return "GPUOPT_ERROR_WRONG_DEVICE";
    case GPUOPT_ERROR_COMM:
      return "GPUOPT_ERROR_COMM";
  }
  return "GPUOPT_STATUS_UNKNOWN";
}

GPUOPT_API gpuopt_status_t gpuopt_last_error_message(char* buf, size_t size, size_t* length) {
  const std::string& m = gpuopt::last_message();
  if (length) *length = m.size();
  if (size == 0) return GPUOPT_SUCCESS;
  if (!buf)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, "gpuopt_last_error_message",
                "buf is NULL but size is %zu; pass size 0 to ask only for the length", size);
  size_t n = m.size() < size - 1 ? m.size() : size - 1;
  std::memcpy(buf, m.data(), n);
  buf[n] = '\0';
  return GPUOPT_SUCCESS;
}

GPUOPT_API const char* gpuopt_op_name(gpuopt_op_t op) {
  const gpuopt::OpTable* t = gpuopt::op_table(op);
  return t ? t->op_name : nullptr;
}

GPUOPT_API const char* gpuopt_dtype_name(gpuopt_dtype_t dtype) {
  switch (dtype) {
    case GPUOPT_DTYPE_F32:
      return "f32";
    case GPUOPT_DTYPE_F64:
      return "f64";
    case GPUOPT_DTYPE_F16:
      return "f16";
    case GPUOPT_DTYPE_BF16:
      return "bf16";
    case GPUOPT_DTYPE_I32:
      return "i32";
    case GPUOPT_DTYPE_I64:
      return "i64";
    case GPUOPT_DTYPE_U32:
      return "u32";
    case GPUOPT_DTYPE_U64:
      return "u64";
  }
  return nullptr;
}

GPUOPT_API gpuopt_status_t gpuopt_device_count(int* count) {
  static const char* fn = "gpuopt_device_count";
  return guarded(fn, [&] {
    if (!count) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "count is NULL");
    *count = 0;
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess || n == 0) return gpuopt::fail_no_device(fn, err);
    *count = n;
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_device_info(int device, gpuopt_device_info_t* info) {
  static const char* fn = "gpuopt_device_info";
  return guarded(fn, [&] {
    if (!info) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "info is NULL");
    return gpuopt::query_device_info(fn, device, info);
  });
}

}  // extern "C"
