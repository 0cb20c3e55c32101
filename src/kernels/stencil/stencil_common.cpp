// Host pieces shared by the stencil rungs: the kernels' grid description, the TMA tensor map and
// the checks of the TMA and shared-memory requirements.
#include <climits>
#include <cstdint>

#include "kernels/stencil/stencil.hpp"
#include "kernels/stencil/stencil_geometry.hpp"
#include "kernels/stencil/stencil_tma.hpp"
#include "runtime/driver.hpp"

namespace gpuopt {
namespace {

bool aligned16(const void* p, std::int64_t pitch, std::int64_t slice, int dims, std::size_t e) {
  if (reinterpret_cast<std::uintptr_t>(p) % 16) return false;
  if ((static_cast<std::uint64_t>(pitch) * e) % 16) return false;
  return dims < 3 || (static_cast<std::uint64_t>(slice) * e) % 16 == 0;
}

}  // namespace

StencilGrid stencil_grid(const StencilProblem& p) {
  StencilGrid g;
  g.nx = p.nx;
  g.ny = p.ny;
  g.nz = p.dims == 3 ? p.nz : 1;
  g.in_pitch = p.in_pitch;
  g.out_pitch = p.out_pitch;
  g.in_slice = p.dims == 3 ? p.in_slice : 0;
  g.out_slice = p.dims == 3 ? p.out_slice : 0;
  g.clamp = p.boundary == GPUOPT_BOUNDARY_CLAMP ? 1 : 0;
  g.in_vec_ok = aligned16(p.in, p.in_pitch, p.in_slice, p.dims, p.elem()) ? 1 : 0;
  g.out_vec_ok = aligned16(p.out, p.out_pitch, p.out_slice, p.dims, p.elem()) ? 1 : 0;
  return g;
}

const char* stencil_tma_can(const StencilProblem& p) {
  if (p.boundary != GPUOPT_BOUNDARY_ZERO)
    return "the TMA copy engine fills out-of-grid elements with zeros only: the clamp boundary "
           "runs on the other rungs";
  const std::size_t e = p.elem();
  if (reinterpret_cast<std::uintptr_t>(p.in) % 16) return "TMA needs the input 16-byte aligned";
  if ((static_cast<std::uint64_t>(p.in_pitch) * e) % 16)
    return "TMA needs in_pitch times the element size to be a multiple of 16 bytes";
  if (p.dims == 3 && (static_cast<std::uint64_t>(p.in_slice) * e) % 16)
    return "TMA needs in_slice_pitch times the element size to be a multiple of 16 bytes";
  const std::int64_t lim = INT_MAX / 2;
  if (p.nx > lim || p.ny > lim || p.nz > lim) return "TMA coordinates are int32: extents < 2^30";
  if (static_cast<std::uint64_t>(p.in_pitch) * e >= (std::uint64_t{1} << 40) ||
      static_cast<std::uint64_t>(p.in_slice) * e >= (std::uint64_t{1} << 40))
    return "TMA strides must be below 2^40 bytes";
  if (p.dims == 2 &&
      static_cast<std::uint64_t>(p.in_pitch) * e * static_cast<std::uint64_t>(p.ny) >=
          (std::uint64_t{1} << 40))
    return "TMA strides must be below 2^40 bytes (the 2D plane)";
  if (!driver_api().cuTensorMapEncodeTiled) return "the driver lacks cuTensorMapEncodeTiled";
  return nullptr;
}

const char* stencil_smem_can(std::size_t bytes, const DeviceDesc& dev) {
  if (dev.smem_optin < bytes) return "needs more shared memory per block than the device offers";
  return nullptr;
}

std::size_t stencil_cpasync_smem(const StencilProblem& p, int stages) {
  const int e = static_cast<int>(p.elem());
  return static_cast<std::size_t>(stages) *
         static_cast<std::size_t>(
             stencil::stage_bytes(e, p.radius, stencil::kRows2d * stencil::kRowGroups2d));
}

std::size_t stencil_tma2d_smem(const StencilProblem& p, const stencil::Tma2dParams& c) {
  const int e = static_cast<int>(p.elem());
  const int st = stencil::stage_bytes(e, p.radius, stencil::kRows2d * stencil::kRowGroups2d);
  return static_cast<std::size_t>(stencil::tma2d_stages(st, c)) * st + stencil::kAlignSlack;
}

std::size_t stencil_tma3d_smem(const StencilProblem& p) {
  const int e = static_cast<int>(p.elem());
  const int st = stencil::stage_bytes(e, p.radius, stencil::row_groups_3d(p.radius));
  return static_cast<std::size_t>(stencil::tma3d_stages(p.radius)) * st + stencil::kAlignSlack;
}

std::size_t stencil_tma3d_fwd_smem(const StencilProblem& p, const stencil::FwdParams& c) {
  const int e = static_cast<int>(p.elem());
  const int st = stencil::fwd_stage_bytes(e, p.radius, c);
  return static_cast<std::size_t>(stencil::fwd_stages(st, c)) * st +
         static_cast<std::size_t>(stencil::fwd_cluster_shift_bytes(e, p.radius, c)) +
         stencil::kAlignSlack;
}

namespace stencil {

bool encode_plane_map(CUtensorMap* map, const StencilProblem& p, int box_cols, int box_rows) {
  const std::uint64_t e = p.elem();
  const std::uint64_t nz = p.dims == 3 ? static_cast<std::uint64_t>(p.nz) : 1;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(p.nx), static_cast<cuuint64_t>(p.ny), nz};
  const std::uint64_t row = static_cast<std::uint64_t>(p.in_pitch) * e;
  // A 2D grid is one plane; its unused slice stride is the plane's extent.
  const cuuint64_t strides[2] = {row, p.dims == 3 ? static_cast<std::uint64_t>(p.in_slice) * e
                                                  : row * static_cast<std::uint64_t>(p.ny)};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows),
                             1};
  return encode_tiled_map(map,
                          p.dtype == GPUOPT_DTYPE_F64 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT64
                                                      : CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                          3, p.in, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_NONE);
}

}  // namespace stencil
}  // namespace gpuopt
