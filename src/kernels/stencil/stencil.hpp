// Star stencils (2D and 3D, radius 1..8, f32/f64, zero or clamped boundary): the problem, the
// coefficient block every kernel takes by value, the tile geometry shared by the tiled rungs and
// the variant table.
//
// Dispatch rule (stencil_table.cpp; measured on an H200 and an H100, docs/notes/stencil.md): 2D
// problems run sm90_tma where it can (zero boundary, 16-byte aligned base and pitches), else
// sm80_cpasync_unstaged (measured faster than the pipelined sm80_cpasync), else smem_sync; 3D
// problems run sm90_zmarch_fwd_xsplit (zero boundary, 16-byte aligned base and pitches), else
// the other TMA z-marching rungs (the same conditions; ranked by measurement), else zmarch_sync;
// naive (both dimensionalities, any layout) ranks last.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/stencil/stencil_geometry.hpp"
#include "runtime/registry.hpp"

namespace gpuopt {

constexpr int kStencilMaxRadius = GPUOPT_STENCIL_MAX_RADIUS;
// 1 centre + 3 axes x 2 x 8 offsets.
constexpr int kStencilMaxCoeffs = 1 + 3 * 2 * kStencilMaxRadius;

struct StencilProblem {
  gpuopt_dtype_t dtype = GPUOPT_DTYPE_F32;
  int dims = 2;
  int radius = 1;
  gpuopt_boundary_t boundary = GPUOPT_BOUNDARY_ZERO;
  std::int64_t nx = 0, ny = 0, nz = 1;                                    // nz == 1 for 2D
  std::int64_t in_pitch = 0, in_slice = 0, out_pitch = 0, out_slice = 0;  // elements
  double coeffs[kStencilMaxCoeffs] = {};  // 1 + dims * 2 * radius used, layout of the header
  const void* in = nullptr;
  void* out = nullptr;

  std::size_t elem() const { return dtype == GPUOPT_DTYPE_F64 ? 8 : 4; }
};

// The coefficients as a kernel parameter (copied per launch: a captured graph keeps them).
// c[0] the centre; axis a offset o (o = -r..-1, 1..r) at c[1 + a * 2r + (o < 0 ? o + r : o + r -
// 1)].
template <class T>
struct StencilCoeffs {
  T c[kStencilMaxCoeffs];
};

template <class T>
StencilCoeffs<T> stencil_coeffs(const StencilProblem& p) {
  StencilCoeffs<T> k{};
  for (int i = 0; i < kStencilMaxCoeffs; ++i) k.c[i] = static_cast<T>(p.coeffs[i]);
  return k;
}

// Grid extents and pitches as the kernels take them.
struct StencilGrid {
  long long nx, ny, nz;
  long long in_pitch, in_slice, out_pitch, out_slice;
  int clamp;       // 1: clamped boundary, 0: zero
  int in_vec_ok;   // input base 16-byte aligned and pitches multiples of 16 bytes
  int out_vec_ok;  // the same for the output
};
StencilGrid stencil_grid(const StencilProblem& p);

// Why the TMA rungs cannot take p (nullptr when they can): zero boundary, aligned base and
// pitches, int32 extents, the driver's tensor-map entry point.
const char* stencil_tma_can(const StencilProblem& p);

// Largest dynamic shared memory a tiled rung of p needs (bytes), and the check against the device.
const char* stencil_smem_can(std::size_t bytes, const DeviceDesc& dev);

// Shared-memory bytes of each tiled rung for a problem (used by can_implement and the launchers).
std::size_t stencil_cpasync_smem(const StencilProblem& p, int stages);
std::size_t stencil_tma2d_smem(const StencilProblem& p, const stencil::Tma2dParams& c);
std::size_t stencil_tma3d_smem(const StencilProblem& p);
std::size_t stencil_tma3d_fwd_smem(const StencilProblem& p, const stencil::FwdParams& c);

gpuopt_status_t stencil_launch_naive(const StencilProblem& p, const ExecEnv& env);
gpuopt_status_t stencil_launch_smem_sync(const StencilProblem& p, const ExecEnv& env);
gpuopt_status_t stencil_launch_cpasync(const StencilProblem& p, const ExecEnv& env, int stages);
gpuopt_status_t stencil_launch_sm80_cpasync_unstaged(const StencilProblem& p, const ExecEnv& env);
gpuopt_status_t stencil_launch_sm80_cpasync(const StencilProblem& p, const ExecEnv& env);
gpuopt_status_t stencil_launch_sm90_tma(const StencilProblem& p, const ExecEnv& env);
gpuopt_status_t stencil_launch_sm90_tma_ring(const StencilProblem& p, const ExecEnv& env);
gpuopt_status_t stencil_launch_sm90_zmarch_fwd_chunks(const StencilProblem& p, const ExecEnv& env);
gpuopt_status_t stencil_launch_sm90_zmarch_fwd_pairs(const StencilProblem& p, const ExecEnv& env);
gpuopt_status_t stencil_launch_sm90_zmarch_fwd_xsplit(const StencilProblem& p, const ExecEnv& env);
gpuopt_status_t stencil_launch_zmarch_sync(const StencilProblem& p, const ExecEnv& env);
gpuopt_status_t stencil_launch_sm90_zmarch_tma(const StencilProblem& p, const ExecEnv& env);
gpuopt_status_t stencil_launch_sm90_zmarch_fwd(const StencilProblem& p, const ExecEnv& env);
gpuopt_status_t stencil_launch_sm90_zmarch_fwd_sweep(const StencilProblem& p, const ExecEnv& env);

// Validates the arguments of gpuopt_stencil (everything but the device: handles, pointer ranges)
// and fills p. Empty grids succeed with *in_bytes == 0. Bytes: the spans in and out cover.
// Implemented in src/api/api_stencil.cpp.
gpuopt_status_t stencil_prepare(const gpuopt_stencil_desc_t* desc, const void* in, void* out,
                                StencilProblem* p, std::size_t* in_bytes, std::size_t* out_bytes);

// The table, in ladder order (textbook rung first).
const Variant<StencilProblem>* stencil_variants(int* count);

}  // namespace gpuopt
