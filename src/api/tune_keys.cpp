#include "api/tune_keys.hpp"

#include <cstdint>

#include "kernels/axpy/axpy.hpp"
#include "kernels/gdn/gdn.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/reduce/reduce.hpp"
#include "kernels/segmented_sort/segmented_sort.hpp"
#include "kernels/stencil/stencil.hpp"
#include "kernels/transpose/transpose.hpp"

namespace gpuopt {
namespace {

std::int16_t num(std::int64_t v) { return static_cast<std::int16_t>(v); }
std::int16_t flag(bool b) { return b ? 1 : 0; }
std::int16_t lg(std::int64_t v) { return tune_log2_class(v); }

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

}  // namespace

TuneKey tune_key(const AxpyProblem& p, gpuopt_dtype_t dtype) {
  return {{num(dtype), lg(p.n), flag(p.incx == 1 && p.incy == 1), flag(p.compressible)}};
}

TuneKey tune_key(const GemmProblem& p, gpuopt_dtype_t) {
  const std::int64_t e = static_cast<std::int64_t>(dtype_size(p.a_type));
  const std::int64_t ec = static_cast<std::int64_t>(dtype_size(p.c_type));
  const bool a16 = aligned16(p.A) && aligned16(p.B) && aligned16(p.C) && (p.lda * e) % 16 == 0 &&
                   (p.ldb * e) % 16 == 0 && (p.ldc * ec) % 16 == 0;
  return {{num(p.a_type), num(p.c_type), num(p.compute), num(p.trans_a), num(p.trans_b), lg(p.m),
           lg(p.n), lg(p.k), lg(p.batch), flag(a16)}};
}

TuneKey tune_key(const ReduceProblem& p, gpuopt_dtype_t) {
  const int layout = p.offsets ? 2 : p.num_segments > 1 ? 1 : 0;
  return {{num(p.op), num(p.in_type), num(p.mode), num(layout), lg(p.n), lg(p.num_segments)}};
}

TuneKey tune_key(const SegmentedSortProblem& p, gpuopt_dtype_t) {
  const bool fixed = p.offsets == nullptr;
  return {{num(p.key_type), num(p.value_bytes), flag(p.descending), flag(!fixed), lg(p.num_items),
           lg(p.num_segments), lg(fixed ? p.segment_size : 0)}};
}

TuneKey tune_key(const StencilProblem& p, gpuopt_dtype_t) {
  return {
      {num(p.dtype), num(p.dims), num(p.radius), num(p.boundary), lg(p.nx), lg(p.ny), lg(p.nz)}};
}

TuneKey tune_key(const TransposeProblem& p, gpuopt_dtype_t) {
  return {{num(p.dtype), lg(p.rows), lg(p.cols), flag(transpose_aligned16(p))}};
}

TuneKey tune_key(const GdnProblem& p, gpuopt_dtype_t) {
  return {{num(p.pass), flag(p.inverse), flag(p.tf32), lg(p.n), lg(p.c), lg(p.p)}};
}

}  // namespace gpuopt
