// gdn: problem, variant table (PLACEHOLDER: the gdn work replaces this file).
#pragma once
#include "runtime/registry.hpp"

namespace gpuopt {

struct GdnProblem {
  int placeholder = 0;
};

// The variant table of GPUOPT_OP_GDN (empty until the kernels land).
const Variant<GdnProblem>* gdn_variants(int* count);

}  // namespace gpuopt
