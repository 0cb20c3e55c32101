// Host-side bridge from a ReduceProblem to the templates: calls f(OpTag, TypeTag) with the op and
// the element type as compile-time tags, and builds the segment arguments every vector kernel
// takes.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "kernels/reduce/reduce.hpp"
#include "kernels/reduce/reduce_ops.cuh"
#include "runtime/error.hpp"

namespace gpuopt {
namespace red {

template <Op O>
using OpTag = std::integral_constant<Op, O>;
template <class T>
struct TypeTag {
  using type = T;
};

template <class F>
gpuopt_status_t with_type(gpuopt_dtype_t t, const char* fn, F&& f) {
  switch (t) {
    case GPUOPT_DTYPE_I32:
      return f(TypeTag<int>{});
    case GPUOPT_DTYPE_I64:
      return f(TypeTag<long long>{});
    case GPUOPT_DTYPE_U32:
      return f(TypeTag<unsigned>{});
    case GPUOPT_DTYPE_F32:
      return f(TypeTag<float>{});
    case GPUOPT_DTYPE_F64:
      return f(TypeTag<double>{});
    case GPUOPT_DTYPE_BF16:
      return f(TypeTag<__nv_bfloat16>{});
    case GPUOPT_DTYPE_F16:
      return f(TypeTag<__half>{});
    case GPUOPT_DTYPE_U64:
      break;
  }
  return fail(GPUOPT_ERROR_INTERNAL, fn, "reduce: unexpected input type %d", static_cast<int>(t));
}

// f(OpTag<O>{}, TypeTag<T>{}) for the problem's op and input type.
template <class F>
gpuopt_status_t with_op_type(const ReduceProblem& p, const char* fn, F&& f) {
  return with_type(p.in_type, fn, [&](auto tt) -> gpuopt_status_t {
    switch (p.op) {
      case GPUOPT_REDUCE_SUM:
        return f(OpTag<Op::sum>{}, tt);
      case GPUOPT_REDUCE_MIN:
        return f(OpTag<Op::min>{}, tt);
      case GPUOPT_REDUCE_MAX:
        return f(OpTag<Op::max>{}, tt);
      case GPUOPT_REDUCE_ARGMIN:
        return f(OpTag<Op::argmin>{}, tt);
      case GPUOPT_REDUCE_ARGMAX:
        return f(OpTag<Op::argmax>{}, tt);
    }
    return fail(GPUOPT_ERROR_INTERNAL, fn, "reduce: unexpected op %d", static_cast<int>(p.op));
  });
}

// What the vector kernels need to find segment s and where to put results and partials.
struct SegArgs {
  const void* in = nullptr;
  void* out = nullptr;
  long long n = 0;  // per segment (fixed) or total (offsets)
  long long num_segments = 1;
  long long stride = 0;
  const long long* offsets = nullptr;  // nullptr: fixed layout
  long long splits = 1;                // pieces per segment
  void* partials = nullptr;            // workspace, num_segments * splits accumulators
  unsigned* counters = nullptr;        // workspace, num_segments counters (zero between calls)
};

inline SegArgs seg_args(const ReduceProblem& p, const ExecEnv& env, long long splits) {
  SegArgs a;
  a.in = p.in;
  a.out = p.out;
  a.n = p.n;
  a.num_segments = p.num_segments < 1 ? 1 : p.num_segments;
  a.stride = p.segmented() && !p.offsets ? p.stride : 0;
  a.offsets = reinterpret_cast<const long long*>(p.offsets);
  a.splits = splits;
  auto* ws = static_cast<unsigned char*>(env.workspace);
  if (ws) {
    a.partials = ws + reduce_ws::kPartialAOffset;
    a.counters = reinterpret_cast<unsigned*>(ws + reduce_ws::kCounterOffset);
  }
  return a;
}

// Checks that num_segments * slots accumulators of acc_bytes and num_segments counters fit the
// workspace (the plans guarantee it; this guards against a plan change).
inline gpuopt_status_t check_partials(const ExecEnv& env, const SegArgs& a, long long slots,
                                      std::size_t acc_bytes) {
  if (!env.workspace || env.workspace_bytes < reduce_ws::kTotal)
    return fail(GPUOPT_ERROR_INTERNAL, env.fn, "reduce: the stream has no op workspace");
  const double bytes = static_cast<double>(a.num_segments) * static_cast<double>(slots) *
                       static_cast<double>(acc_bytes);
  if (bytes > static_cast<double>(reduce_ws::kPartialABytes) ||
      a.num_segments > static_cast<long long>(reduce_ws::kCounters))
    return fail(GPUOPT_ERROR_INTERNAL, env.fn,
                "reduce: plan needs %lld x %lld partials, more than the workspace holds",
                a.num_segments, slots);
  return GPUOPT_SUCCESS;
}

}  // namespace red
}  // namespace gpuopt
