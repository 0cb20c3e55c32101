// The list of ops: each gpuopt_op_t value's variant table, by name, for listing, forcing
// (gpuopt_context_set_variant, GPUOPT_VARIANT_<OP>) and the log. The one place that knows every
// op; the runtime declares op_table (runtime/registry.hpp) and knows none of them. An explicit
// list rather than tables that register themselves from static initializers: a static library's
// member that nothing references is dropped by the linker, and the order in which other
// translation units' statics run is unspecified. Add an op here (CONTRIBUTING.md, "Add an
// operation").
#include "kernels/axpy/axpy.hpp"
#include "kernels/gdn/gdn.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/reduce/reduce.hpp"
#include "kernels/segmented_sort/segmented_sort.hpp"
#include "kernels/stencil/stencil.hpp"
#include "kernels/transpose/transpose.hpp"
#include "runtime/registry.hpp"

namespace gpuopt {

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

}  // namespace gpuopt
