#include "runtime/driver.hpp"

#include <cuda_runtime_api.h>

#include "runtime/deviceless.hpp"

namespace gpuopt {
namespace {

template <class F>
bool load(const char* name, F& fn) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess || !p) {
    cudaGetLastError();
    return false;
  }
  fn = reinterpret_cast<F>(p);
  return true;
}

DriverApi load_all() {
  DriverApi d;
  bool ok = true;
  ok &= load("cuDeviceGetAttribute", d.cuDeviceGetAttribute);
  ok &= load("cuMemCreate", d.cuMemCreate);
  ok &= load("cuMemRelease", d.cuMemRelease);
  ok &= load("cuMemAddressReserve", d.cuMemAddressReserve);
  ok &= load("cuMemAddressFree", d.cuMemAddressFree);
  ok &= load("cuMemMap", d.cuMemMap);
  ok &= load("cuMemUnmap", d.cuMemUnmap);
  ok &= load("cuMemSetAccess", d.cuMemSetAccess);
  ok &= load("cuMemGetAllocationGranularity", d.cuMemGetAllocationGranularity);
  ok &= load("cuMemGetAllocationPropertiesFromHandle", d.cuMemGetAllocationPropertiesFromHandle);
  ok &= load("cuMemGetAddressRange", d.cuMemGetAddressRange);
  ok &= load("cuGetErrorName", d.cuGetErrorName);
  d.loaded = ok;
  load("cuTensorMapEncodeTiled", d.cuTensorMapEncodeTiled);
  load("cuPointerGetAttribute", d.cuPointerGetAttribute);
  load("cuLaunchKernel", d.cuLaunchKernel);
  load("cuKernelGetFunction", d.cuKernelGetFunction);
  load("cuCtxGetCurrent", d.cuCtxGetCurrent);
  load("cuCtxGetId", d.cuCtxGetId);
  load("cuDeviceGet", d.cuDeviceGet);
  load("cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain);
  load("cuDevicePrimaryCtxRelease", d.cuDevicePrimaryCtxRelease);
  return d;
}

}  // namespace

const DriverApi& driver_api() {
  static const DriverApi none{};
  if (deviceless_active()) return none;  // device-less mode: no driver entry point is looked up
  static const DriverApi api = load_all();
  return api;
}

const char* driver_error_name(CUresult r) {
  const char* name = nullptr;
  const DriverApi& d = driver_api();
  if (d.cuGetErrorName && d.cuGetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
  return "CUDA driver error";
}

bool encode_tiled_map(CUtensorMap* map, CUtensorMapDataType type, int rank, const void* base,
                      const cuuint64_t* dims, const cuuint64_t* byte_strides, const cuuint32_t* box,
                      CUtensorMapSwizzle swizzle) {
  const DriverApi& drv = driver_api();
  if (!drv.cuTensorMapEncodeTiled || rank < 1 || rank > 5) return false;
  const cuuint32_t elem_strides[5] = {1, 1, 1, 1, 1};
  return drv.cuTensorMapEncodeTiled(
             map, type, static_cast<cuuint32_t>(rank), const_cast<void*>(base), dims, byte_strides,
             box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace gpuopt
