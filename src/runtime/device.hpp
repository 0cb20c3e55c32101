// What the dispatcher and the runtime need to know of a device, read once per context.
#pragma once
#include <cstddef>

#include "gpuopt.h"

namespace gpuopt {

// The device description variants are chosen against. Unit tests build synthetic ones.
struct DeviceDesc {
  int cc = 0;  // major * 10 + minor
  int sm_count = 0;
  int max_threads_per_sm = 0;
  std::size_t l2_bytes = 0;
  std::size_t smem_optin = 0;
  bool compression = false;
};

// Synthetic description of a device of compute capability cc (for tests and docs).
DeviceDesc synthetic_device(int cc, int sm_count);

// Fills info (all fields; the caller copies what struct_size covers) for CUDA device `device`.
gpuopt_status_t query_device_info(const char* fn, int device, gpuopt_device_info_t* info);

// DeviceDesc of a filled info.
DeviceDesc desc_from_info(const gpuopt_device_info_t& info);

// Copies the prefix of src that dst->struct_size covers (after validating it).
gpuopt_status_t copy_sized_struct(const char* fn, const char* arg, const void* src,
                                  std::size_t full_size, void* dst);

}  // namespace gpuopt
