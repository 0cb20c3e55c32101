// reduce cub (vendor), MIN / MAX: cub::DeviceReduce::Reduce and cub::DeviceSegmentedReduce::Reduce
// with gpuopt's combine (NaN propagates, -0 below +0, as the own variants) instead of CUB's
// Min/Max, whose NaN results depend on the order. bf16/f16 widen to f32 (TransformReduce).
#include "kernels/reduce/cub_vendor_common.cuh"

namespace gpuopt {
namespace {

using red::Op;
using red::Traits;

template <Op O, class T>
gpuopt_status_t minmax(const ReduceProblem& p, const ExecEnv& env) {
  using Tr = Traits<O, T>;
  using Acc = typename Tr::Acc;
  const T* in = static_cast<const T*>(p.in);
  Acc* out = static_cast<Acc*>(p.out);
  const red::SegArgs a = red::seg_args(p, env, 1);
  const cudaStream_t st = env.stream;
  const Acc init = O == Op::min ? red::highest<Acc>() : red::lowest<Acc>();
  constexpr bool kWiden = sizeof(T) == 2;
  if (!p.segmented()) {
    return red::cub_two_phase(env, "cub::DeviceReduce::Reduce", [&](void* tmp, std::size_t& bytes) {
      if constexpr (kWiden) {
        return cub::DeviceReduce::TransformReduce(tmp, bytes, in, out, p.n, red::Combine<Tr>{},
                                                  red::ToAcc<T, Acc>{}, init, st);
      } else {
        return cub::DeviceReduce::Reduce(tmp, bytes, in, out, p.n, red::Combine<Tr>{}, init, st);
      }
    });
  }
  return red::cub_two_phase(
      env, "cub::DeviceSegmentedReduce::Reduce", [&](void* tmp, std::size_t& bytes) {
        if constexpr (kWiden) {
          auto widened = thrust::make_transform_iterator(in, red::ToAcc<T, Acc>{});
          return cub::DeviceSegmentedReduce::Reduce(tmp, bytes, widened, out, a.num_segments,
                                                    red::seg_begins(a), red::seg_ends(a),
                                                    red::Combine<Tr>{}, init, st);
        } else {
          return cub::DeviceSegmentedReduce::Reduce(tmp, bytes, in, out, a.num_segments,
                                                    red::seg_begins(a), red::seg_ends(a),
                                                    red::Combine<Tr>{}, init, st);
        }
      });
}

}  // namespace

gpuopt_status_t reduce_launch_cub_minmax(const ReduceProblem& p, const ExecEnv& env) {
  return red::with_type(p.in_type, env.fn, [&](auto tt) {
    using T = typename decltype(tt)::type;
    return p.op == GPUOPT_REDUCE_MIN ? minmax<Op::min, T>(p, env) : minmax<Op::max, T>(p, env);
  });
}

}  // namespace gpuopt
