// The shim's side of the lazy boundary (gpu_half.hpp): libgpuopt_blas_gpu.so, and with it
// libgpuopt, cuBLAS and the CUDA runtime, is loaded at the first call routed to the GPU, never at
// load time. It is found by path from the shim's own file (dladdr): beside libgpuopt_blas.so, one
// directory above the libblas.so.3 form (GPUOPT_BLAS_GPU_HALF, set per form by the build).
#pragma once

#include <string>

#include "gpu_half.hpp"

namespace gpuopt_blas {

/** The GPU half's table, loading it on the first call (once per process, thread-safe); nullptr
 *  with @p why when it cannot be loaded (the first such failure prints one line on stderr). */
const gpu::Table* gpu_half(std::string* why);

/** The table when the GPU half is already loaded, else nullptr; never loads it. */
const gpu::Table* gpu_half_if_loaded();

}  // namespace gpuopt_blas
