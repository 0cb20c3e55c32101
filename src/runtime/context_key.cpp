#include "runtime/context_key.hpp"

#include "runtime/driver.hpp"

namespace gpuopt {

unsigned long long current_context_key() {
  const DriverApi& d = driver_api();
  if (!d.cuCtxGetCurrent || !d.cuCtxGetId) return 0;
  CUcontext ctx = nullptr;
  unsigned long long id = 0;
  if (d.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx || d.cuCtxGetId(ctx, &id) != CUDA_SUCCESS)
    return 0;
  const unsigned long long key = id + 1;
  return key == ~0ull ? 0 : key;
}

}  // namespace gpuopt
