// reduce cub (vendor): cub::DeviceReduce / cub::DeviceSegmentedReduce. This file picks the
// instantiation unit of the op family; the CUB templates are split over cub_vendor_sum.cu,
// cub_vendor_minmax.cu and cub_vendor_arg.cu so a parallel build compiles them at once
// (docs/design.md, "Build and packaging").
#include "kernels/reduce/reduce.hpp"
#include "runtime/error.hpp"

namespace gpuopt {

gpuopt_status_t reduce_launch_cub(const ReduceProblem& p, const ExecEnv& env) {
  switch (p.op) {
    case GPUOPT_REDUCE_SUM:
      return reduce_launch_cub_sum(p, env);
    case GPUOPT_REDUCE_MIN:
    case GPUOPT_REDUCE_MAX:
      return reduce_launch_cub_minmax(p, env);
    case GPUOPT_REDUCE_ARGMIN:
    case GPUOPT_REDUCE_ARGMAX:
      return reduce_launch_cub_arg(p, env);
  }
  return fail(GPUOPT_ERROR_INTERNAL, env.fn, "reduce cub: unexpected op %d",
              static_cast<int>(p.op));
}

}  // namespace gpuopt
