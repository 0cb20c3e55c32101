// gemm f64_tensorcore: f64 tensor cores through mma.sync (kernel in f64_tensorcore.cuh). This file
// holds the sm_80 instantiation (mma.sync.m8n8k4.f64, 128x128x16 tiles, 3 cp.async stages, 96-114
// KB of shared memory by transposes) and the variant's can_implement and launcher, which sends
// cc >= 9.0 to the m16n8k16 instantiation (f64_tensorcore_sm90.cu).
#include <climits>

#include "kernels/gemm/f64_tensorcore_launch.cuh"

namespace gpuopt {

const char* gemm_can_f64_tensorcore(const GemmProblem& p, const DeviceDesc& dev) {
  if (const char* r = gemm_need_types(p, GPUOPT_DTYPE_F64, GPUOPT_DTYPE_F64, GPUOPT_COMPUTE_F64))
    return r;
  if (const char* r = gemm_need_alignment(p, 16)) return r;  // 16-byte cp.async and C stores
  const bool ta = p.trans_a == GPUOPT_TRANS_T, tb = p.trans_b == GPUOPT_TRANS_T;
  // cc 9.0 may run the warp-specialized kernel: its barriers are static shared memory
  const int smem = dev.cc >= 90
                       ? f64mma::smem_bytes<f64mma::Sm90Config>(ta, tb) + f64mma::kWsStaticSmemBytes
                       : f64mma::smem_bytes<f64mma::Sm80Config>(ta, tb);
  if (dev.smem_optin < static_cast<std::size_t>(smem))
    return "needs more shared memory per block than the device offers (96-114 KB on sm_8x, "
           "192-210 KB on sm_90, by transposes)";
  const std::int64_t bm = f64mma::Sm80Config::kBM, bn = f64mma::Sm80Config::kBN;
  static_assert(f64mma::Sm80Config::kBM == f64mma::Sm90Config::kBM &&
                    f64mma::Sm80Config::kBN == f64mma::Sm90Config::kBN,
                "one tile shape for both configurations");
  if (ceil_div(p.m, bm) * ceil_div(p.n, bn) > INT_MAX) return "more tiles of C than one grid holds";
  if (ceil_div(p.k, 16) > INT_MAX) return "k too large for the k-tile counter";
  return nullptr;
}

gpuopt_status_t gemm_launch_f64_tensorcore(const GemmProblem& p, const ExecEnv& env) {
  if (env.device && env.device->cc >= 90) return f64mma::launch_sm90(p, env);
  return f64mma::launch_config<f64mma::Sm80Config, false>(p, env);
}

}  // namespace gpuopt
