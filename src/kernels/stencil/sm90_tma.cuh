// stencil sm90_tma* (2D, sm_90a): tiles fed by the Tensor Memory Accelerator. One thread issues a
// single TMA tensor-map load per tile (tile plus halo, 32 * W + 2 * HX by 32 + 2r elements; the
// copy engine writes zeros for every element outside the grid, which is the zero boundary for
// free) into a stage with an mbarrier the copy completes; the tile is then computed
// register-blocked (8 rows x W columns per thread, rows read once as 16-byte vectors). Improves on
// sm80_cpasync: no per-thread address arithmetic, predication or load instructions for the tile.
//
// Configurations (stencil::Tma2dParams, Cfg::kParams): one tile per block (grid = tiles, one
// stage: sm90_tma.cu), or persistent blocks walking the tiles by grid stride through a ring of
// stages whose other loads stay in flight while a tile is computed (sm90_tma_ring.cu). Figures:
// those files and docs/notes/stencil.md.
#pragma once
#include <cuda.h>

#include <string>

#include "arch/sm90/mbarrier.cuh"
#include "arch/sm90/smem.cuh"
#include "arch/sm90/tma.cuh"
#include "common/launch.hpp"
#include "kernels/stencil/stencil_tiles2d.cuh"
#include "kernels/stencil/stencil_tma.hpp"

namespace gpuopt {
namespace stencil_tma2d {

using stencil::i64;

template <class T, int R>
__global__ void __launch_bounds__(stencil::Shape2d<T, R>::THREADS)
    stencil_sm90_tma_kernel(const __grid_constant__ CUtensorMap map, T* out, StencilGrid g,
                            StencilCoeffs<T> k, i64 tiles_x, i64 tiles, int stages) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Shape = stencil::Shape2d<T, R>;
  extern __shared__ __align__(128) unsigned char smem_dyn[];
  unsigned char* const smem_raw = stencil::align128(smem_dyn);
  __shared__ __align__(8) unsigned long long full[stencil::kTmaMaxStages];
  const bool leader = threadIdx.x == 0;
  if (leader) {
    for (int s = 0; s < stages; ++s) sm90::mbar_init(sm90::smem_addr(&full[s]), 1);
    sm90::mbar_init_fence();
    sm90::tma_prefetch_desc(&map);
  }
  __syncthreads();
  // Block-local tile i is grid tile blockIdx.x + i * gridDim.x (row-major, x fastest).
  auto tile = [&](i64 i) { return blockIdx.x + i * static_cast<i64>(gridDim.x); };
  auto issue = [&](i64 i, int s) {
    if (tile(i) >= tiles) return;
    i64 x0, y0;
    stencil::tile_origin<Shape>(tile(i), tiles_x, &x0, &y0);
    const std::uint32_t bar = sm90::smem_addr(&full[s]);
    sm90::mbar_arrive_expect_tx(bar, Shape::BYTES);
    sm90::tma_load_3d(sm90::smem_addr(smem_raw + s * Shape::STAGE_BYTES), &map, bar,
                      static_cast<int>(x0 - Shape::HX), static_cast<int>(y0 - R), 0);
  };
  if (leader)
    for (int s = 0; s < stages; ++s) issue(s, s);
  for (i64 i = 0; tile(i) < tiles; ++i) {
    const int s = static_cast<int>(i % stages);
    sm90::mbar_wait(sm90::smem_addr(&full[s]), static_cast<std::uint32_t>((i / stages) & 1));
    i64 x0, y0;
    stencil::tile_origin<Shape>(tile(i), tiles_x, &x0, &y0);
    stencil::tile_epilogue_2d<Shape, R>(
        reinterpret_cast<const T*>(smem_raw + s * Shape::STAGE_BYTES), out, g, k, x0, y0);
    if (tile(i + 1) >= tiles) break;  // nothing to refill: no barrier
    __syncthreads();                  // every thread is done with stage s
    if (leader) issue(i + stages, s);
  }
#else
  (void)map, (void)out, (void)g, (void)k, (void)tiles_x, (void)tiles, (void)stages;
#endif
}

template <class T, class Cfg>
gpuopt_status_t launch_typed(const StencilProblem& p, const ExecEnv& env, const char* what) {
  const StencilGrid g = stencil_grid(p);
  const StencilCoeffs<T> k = stencil_coeffs<T>(p);
  return stencil::with_radius(p.radius, [&](auto rc) -> gpuopt_status_t {
    constexpr int R = decltype(rc)::value;
    using Shape = stencil::Shape2d<T, R>;
    constexpr stencil::Tma2dParams c = Cfg::kParams;
    const int stages = stencil::tma2d_stages(Shape::STAGE_BYTES, c);  // (one tile: 1)
    // The ring plus the align slack: the size can_implement checks.
    const int smem = static_cast<int>(stencil_tma2d_smem(p, c));
    auto* kernel = stencil_sm90_tma_kernel<T, R>;
    CUtensorMap map;
    GPUOPT_TRY(
        stencil::prepare_tma_launch(what, kernel, p, Shape::COLS, Shape::ROWS, smem, env, &map));
    const i64 tiles_x = ceil_div(p.nx, Shape::TX);
    const i64 tiles = tiles_x * ceil_div(p.ny, Shape::TY);
    i64 grid = tiles;
    if (c.persistent) {
      const i64 resident =
          stencil::resident_blocks(kernel, Shape::THREADS, smem, env.device->sm_count);
      if (grid > resident) grid = resident;
    }
    if (grid > kMaxGridX) grid = kMaxGridX;  // the grid stride covers the rest
    kernel<<<static_cast<unsigned>(grid), Shape::THREADS, smem, env.stream>>>(
        map, static_cast<T*>(p.out), g, k, tiles_x, tiles, stages);
    return check_launch(env.fn, (std::string(what) + " kernel launch").c_str());
  });
}

// Launches configuration Cfg on p (f32 or f64).
template <class Cfg>
gpuopt_status_t launch(const StencilProblem& p, const ExecEnv& env, const char* what) {
  return p.dtype == GPUOPT_DTYPE_F64 ? launch_typed<double, Cfg>(p, env, what)
                                     : launch_typed<float, Cfg>(p, env, what);
}

}  // namespace stencil_tma2d
}  // namespace gpuopt
