// f64_tensorcore host side: the kernels' Params from a GemmProblem, the launch over the tiles,
// the choice of instantiation by transposes, and the entry points of the per-architecture files
// (f64_tensorcore.cu: sm_80 + can_implement; f64_tensorcore_sm90.cu; f64_tensorcore_sm90a.cu).
#pragma once
#include "common/launch.hpp"
#include "kernels/gemm/f64_tensorcore.cuh"
#include "runtime/smem_limit.hpp"

namespace gpuopt {
namespace f64mma {

// Kernel arguments for config Cfg (the problem already passed can_implement).
template <class Cfg>
Params make_params(const GemmProblem& p, bool swap) {
  Params r;
  r.L = static_cast<const double*>(swap ? p.B : p.A);
  r.R = static_cast<const double*>(swap ? p.A : p.B);
  r.C = static_cast<double*>(p.C);
  r.mk = swap ? p.n : p.m;
  r.nk = swap ? p.m : p.n;
  r.k = p.k;
  r.ldl = swap ? p.ldb : p.lda;
  r.ldr = swap ? p.lda : p.ldb;
  r.ldc = p.ldc;
  r.stride_l = swap ? p.stride_b : p.stride_a;
  r.stride_r = swap ? p.stride_a : p.stride_b;
  r.stride_c = p.stride_c;
  r.batch = p.batch;
  r.alpha = p.alpha;
  r.beta = p.beta;
  r.tiles_m = static_cast<int>(ceil_div(r.mk, Cfg::kBM));
  r.tiles_n = static_cast<int>(ceil_div(r.nk, Cfg::kBN));
  r.k_tiles = (p.k > 0 && p.alpha != 0.0) ? static_cast<int>(ceil_div(p.k, Cfg::kBK)) : 0;
  r.k_full = static_cast<int>(p.k / Cfg::kBK);
  return r;
}

// Launches `kernel` (Params in, `threads` per block, `smem` bytes of dynamic shared memory) over
// the problem's tiles of Cfg: one block per tile, batches on grid.z (looped past 65535).
template <class Cfg, class Kernel>
gpuopt_status_t launch_tiles(Kernel kernel, int threads, int smem, const GemmProblem& p, bool swap,
                             const ExecEnv& env) {
  GPUOPT_TRY(raise_smem_limit(kernel, smem, env.fn, "gemm f64_tensorcore"));
  const Params prm = make_params<Cfg>(p, swap);
  const long long tiles = static_cast<long long>(prm.tiles_m) * prm.tiles_n;
  const dim3 grid(static_cast<unsigned>(tiles), 1,
                  static_cast<unsigned>(prm.batch < 65535 ? prm.batch : 65535));
  kernel<<<grid, threads, smem, env.stream>>>(prm);
  return check_launch(env.fn, "gemm f64_tensorcore kernel launch");
}

// Runs Launcher::run<kLK, kRK, kSwap> for the problem's transposes: NN (L = A MN-major, R = B
// K-major), NT, TN, and TT as NN on D = C^T.
template <class Launcher>
gpuopt_status_t by_transposes(const GemmProblem& p, const ExecEnv& env) {
  const bool ta = p.trans_a == GPUOPT_TRANS_T, tb = p.trans_b == GPUOPT_TRANS_T;
  if (!ta && !tb) return Launcher::template run<false, true, false>(p, env);  // NN
  if (!ta && tb) return Launcher::template run<false, false, false>(p, env);  // NT
  if (ta && !tb) return Launcher::template run<true, true, false>(p, env);    // TN
  return Launcher::template run<false, true, true>(p, env);                   // TT = (NN)^T
}

// The one-role kernel f64_mma_kernel for config Cfg and MMA shape kK16.
template <class Cfg, bool kK16>
struct MmaLauncher {
  template <bool kLK, bool kRK, bool kSwap>
  static gpuopt_status_t run(const GemmProblem& p, const ExecEnv& env) {
    return launch_tiles<Cfg>(f64_mma_kernel<Cfg, kLK, kRK, kSwap, kK16>, Cfg::kThreads,
                             Layout<Cfg, kLK, kRK>::kSmemBytes, p, kSwap, env);
  }
};

template <class Cfg, bool kK16>
gpuopt_status_t launch_config(const GemmProblem& p, const ExecEnv& env) {
  return by_transposes<MmaLauncher<Cfg, kK16>>(p, env);
}

// The sm_90 instantiation (m16n8k16), in f64_tensorcore_sm90.cu.
gpuopt_status_t launch_sm90(const GemmProblem& p, const ExecEnv& env);

// The warp-specialized sm_90a kernel (f64_tensorcore_ws.cuh, instantiated in
// f64_tensorcore_sm90a.cu) and whether this build holds its sm_90a SASS (false: the kernel
// compiled empty and launch_sm90 runs the one-role kernel).
gpuopt_status_t launch_sm90a(const GemmProblem& p, const ExecEnv& env);
bool sm90a_built();

// Static shared memory of the warp-specialized kernel: a full and an empty barrier per stage
// (2 x 3 x 8 bytes) and the segment ring of persistent blocks (kWsSegSlots segments of 20 bytes,
// a full and an empty barrier each, 8 bytes of claim state): 128 bytes.
constexpr int kWsStaticSmemBytes = 128;
constexpr int kWsSegSlots = 2;

}  // namespace f64mma
}  // namespace gpuopt
