// Shared can_implement pieces of the gemm variants.
#include <cstdint>

#include "kernels/gemm/gemm.hpp"

namespace gpuopt {

const char* gemm_need_types(const GemmProblem& p, gpuopt_dtype_t ab, gpuopt_dtype_t c,
                            gpuopt_compute_t compute) {
  if (p.a_type != ab || p.c_type != c || p.compute != compute)
    return "does not implement this combination of types and compute mode";
  return nullptr;
}

const char* gemm_need_alignment(const GemmProblem& p, std::size_t bytes) {
  const std::size_t ea = dtype_size(p.a_type), ec = dtype_size(p.c_type);
  const auto addr = reinterpret_cast<std::uintptr_t>(p.A) | reinterpret_cast<std::uintptr_t>(p.B) |
                    reinterpret_cast<std::uintptr_t>(p.C);
  if (addr % bytes) return "needs A, B and C aligned to the vector width";
  const std::uint64_t lds_ab = static_cast<std::uint64_t>(p.lda * ea) |
                               static_cast<std::uint64_t>(p.ldb * ea);
  const std::uint64_t lds_c = static_cast<std::uint64_t>(p.ldc * ec);
  if ((lds_ab | lds_c) % bytes) return "needs leading dimensions that keep columns vector-aligned";
  if (p.batch > 1) {
    const std::uint64_t strides = static_cast<std::uint64_t>(p.stride_a * ea) |
                                  static_cast<std::uint64_t>(p.stride_b * ea) |
                                  static_cast<std::uint64_t>(p.stride_c * ec);
    if (strides % bytes) return "needs batch strides that keep matrices vector-aligned";
  }
  return nullptr;
}

}  // namespace gpuopt
