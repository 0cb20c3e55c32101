#include "runtime/versioned_struct.hpp"

#include <cstring>

#include "runtime/error.hpp"

namespace gpuopt {

gpuopt_status_t read_versioned_bytes(const char* fn, const char* arg, const char* type_name,
                                     const void* in, std::size_t min_size, std::size_t full_size,
                                     void* out) {
  if (!in) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "%s is NULL", arg);
  std::size_t size = 0;
  std::memcpy(&size, in, sizeof size);
  if (size < min_size || size < sizeof size)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "%s->struct_size is %zu; set it to sizeof(%s) (%zu)", arg, size, type_name,
                full_size);
  std::memcpy(out, in, size < full_size ? size : full_size);
  return GPUOPT_SUCCESS;
}

}  // namespace gpuopt
