// transpose sm90_tma_store (sm_90a, f32): one-box tiles (the kernel: sm90_tma.cuh) whose
// transposed tile the threads write to a shared output tile (512-byte lines, conflict-free) and
// one thread stores with a TMA tensor store (cp.async.bulk.tensor shared -> global, bulk groups;
// two output tiles, a 32 KiB ring), instead of sm90_tma's thread stores.
// Figure (H200, 2 GiB moved, 501114a, docs/notes/history/transpose-rounds.md): f32 16384^2
// 3727 GB/s (87.3% of the copy roof) against sm90_tma's 3876.
#include "kernels/transpose/sm90_tma.cuh"

namespace gpuopt {
namespace {

// sm90_tma_store: f32 only (the one type measured and tested on the device).
struct Sm90TmaStore {
  template <class W>
  static gpuopt_status_t run(const TransposeProblem& p, const ExecEnv& env) {
    if constexpr (sizeof(W) != 4) {
      (void)p;
      return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn, "transpose sm90_tma_store: f32 only");
    } else {
      return transpose_tma::launch_tma<W, 1, true, false>(p, env);
    }
  }
};

}  // namespace

gpuopt_status_t transpose_launch_sm90_tma_store(const TransposeProblem& p, const ExecEnv& env) {
  return transpose_tma::launch_if_can<Sm90TmaStore>("sm90_tma_store", p, env);
}

}  // namespace gpuopt
