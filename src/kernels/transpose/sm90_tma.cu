// transpose sm90_tma (sm_90a): persistent CTAs, as many as fit, each streaming tiles through a
// 64 KiB ring of TMA stages (the kernel: sm90_tma.cuh); f32 tiles of two boxes side by side
// (64 x 128: 256-byte runs of each input line) stored with st.global.cs, f64 and bf16 tiles of one
// box with plain stores. It improves on smem_swizzled by taking load issue off the threads (one
// thread issues a 4-32 KiB box) and overlapping loads with the stores of earlier tiles.
// Figures (H200, 2 GiB moved, docs/notes/history/transpose-rounds.md): f32 16384^2 with two boxes
// and .cs stores 3876 GB/s (90.8% of the copy roof, 0.976x cuBLAS geam; 501114a, measured as
// tma2box_cs), one box 3615 (303098c); f64 one box 3694 (501114a), bf16 2827 (66.2%, d90ef43).
// Runs 5-6 (e0bfb42, 0a256c3): f32 3859-3876 GB/s, 0.976-0.979x geam; a 96 KiB ring, releasing
// the stage before the stores, and 128 x 128 tiles (four boxes, one CTA per SM, 128 or 192 KiB
// ring) all measured within 0.3% of it: not kept.
// This file also holds transpose_can_sm90_tma, the limits all three TMA rungs share.
#include <climits>
#include <cstdint>

#include "kernels/transpose/sm90_tma.cuh"

namespace gpuopt {

const char* transpose_can_sm90_tma(const TransposeProblem& p, const DeviceDesc& dev) {
  if (!transpose_aligned16(p))
    return "TMA needs A, B, lda and ldb times the element size to be multiples of 16 bytes";
  const std::uint64_t e = transpose_elem_size(p.dtype);
  if ((static_cast<std::uint64_t>(p.cols) * e) % 16)
    return "needs cols times the element size to be a multiple of 16 bytes (rank-3 TMA view)";
  if (p.rows > INT_MAX || p.cols > INT_MAX) return "rows and cols must fit in int32 (TMA)";
  if (static_cast<std::uint64_t>(p.lda) * e * (16 / e) >= (1ull << 40))
    return "TMA needs 16 bytes times lda below 2^40 bytes";
  if (transpose_tma::tiles_of(p) > INT_MAX / 2) return "too many tiles for the int32 scheduler";
  if (dev.sm_count < 1) return "device multiprocessor count unknown";
  if (dev.smem_optin < static_cast<std::size_t>(transpose_tma::kSmemBytes))
    return "needs 65 KiB of shared memory per block";
  if (!driver_api().cuTensorMapEncodeTiled) return "the driver lacks cuTensorMapEncodeTiled";
  return nullptr;
}

gpuopt_status_t transpose_launch_sm90_tma(const TransposeProblem& p, const ExecEnv& env) {
  return transpose_tma::launch_if_can<transpose_tma::Sm90Tma<false>>("sm90_tma", p, env);
}

}  // namespace gpuopt
