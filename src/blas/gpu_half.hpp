// The boundary between the shim (libgpuopt_blas.so, libblas.so.3: no CUDA, nothing of libgpuopt)
// and its GPU half (libgpuopt_blas_gpu.so: the routing model, the host-tiled pipeline, cuBLAS,
// libgpuopt, the CUDA runtime). The shim dlopens the GPU half at the first call routed to the GPU
// and asks its one export, gpuopt_blas_gpu_table(), for this table. Both sides are built from the
// same sources by the same compiler (C++ types may cross); the sizes and kGpuHalfInterface guard
// against halves of another build.
#pragma once

#include <stddef.h>

#include "gpu.hpp"

namespace gpuopt_blas {

struct Config;

namespace gpu {

/** Raised whenever HostServices, Table or the functions' meaning change. */
constexpr int kGpuHalfInterface = 2;  // 2: Config::ooc_block, ooc_fail_step

/** The exported name of the GPU half's entry point (extern "C", GpuHalfEntry). */
#define GPUOPT_BLAS_GPU_HALF_ENTRY "gpuopt_blas_gpu_table"

/** What the GPU half uses of the shim that loaded it: one CPU BLAS and one set of settings per
 *  process. */
struct HostServices {
  size_t struct_size;  // sizeof(HostServices)
  int interface;       // kGpuHalfInterface
  void* (*cpu_symbol_or_die)(const char* name);
  const Config* config;
};

/** The GPU routines of one element type (gpu.hpp). */
template <class T>
struct Routines {
  decltype(&gpu::gemm<T>) gemm;
  decltype(&gpu::symm<T>) symm;
  decltype(&gpu::syrk<T>) syrk;
  decltype(&gpu::syr2k<T>) syr2k;
  decltype(&gpu::trmm<T>) trmm;
  decltype(&gpu::trsm<T>) trsm;
};

/** What the GPU half offers the shim. */
struct Table {
  size_t struct_size;  // sizeof(Table)
  int interface;       // kGpuHalfInterface
  decltype(&gpu::route_on_gpu) route_on_gpu;
  decltype(&gpu::in_device_memory) in_device_memory;
  decltype(&gpu::forked_child) forked_child;
  Routines<double> d;
  Routines<float> s;
};

/** The table's routines of element type T. */
template <class T>
const Routines<T>& routines(const Table& t);
template <>
inline const Routines<double>& routines<double>(const Table& t) {
  return t.d;
}
template <>
inline const Routines<float>& routines<float>(const Table& t) {
  return t.s;
}

/** gpuopt_blas_gpu_table(): the table, or nullptr when @p host is not of this build's interface.
 */
using GpuHalfEntry = const Table* (*)(const HostServices* host);

}  // namespace gpu
}  // namespace gpuopt_blas
