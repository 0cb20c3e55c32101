#include "runtime/device.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "runtime/deviceless.hpp"
#include "runtime/driver.hpp"
#include "runtime/error.hpp"
#include "runtime/no_device.hpp"

namespace gpuopt {

DeviceDesc synthetic_device(int cc, int sm_count) {
  DeviceDesc d;
  d.cc = cc;
  d.sm_count = sm_count;
  d.max_threads_per_sm = cc >= 80 && cc != 86 && cc != 89 ? 2048 : 1536;
  d.l2_bytes = cc >= 90 ? (50u << 20) : (cc >= 80 ? (40u << 20) : (4u << 20));
  d.smem_optin = cc >= 90 ? 232448 : (cc == 80 ? 166912 : 101376);
  d.compression = cc >= 80;
  return d;
}

DeviceDesc desc_from_info(const gpuopt_device_info_t& info) {
  DeviceDesc d;
  d.cc = info.cc_major * 10 + info.cc_minor;
  d.sm_count = info.sm_count;
  d.max_threads_per_sm = info.max_threads_per_sm;
  d.l2_bytes = info.l2_cache_bytes;
  d.smem_optin = info.shared_memory_per_block_optin;
  d.compression = info.supports_compression != 0;
  return d;
}

gpuopt_status_t query_device_info(const char* fn, int device, gpuopt_device_info_t* info) {
  if (device < 0)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "device is %d; expected a CUDA ordinal >= 0",
                device);
  if (deviceless_active()) return deviceless_device_info(fn, device, info);
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) return fail_no_device(fn, err);
  if (device < 0 || device >= count)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "device is %d; expected 0 <= device < %d",
                device, count);
  cudaDeviceProp prop;
  GPUOPT_TRY_CUDA(cudaGetDeviceProperties(&prop, device), fn, "cudaGetDeviceProperties");
  gpuopt_device_info_t out;
  std::memset(&out, 0, sizeof out);
  out.struct_size = sizeof out;
  out.device = device;
  std::snprintf(out.name, sizeof out.name, "%s", prop.name);
  out.cc_major = prop.major;
  out.cc_minor = prop.minor;
  out.sm_count = prop.multiProcessorCount;
  out.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  out.total_memory = prop.totalGlobalMem;
  out.l2_cache_bytes = static_cast<size_t>(prop.l2CacheSize);
  out.shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
  out.shared_memory_per_sm = prop.sharedMemPerMultiprocessor;
  out.supports_clusters = prop.major >= 9;
  out.supports_tma = prop.major >= 9;
  out.supports_mapped_memory = prop.canMapHostMemory;
  int v = 0;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, device) == cudaSuccess)
    out.memory_clock_khz = v;
  out.memory_bus_width_bits = prop.memoryBusWidth;
  out.theoretical_bandwidth_gbs =
      2.0 * out.memory_clock_khz * 1e3 * (out.memory_bus_width_bits / 8.0) / 1e9;
  const DriverApi& drv = driver_api();
  if (drv.loaded) {
    int comp = 0;
    if (drv.cuDeviceGetAttribute(&comp, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED,
                                 device) == CUDA_SUCCESS)
      out.supports_compression = comp != 0;
  }
  cudaDriverGetVersion(&out.driver_version);
  out.runtime_version = CUDART_VERSION;
  cudaGetLastError();
  return copy_sized_struct(fn, "info", &out, sizeof out, info);
}

gpuopt_status_t copy_sized_struct(const char* fn, const char* arg, const void* src,
                                  std::size_t full_size, void* dst) {
  if (!dst) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "%s is NULL", arg);
  std::size_t want = *static_cast<const std::size_t*>(dst);
  if (want < sizeof(std::size_t))
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "%s->struct_size is %zu; set it to sizeof the struct (%zu)", arg, want, full_size);
  std::size_t n = std::min(want, full_size);
  // struct_size itself keeps the caller's value; copy the rest of the covered prefix.
  std::memcpy(static_cast<char*>(dst) + sizeof(std::size_t),
              static_cast<const char*>(src) + sizeof(std::size_t), n - sizeof(std::size_t));
  return GPUOPT_SUCCESS;
}

}  // namespace gpuopt
