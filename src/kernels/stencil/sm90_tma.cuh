// stencil sm90_tma* (2D, sm_90a): blocks fed by the Tensor Memory Accelerator. One thread issues a
// single TMA tensor-map load per tile (tile plus halo, 32 * W + 2 * HX by 32 + 2r elements; the
// copy engine writes zeros for every element outside the grid, which is the zero boundary for
// free) into a ring of stages, each with an mbarrier the copy completes. The other stages' loads
// stay in flight while a tile is computed (register-blocked: 8 rows x W columns per thread, rows
// read once as 16-byte vectors). Improves on sm80_cpasync: no per-thread address arithmetic or
// predication for the loads, deeper prefetch, no load instructions issued by the computing
// threads.
//
// Configurations (stencil::Tma2dParams, Cfg::kParams): the ring (bytes and stage cap), persistent
// blocks or one tile per block, and the persistent walk (grid stride in row-major tile order, or
// contiguous runs down tile columns). The rungs and their figures: sm90_tma.cu and
// docs/notes/stencil.md.
#pragma once
#include <cuda.h>

#include <string>

#include "common/launch.hpp"
#include "kernels/gemm/sm90_ptx.cuh"
#include "kernels/stencil/stencil_tiles2d.cuh"
#include "kernels/stencil/stencil_tma.hpp"

namespace gpuopt {
namespace stencil_tma2d {

using stencil::i64;

// The walk of one block: the tiles it computes, in order. Grid stride (row-major tiles, step
// gridDim.x), or a run of `per` consecutive column-major tiles (down a tile column).
struct Walk {
  i64 tiles_x, tiles_y, tiles, per;  // per: tiles per block of a strip walk (0: grid stride)
};

// Tile i of this block's walk (origin in *x0, *y0); false past its end.
template <class Shape>
__device__ __forceinline__ bool walk_tile(const Walk& w, i64 i, i64* x0, i64* y0) {
  if (w.per == 0) {
    const i64 t = blockIdx.x + i * gridDim.x;
    if (t >= w.tiles) return false;
    stencil::tile_origin<Shape>(t, w.tiles_x, x0, y0);
    return true;
  }
  if (i >= w.per) return false;
  const i64 t = static_cast<i64>(blockIdx.x) * w.per + i;
  if (t >= w.tiles) return false;
  const i64 tx = t / w.tiles_y;
  *x0 = tx * Shape::TX;
  *y0 = (t - tx * w.tiles_y) * Shape::TY;
  return true;
}

template <class T, int R>
__global__ void __launch_bounds__(stencil::Shape2d<T, R>::THREADS)
    stencil_sm90_tma_kernel(const __grid_constant__ CUtensorMap map, T* out, StencilGrid g,
                            StencilCoeffs<T> k, Walk w, int stages) {
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
  auto issue = [&](i64 i, int s) {
    i64 x0, y0;
    if (!walk_tile<Shape>(w, i, &x0, &y0)) return;
    const std::uint32_t bar = sm90::smem_addr(&full[s]);
    sm90::mbar_arrive_expect_tx(bar, Shape::BYTES);
    sm90::tma_load_3d(sm90::smem_addr(smem_raw + s * Shape::STAGE_BYTES), &map, bar,
                      static_cast<int>(x0 - Shape::HX), static_cast<int>(y0 - R), 0);
  };
  if (leader)
    for (int s = 0; s < stages; ++s) issue(s, s);
  i64 x0, y0;
  for (i64 i = 0; walk_tile<Shape>(w, i, &x0, &y0); ++i) {
    const int s = static_cast<int>(i % stages);
    sm90::mbar_wait(sm90::smem_addr(&full[s]), static_cast<std::uint32_t>((i / stages) & 1));
    stencil::tile_epilogue_2d<Shape, R>(
        reinterpret_cast<const T*>(smem_raw + s * Shape::STAGE_BYTES), out, g, k, x0, y0);
    __syncthreads();  // every thread is done with stage s
    if (leader) issue(i + stages, s);
  }
#else
  (void)map, (void)out, (void)g, (void)k, (void)w, (void)stages;
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
    const int stages = c.persistent ? stencil::tma2d_stages(Shape::STAGE_BYTES, c) : 1;
    // The ring plus the align slack: the size can_implement checks.
    const int smem = static_cast<int>(stencil_tma2d_smem(p, c));
    auto* kernel = stencil_sm90_tma_kernel<T, R>;
    CUtensorMap map;
    GPUOPT_TRY(
        stencil::prepare_tma_launch(what, kernel, p, Shape::COLS, Shape::ROWS, smem, env, &map));
    Walk w;
    w.tiles_x = ceil_div(p.nx, Shape::TX);
    w.tiles_y = ceil_div(p.ny, Shape::TY);
    w.tiles = w.tiles_x * w.tiles_y;
    w.per = 0;
    i64 grid = w.tiles;
    if (c.persistent) {
      const i64 resident =
          stencil::resident_blocks(kernel, Shape::THREADS, smem, env.device->sm_count);
      if (grid > resident) grid = resident;
      if (c.strips) {
        w.per = ceil_div(w.tiles, grid);
        grid = ceil_div(w.tiles, w.per);
      }
    }
    if (grid > kMaxGridX) grid = kMaxGridX;  // grid stride: the blocks cover the rest
    kernel<<<static_cast<unsigned>(grid), Shape::THREADS, smem, env.stream>>>(
        map, static_cast<T*>(p.out), g, k, w, stages);
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
