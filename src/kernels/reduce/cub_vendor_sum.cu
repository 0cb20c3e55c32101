// reduce cub (vendor), SUM: cub::DeviceReduce::Sum on the raw input (so CUB vectorizes its
// loads), the result type chosen so CUB accumulates as gpuopt documents for integers (i32 -> i64,
// u32 -> u64); f32 accumulates in f32, as cub::DeviceReduce::Sum does. bf16/f16 go through
// TransformReduce to f32. Segments: cub::DeviceSegmentedReduce::Sum / ::Reduce with clamped
// offset iterators. Temp storage: the stream workspace's CUB region.
#include "kernels/reduce/cub_vendor_common.cuh"

namespace gpuopt {
namespace {

using red::Op;
using red::Traits;

template <class T>
gpuopt_status_t sum(const ReduceProblem& p, const ExecEnv& env) {
  using Tr = Traits<Op::sum, T>;
  using Out = typename Tr::Out;
  const T* in = static_cast<const T*>(p.in);
  Out* out = static_cast<Out*>(p.out);
  const red::SegArgs a = red::seg_args(p, env, 1);
  const cudaStream_t st = env.stream;
  constexpr bool kWiden = sizeof(T) == 2;  // bf16/f16: transform to f32
  auto widened = thrust::make_transform_iterator(in, red::ToAcc<T, Out>{});
  if (!p.segmented()) {
    return red::cub_two_phase(env, "cub::DeviceReduce::Sum", [&](void* tmp, std::size_t& bytes) {
      if constexpr (kWiden) {
        return cub::DeviceReduce::TransformReduce(
            tmp, bytes, in, out, p.n, ::cuda::std::plus<Out>{}, red::ToAcc<T, Out>{}, Out(0), st);
      } else {
        return cub::DeviceReduce::Sum(tmp, bytes, in, out, p.n, st);
      }
    });
  }
  return red::cub_two_phase(
      env, "cub::DeviceSegmentedReduce::Sum", [&](void* tmp, std::size_t& bytes) {
        if constexpr (kWiden) {
          return cub::DeviceSegmentedReduce::Reduce(tmp, bytes, widened, out, a.num_segments,
                                                    red::seg_begins(a), red::seg_ends(a),
                                                    ::cuda::std::plus<Out>{}, Out(0), st);
        } else {
          return cub::DeviceSegmentedReduce::Sum(tmp, bytes, in, out, a.num_segments,
                                                 red::seg_begins(a), red::seg_ends(a), st);
        }
      });
}

}  // namespace

gpuopt_status_t reduce_launch_cub_sum(const ReduceProblem& p, const ExecEnv& env) {
  return red::with_type(p.in_type, env.fn,
                        [&](auto tt) { return sum<typename decltype(tt)::type>(p, env); });
}

}  // namespace gpuopt
