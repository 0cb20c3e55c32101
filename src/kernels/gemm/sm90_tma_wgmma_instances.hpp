// sm90_tma_wgmma: the launches the instance files compile, one translation unit per input type,
// output type and schedule (sm90_tma_wgmma_inst_*.cu), so that a parallel build compiles the
// kernels side by side. In one file per input type they were the longest pole of the bench
// preset's from-scratch build (167 s on the 16-core H100 machine after the stream-K tail, 81 s
// before it; issue 17's bar is 180 s). The per-type launchers (sm90_tma_wgmma_launchers.cu)
// include only this header; sm90_tma_wgmma_launch.cuh defines the templates.
#pragma once
#include "kernels/gemm/sm90_tma_wgmma.hpp"

namespace gpuopt {
namespace sm90 {

// The four operand majorities of one (TIn, TOut) and schedule (kPP: ping-pong), both cluster
// sizes.
template <class TIn, class TOut, bool kPP>
gpuopt_status_t launch_majors_of(const Plan& plan, const ExecEnv& env);

// One operand layout (kPK, kQK: P / Q K-major; kPRegs: P through registers; kSwap: tf32 NN's
// swapped roles), both cluster sizes.
template <class TIn, class TOut, bool kPK, bool kQK, bool kPRegs, bool kSwap, bool kPP>
gpuopt_status_t launch_one(const Plan& plan, const ExecEnv& env);

}  // namespace sm90
}  // namespace gpuopt
