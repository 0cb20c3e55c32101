// stencil: problem, variant table (PLACEHOLDER: the stencil work replaces this file).
#pragma once
#include "runtime/registry.hpp"

namespace gpuopt {

struct StencilProblem {
  int placeholder = 0;
};

// The variant table of GPUOPT_OP_STENCIL (empty until the kernels land).
const Variant<StencilProblem>* stencil_variants(int* count);

}  // namespace gpuopt
