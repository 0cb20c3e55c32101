#include "runtime/registry.hpp"

#include <cstring>

#include "kernels/axpy/axpy.hpp"
#include "kernels/gdn/gdn.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/reduce/reduce.hpp"
#include "kernels/segmented_sort/segmented_sort.hpp"
#include "kernels/stencil/stencil.hpp"
#include "kernels/transpose/transpose.hpp"
#include "runtime/variant_alias.hpp"

namespace gpuopt {

std::string arch_reason(const VariantMeta& meta, const DeviceDesc& dev) {
  if (meta.exact_cc) {
    if (dev.cc != meta.exact_cc)
      return "arch-specific code for sm_" + std::to_string(meta.exact_cc) +
             "a only; device is cc " + std::to_string(dev.cc / 10) + "." +
             std::to_string(dev.cc % 10);
    return {};
  }
  if (dev.cc < meta.min_cc)
    return "needs compute capability " + std::to_string(meta.min_cc / 10) + "." +
           std::to_string(meta.min_cc % 10) + "; device is " + std::to_string(dev.cc / 10) + "." +
           std::to_string(dev.cc % 10);
  return {};
}

namespace {

template <class Problem, const Variant<Problem>* (*Table)(int*)>
const VariantMeta& meta_of(int index) {
  int n = 0;
  return Table(&n)[index].meta;
}

template <class Problem>
int count_of(const Variant<Problem>* (*table)(int*)) {
  int n = 0;
  table(&n);
  return n;
}

}  // namespace

const OpTable* op_table(gpuopt_op_t op) {
  static const OpTable axpy{"axpy", "GPUOPT_VARIANT_AXPY", count_of(axpy_variants),
                            &meta_of<AxpyProblem, axpy_variants>};
  static const OpTable gemm{"gemm", "GPUOPT_VARIANT_GEMM", count_of(gemm_variants),
                            &meta_of<GemmProblem, gemm_variants>};
  static const OpTable reduce{"reduce", "GPUOPT_VARIANT_REDUCE", count_of(reduce_variants),
                              &meta_of<ReduceProblem, reduce_variants>};
  static const OpTable segmented_sort{"segmented_sort", "GPUOPT_VARIANT_SEGMENTED_SORT",
                                      count_of(segmented_sort_variants),
                                      &meta_of<SegmentedSortProblem, segmented_sort_variants>};
  static const OpTable stencil{"stencil", "GPUOPT_VARIANT_STENCIL", count_of(stencil_variants),
                               &meta_of<StencilProblem, stencil_variants>};
  static const OpTable transpose{"transpose", "GPUOPT_VARIANT_TRANSPOSE",
                                 count_of(transpose_variants),
                                 &meta_of<TransposeProblem, transpose_variants>};
  static const OpTable gdn{"gdn", "GPUOPT_VARIANT_GDN", count_of(gdn_variants),
                           &meta_of<GdnProblem, gdn_variants>};
  switch (op) {
    case GPUOPT_OP_AXPY:
      return &axpy;
    case GPUOPT_OP_GEMM:
      return &gemm;
    case GPUOPT_OP_REDUCE:
      return &reduce;
    case GPUOPT_OP_SEGMENTED_SORT:
      return &segmented_sort;
    case GPUOPT_OP_STENCIL:
      return &stencil;
    case GPUOPT_OP_TRANSPOSE:
      return &transpose;
    case GPUOPT_OP_GDN:
      return &gdn;
  }
  return nullptr;
}

int find_variant(const OpTable& table, const char* name) {
  if (!name) return -1;
  name = current_variant_name(table.op_name, name);  // a retired name finds its rung
  for (int i = 0; i < table.count; ++i)
    if (std::strcmp(table.meta(i).name, name) == 0) return i;
  return -1;
}

}  // namespace gpuopt
