// gemm f64_tensorcore, sm_90a instantiation: the warp-specialized kernel (f64_tensorcore_ws.cuh;
// a producer warpgroup issues the cp.async copies, two MMA warpgroups run only shared loads and
// m16n8k16 DMMAs, full/empty mbarriers per stage), 128x128x32 tiles, 3 stages, 192-210 KB of
// shared memory, the last partial wave of tiles as stream-K parts (f64_stream_k.hpp). The launcher
// (f64_tensorcore_sm90.cu) sends cc 9.0 here when this file was built with its sm_90a SASS
// (GPUOPT_F64_SM90A_SASS, set by src/CMakeLists.txt).
#include "kernels/gemm/f64_tensorcore_build.hpp"
#include "kernels/gemm/f64_tensorcore_ws.cuh"

namespace gpuopt {
namespace f64mma {

gpuopt_status_t launch_sm90a(const GemmProblem& p, const ExecEnv& env) {
  return by_transposes<WsLauncher<Sm90Config>>(p, env);
}

bool sm90a_built() {
#if defined(GPUOPT_F64_SM90A_SASS)
  return true;
#else
  return false;
#endif
}

}  // namespace f64mma

bool gemm_f64_tensorcore_ws_built() { return f64mma::sm90a_built(); }

}  // namespace gpuopt
