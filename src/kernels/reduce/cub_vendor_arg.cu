// reduce cub (vendor), ARGMIN / ARGMAX: cub::DeviceReduce::Reduce and
// cub::DeviceSegmentedReduce::Reduce over (value, index) pairs made on the fly from a counting
// iterator, with gpuopt's combine (first NaN, then the extreme, ties to the lower index), into
// the stream workspace; a small kernel then writes each pair's index relative to its segment
// (-1 for an empty one). CUB's own ArgMin/ArgMax differ on NaN and on empty inputs.
#include "kernels/reduce/cub_vendor_common.cuh"

namespace gpuopt {
namespace {

using red::Op;
using red::Traits;

// (value, global index) of element i.
template <class T, class V>
struct MakePair {
  const T* in;
  __host__ __device__ red::ArgAcc<V> operator()(long long i) const {
#if defined(__CUDA_ARCH__)
    return red::ArgAcc<V>{red::widen(in[i]), i};
#else
    return red::ArgAcc<V>{V{}, i};
#endif
  }
};

template <class V>
__global__ void arg_finish_kernel(const red::ArgAcc<V>* pairs, red::SegArgs a, long long* out) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long s = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       s < a.num_segments; s += step) {
    const long long i = pairs[s].i;
    out[s] = i == red::kNoIndex ? -1 : i - red::SegBegin{a.n, a.stride, a.offsets}(s);
  }
}

template <Op O, class T>
gpuopt_status_t arg(const ReduceProblem& p, const ExecEnv& env) {
  using Tr = Traits<O, T>;
  using Acc = typename Tr::Acc;
  using V = typename Tr::V;
  const red::SegArgs a = red::seg_args(p, env, 1);
  GPUOPT_TRY(red::check_partials(env, a, 1, sizeof(Acc)));
  auto* pairs = static_cast<Acc*>(a.partials);
  const cudaStream_t st = env.stream;
  const Acc init{O == Op::argmin ? red::highest<V>() : red::lowest<V>(), red::kNoIndex};
  auto items = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0),
                                               MakePair<T, V>{static_cast<const T*>(p.in)});
  if (!p.segmented()) {
    GPUOPT_TRY(
        red::cub_two_phase(env, "cub::DeviceReduce::Reduce", [&](void* tmp, std::size_t& bytes) {
          return cub::DeviceReduce::Reduce(tmp, bytes, items, pairs, p.n, red::Combine<Tr>{}, init,
                                           st);
        }));
  } else {
    GPUOPT_TRY(red::cub_two_phase(
        env, "cub::DeviceSegmentedReduce::Reduce", [&](void* tmp, std::size_t& bytes) {
          return cub::DeviceSegmentedReduce::Reduce(tmp, bytes, items, pairs, a.num_segments,
                                                    red::seg_begins(a), red::seg_ends(a),
                                                    red::Combine<Tr>{}, init, st);
        }));
  }
  const long long blocks = std::min<long long>(ceil_div(a.num_segments, 256), 4096);
  arg_finish_kernel<V>
      <<<static_cast<unsigned>(blocks), 256, 0, st>>>(pairs, a, static_cast<long long*>(p.out));
  return check_launch(env.fn, "reduce cub argmin/argmax finishing kernel launch");
}

}  // namespace

gpuopt_status_t reduce_launch_cub_arg(const ReduceProblem& p, const ExecEnv& env) {
  return red::with_type(p.in_type, env.fn, [&](auto tt) {
    using T = typename decltype(tt)::type;
    return p.op == GPUOPT_REDUCE_ARGMIN ? arg<Op::argmin, T>(p, env) : arg<Op::argmax, T>(p, env);
  });
}

}  // namespace gpuopt
