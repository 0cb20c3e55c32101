// The CUDA driver entry points gpuopt uses (VMM for compressible memory, address ranges, the
// direct kernel launch), fetched through cudaGetDriverEntryPoint so that libgpuopt never links
// libcuda directly and loads on machines without a driver.
#pragma once
#include <cuda.h>

namespace gpuopt {

struct DriverApi {
  bool loaded = false;
  decltype(&::cuDeviceGetAttribute) cuDeviceGetAttribute = nullptr;
  decltype(&::cuMemCreate) cuMemCreate = nullptr;
  decltype(&::cuMemRelease) cuMemRelease = nullptr;
  decltype(&::cuMemAddressReserve) cuMemAddressReserve = nullptr;
  decltype(&::cuMemAddressFree) cuMemAddressFree = nullptr;
  decltype(&::cuMemMap) cuMemMap = nullptr;
  decltype(&::cuMemUnmap) cuMemUnmap = nullptr;
  decltype(&::cuMemSetAccess) cuMemSetAccess = nullptr;
  decltype(&::cuMemGetAllocationGranularity) cuMemGetAllocationGranularity = nullptr;
  decltype(&::cuMemGetAllocationPropertiesFromHandle) cuMemGetAllocationPropertiesFromHandle =
      nullptr;
  decltype(&::cuMemGetAddressRange) cuMemGetAddressRange = nullptr;
  decltype(&::cuGetErrorName) cuGetErrorName = nullptr;
  // Optional (not part of `loaded`): TMA descriptors for the sm90 GEMM; nullptr if absent.
  decltype(&::cuTensorMapEncodeTiled) cuTensorMapEncodeTiled = nullptr;
  // Optional: one attribute of a pointer (the range cache's buffer-ID check); nullptr if absent.
  decltype(&::cuPointerGetAttribute) cuPointerGetAttribute = nullptr;
  // Optional: the driver's launch, for common/direct_launch.cuh; nullptr if absent.
  decltype(&::cuLaunchKernel) cuLaunchKernel = nullptr;
  // Optional: the context-bound function of a kernel in the current context (direct launch).
  decltype(&::cuKernelGetFunction) cuKernelGetFunction = nullptr;
  decltype(&::cuCtxGetCurrent) cuCtxGetCurrent = nullptr;
  decltype(&::cuCtxGetId) cuCtxGetId = nullptr;
  // Optional: a device's primary context handle (make_current's per-call check); nullptr if absent.
  decltype(&::cuDeviceGet) cuDeviceGet = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) cuDevicePrimaryCtxRetain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease) cuDevicePrimaryCtxRelease = nullptr;
};

// The driver API, loaded once per process (loaded == false when the driver lacks an entry).
const DriverApi& driver_api();

// A tiled TMA tensor map of a rank-`rank` (1-5) array: dims[0] contiguous elements, byte_strides
// of dims 1 .. rank-1, boxes of box[] elements (element strides 1, no interleave, L2 promotion of
// 256 bytes, out-of-range elements read as zero, stores clipped). False when the driver lacks
// cuTensorMapEncodeTiled or rejects the layout (extents, strides, alignment, box).
bool encode_tiled_map(CUtensorMap* map, CUtensorMapDataType type, int rank, const void* base,
                      const cuuint64_t* dims, const cuuint64_t* byte_strides, const cuuint32_t* box,
                      CUtensorMapSwizzle swizzle);

// "CUDA_ERROR_X" for a driver result.
const char* driver_error_name(CUresult r);

}  // namespace gpuopt
