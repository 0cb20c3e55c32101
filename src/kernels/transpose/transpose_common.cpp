// Host-side pieces of the transpose its launchers share: the element size of a dtype and the
// alignment predicate. (The descriptor's validation is the entry point's: api/transpose_desc.cpp.)
#include <cstdint>

#include "kernels/transpose/transpose.hpp"

namespace gpuopt {

std::size_t transpose_elem_size(gpuopt_dtype_t t) {
  const bool supported = t == GPUOPT_DTYPE_F32 || t == GPUOPT_DTYPE_F64 || t == GPUOPT_DTYPE_BF16;
  return supported ? dtype_size(t) : 0;
}

bool transpose_aligned16(const TransposeProblem& p) {
  const std::uint64_t e = transpose_elem_size(p.dtype);
  const auto addr = reinterpret_cast<std::uintptr_t>(p.A) | reinterpret_cast<std::uintptr_t>(p.B);
  return addr % 16 == 0 && (static_cast<std::uint64_t>(p.lda) * e) % 16 == 0 &&
         (static_cast<std::uint64_t>(p.ldb) * e) % 16 == 0;
}

}  // namespace gpuopt
