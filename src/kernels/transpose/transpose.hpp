// transpose: problem, variant table (PLACEHOLDER: the transpose work replaces this file).
#pragma once
#include "runtime/registry.hpp"

namespace gpuopt {

struct TransposeProblem {
  int placeholder = 0;
};

// The variant table of GPUOPT_OP_TRANSPOSE (empty until the kernels land).
const Variant<TransposeProblem>* transpose_variants(int* count);

}  // namespace gpuopt
