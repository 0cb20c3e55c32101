// stencil sm90_zmarch_fwd (3D, sm_90a): z-marching fed by TMA with forward z partial sums and
// no block barrier. Thread 0 streams the block's z-planes (xy tile plus halo, zeros outside the
// grid from the copy engine) into a ring of up to 8 stages, each with a full mbarrier (the copy's
// bytes) and an empty mbarrier (one arrival per warp once it is done with the plane); it refills
// a stage when every warp has released it, refill_lag planes behind its own step, so warps
// drift freely within that slack instead of meeting at a barrier every plane. (A separate
// producer warp would cap the 16 computing warps at 96 registers: 17 warps put 5 on one
// scheduler's register file.) The 16 warps own 2 output rows per thread (r <= 4; 1 above) of a
// 32 * W x 32 tile. When plane j lands, each thread adds the plane's centre, x and y terms to the
// running sum of output plane j, and its own centre vectors times the z coefficients to the sums
// of planes j - r .. j + r (2r register slots; the slot of j - r, then complete, is stored and
// reused for j + r). A plane is read only at its own step, so its stage goes back at once and the
// ring is prefetch. The plane loop is unrolled by 2r so the slots are fixed registers. Improves on
// sm90_zmarch_tma: no per-plane block barrier, 14 instead of 24 16-byte shared loads per 8
// outputs, no queue moves, a y halo of 2r over 32 rows instead of 16.
//
// Clusters (cluster_y > 1): the CTAs of a cluster own tiles stacked in y, and the 2r halo rows
// below CTA k's tile are the halo rows above CTA k + 1's. CTA k's ring sits k * TY rows further
// into shared memory, so those rows have the same shared offset in both CTAs; each plane is then
// three boxes: the top 2r rows (CTA 0 only: the others receive them), the middle TY - 2r rows
// (every CTA) and the bottom 2r rows, which CTA k multicasts to itself and CTA k + 1 (the last
// CTA loads its own). A stage's full barrier still expects the whole tile's bytes, part of them
// from the peer's multicast. Refilling a stage overwrites CTA k + 1's rows as well, so CTA k's
// empty barrier counts the warps of both CTAs (each warp of CTA k + 1 also arrives remotely on
// CTA k's); the cluster meets once after the barriers' initialisation and once before exit.
//
// x-split (x_split, clusters of 1): each plane is three boxes, the tile's TX columns and the HX
// columns either side, into three dense blocks of the stage (stencil_geometry.hpp). A whole-tile
// box row starts HX columns before the tile, so the copy engine reads two 128-byte lines of L2
// beyond the tile's per row and splits the row into more requests; the interior box reads whole
// lines and each side box one 16- to 64-byte piece per row. The window of a thread then takes
// its x neighbours from the side blocks at the tile's edges (SplitWindow).
//
// Configurations (stencil::FwdParams, Cfg::kParams): output rows per thread for r <= 4 and warps
// per block (the tile), the ring-stage cap, blocks per SM (launch bounds, shared-memory budget),
// the refill lag, the launcher's plan: z-chunks by the wave cost rule (zmarch_plan), as many
// as fill one wave, or chunks of a fixed number of planes in xy-tile-fastest block order
// (zmarch_plan_chunks), and the cluster size. The rungs: sm90_zmarch_fwd.cu (2 rows, cost rule),
// sm90_zmarch_fwd_sweep.cu (1 row, one wave), sm90_zmarch_fwd_chunks.cu (1 row, 64-plane
// chunks), sm90_zmarch_fwd_pairs.cu (fwd_chunks in clusters of 2) and sm90_zmarch_fwd_xsplit.cu
// (fwd_chunks with x-split stages). Measured: see those files
// and docs/notes/stencil.md.
#pragma once
#include <cuda.h>

#include <string>

#include "arch/sm90/cluster.cuh"
#include "arch/sm90/cluster_launch.hpp"
#include "arch/sm90/mbarrier.cuh"
#include "arch/sm90/smem.cuh"
#include "arch/sm90/tma.cuh"
#include "kernels/stencil/stencil_tma.hpp"
#include "kernels/stencil/stencil_zmarch.cuh"

namespace gpuopt {
namespace stencil_fwd {

using stencil::i64;
using stencil::Lanes;

// A configuration: Cfg::kParams (stencil::FwdParams) sizes the tile, the ring and the plan.
template <class T, int R, class Cfg>
using ShapeFwd = stencil::TileShape<T, R, stencil::fwd_rows_per_thread(R, Cfg::kParams.vmax),
                                    Cfg::kParams.warps>;

// Where one thread's outputs go: row 0 of its V rows at plane z0 (the rows follow at the output
// pitch), which of the V rows lie inside the grid (bit mask), and how many of its W lanes (W
// when the row is a whole aligned vector: one 16-byte store). Few registers: the kernel keeps
// 2r x V partial-sum vectors live.
template <class T>
struct FwdStore {
  T* base;
  int rows;   // bit i: row i inside the grid
  int lanes;  // lanes inside the grid; W + 1 when they form one aligned vector
};

template <class T, int V>
__device__ __forceinline__ void fwd_store(const FwdStore<T>& st, const StencilGrid& g, i64 zoff,
                                          const Lanes<T> (&l)[V]) {
  constexpr int W = stencil::vec_width(static_cast<int>(sizeof(T)));
#pragma unroll
  for (int i = 0; i < V; ++i) {
    if (!(st.rows >> i & 1)) continue;
    T* p = st.base + zoff + i * g.out_pitch;
    if (st.lanes > W) {
      stencil::st_vec(p, l[i]);
    } else {
#pragma unroll
      for (int e = 0; e < W; ++e)
        if (e < st.lanes) p[e] = l[i].v[e];
    }
  }
}

// The z terms of input plane j (the thread's centre vectors c; j's slot is u): with kAhead false,
// c at offset +o of output planes j - o (o = 1..R; plane j - R is then complete); with kAhead
// true, c at offset -o of planes j + o (the slot of j + R, just freed by j - R, starts afresh).
template <int R, bool kAhead, int N, int V, class T>
__device__ __forceinline__ void add_z_terms(Lanes<T> (&acc)[N][V], int u, const Lanes<T> (&c)[V],
                                            const StencilCoeffs<T>& k) {
#pragma unroll
  for (int o = 1; o <= R; ++o)
#pragma unroll
    for (int i = 0; i < V; ++i)
#pragma unroll
      for (int e = 0; e < Vec16<T>::width; ++e) {
        T& a = acc[kAhead ? (u + o) % N : (u - o + N) % N][i].v[e];
        const T kz = stencil::coef_rt<R, 2>(k, kAhead ? -o : o);
        a = kAhead && o == R ? kz * c[i].v[e] : fma(kz, c[i].v[e], a);
      }
}

// The input's tensor maps: the whole tile plus halo (ROWS rows; clusters of 1), or the 2r-row
// halo box and the (TY - 2r)-row middle box (clusters); x-split: tile is the TX x ROWS interior
// box and side the HX x ROWS box of either x halo.
struct FwdMaps {
  CUtensorMap tile, halo, mid, side;
};

// A thread's vectors in an x-split stage (stencil::DenseWindow's interface): centre vectors from
// the interior block, the x window of its one output row (V = 1: window row R) from the block
// holding each vector (a side block for lane 0's left and lane 31's right neighbours).
template <class Shape, class T>
struct SplitWindow {
  static constexpr int NV = 2 * Shape::HX / Shape::W + 1;
  const T* s;  // the stage
  int c0;      // window row 0's centre vector (elements from s)
  int q[NV];   // vector q of window row R (elements from s)
  __device__ __forceinline__ SplitWindow(int tx, int ty) {
    constexpr int TX = Shape::TX, HX = Shape::HX, R = (Shape::ROWS - Shape::TY) / 2;
    constexpr int left = stencil::split_left_offset(Shape::E, R, Shape::TY) / Shape::E;
    constexpr int right = stencil::split_right_offset(Shape::E, R, Shape::TY) / Shape::E;
    s = nullptr;
    c0 = ty * TX + tx * Shape::W;
#pragma unroll
    for (int v = 0; v < NV; ++v) {
      const int c = tx * Shape::W - HX + v * Shape::W;  // tile column
      q[v] = c < 0 ? left + (ty + R) * HX + c + HX
                   : (c >= TX ? right + (ty + R) * HX + c - TX : (ty + R) * TX + c);
    }
  }
  __device__ __forceinline__ const T* centre(int row) const { return s + c0 + row * Shape::TX; }
  __device__ __forceinline__ const T* vec(int, int v) const { return s + q[v]; }
};

template <class T, int R, class Cfg>
__global__ void __launch_bounds__(ShapeFwd<T, R, Cfg>::THREADS, Cfg::kParams.blocks_per_sm)
    stencil_sm90_zmarch_fwd_kernel(const __grid_constant__ FwdMaps maps, T* out, StencilGrid g,
                                   StencilCoeffs<T> k, stencil::ZmarchPlan plan) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Shape = ShapeFwd<T, R, Cfg>;
  constexpr int V = stencil::fwd_rows_per_thread(R, Cfg::kParams.vmax);
  constexpr int S =
      stencil::fwd_stages(stencil::fwd_stage_bytes(Shape::E, R, Cfg::kParams), Cfg::kParams);
  constexpr int NW = Shape::THREADS / 32;
  constexpr int N = 2 * R;  // z partial-sum slots (plane p in slot p % N)
  constexpr int D = Cfg::kParams.refill_lag;
  constexpr int CY = Cfg::kParams.cluster_y > 1 ? Cfg::kParams.cluster_y : 1;
  constexpr int ROW_BYTES = Shape::COLS * Shape::E;
  constexpr int STAGE = stencil::fwd_stage_bytes(Shape::E, R, Cfg::kParams);
  constexpr bool XS = Cfg::kParams.x_split;
  static_assert(stencil::fwd_config_supported(Shape::E, R, Cfg::kParams),
                "a configuration out of its range (the launcher refuses such radii)");
  static_assert(!XS || V == 1, "x-split stages: one output row per thread");
  extern __shared__ __align__(128) unsigned char smem_dyn[];
  const int rank = CY > 1 ? static_cast<int>(sm90::cluster_ctarank()) : 0;
  unsigned char* const smem_raw = stencil::align128(smem_dyn) + rank * Shape::TY * ROW_BYTES;
  __shared__ __align__(8) unsigned long long full[S], empty[S];
  const stencil::ZmarchBlock blk = stencil::zmarch_block<Shape>(g, plan);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const bool producer = threadIdx.x == 0;
  // Plane j of the block (j = 0 .. planes - 1) is z = z0 - R + j, staged in stage j % S.
  const int planes = static_cast<int>(blk.z1 - blk.z0) + 2 * R;
  const int cx = static_cast<int>(blk.x0 - Shape::HX), cy = static_cast<int>(blk.y0 - R),
            cz = static_cast<int>(blk.z0 - R);
  auto issue = [&](int j) {
    const int s = j % S;
    const std::uint32_t bar = sm90::smem_addr(&full[s]);
    const std::uint32_t dst = sm90::smem_addr(smem_raw + s * STAGE);
    sm90::mbar_arrive_expect_tx(bar, Shape::BYTES);
    if constexpr (XS) {
      const int x0 = cx + Shape::HX;
      sm90::tma_load_3d(dst, &maps.tile, bar, x0, cy, cz + j);
      sm90::tma_load_3d(dst + stencil::split_left_offset(Shape::E, R, Shape::TY), &maps.side, bar,
                        cx, cy, cz + j);
      sm90::tma_load_3d(dst + stencil::split_right_offset(Shape::E, R, Shape::TY), &maps.side, bar,
                        x0 + Shape::TX, cy, cz + j);
    } else if constexpr (CY == 1) {
      sm90::tma_load_3d(dst, &maps.tile, bar, cx, cy, cz + j);
    } else {
      constexpr int H = 2 * R, TY = Shape::TY;
      if (rank == 0) sm90::tma_load_3d(dst, &maps.halo, bar, cx, cy, cz + j);
      if constexpr (TY > H)
        sm90::tma_load_3d(dst + H * ROW_BYTES, &maps.mid, bar, cx, cy + H, cz + j);
      if (rank == CY - 1)
        sm90::tma_load_3d(dst + TY * ROW_BYTES, &maps.halo, bar, cx, cy + TY, cz + j);
      else
        sm90::tma_load_3d_multicast(dst + TY * ROW_BYTES, &maps.halo, bar, cx, cy + TY, cz + j,
                                    static_cast<std::uint16_t>(3u << rank));
    }
  };
  if (producer) {
    for (int s = 0; s < S; ++s) {
      sm90::mbar_init(sm90::smem_addr(&full[s]), 1);
      sm90::mbar_init(sm90::smem_addr(&empty[s]), rank < CY - 1 ? 2 * NW : NW);
    }
    sm90::mbar_init_fence();
    sm90::tma_prefetch_desc(CY > 1 ? &maps.halo : &maps.tile);
    if (CY == 1)
      for (int j = 0; j < S && j < planes; ++j) issue(j);
  }
  // The only block-wide (cluster-wide) barrier before the exit: the warps run decoupled from
  // here. A cluster's CTAs load only once every peer's barriers exist.
  sm90::cluster_or_cta_sync<CY>();
  if (CY > 1 && producer)
    for (int j = 0; j < S && j < planes; ++j) issue(j);
  const int tx = lane, ty = warp;
  FwdStore<T> st;
  {
    const i64 x = blk.x0 + tx * Shape::W, y = blk.y0 + ty * V;
    const i64 left = g.nx - x;
    st.lanes = left >= Shape::W ? (g.out_vec_ok ? Shape::W + 1 : Shape::W)
                                : (left > 0 ? static_cast<int>(left) : 0);
    st.rows = 0;
#pragma unroll
    for (int i = 0; i < V; ++i)
      if (st.lanes > 0 && y + i < g.ny) st.rows |= 1 << i;
    st.base = out + (st.rows ? x + y * g.out_pitch + blk.z0 * g.out_slice : 0);
  }
  // The thread's vectors in a stage (x-split or dense).
  auto window = [&](const T* plane) {
    if constexpr (XS) {
      SplitWindow<Shape, T> w(tx, ty);
      w.s = plane;
      return w;
    } else {
      return stencil::DenseWindow<Shape, T>(plane, tx, ty, V);
    }
  };
  Lanes<T> acc[N][V];
#pragma unroll
  for (int n = 0; n < N; ++n)
#pragma unroll
    for (int i = 0; i < V; ++i)
#pragma unroll
      for (int e = 0; e < Shape::W; ++e) acc[n][i].v[e] = T(0);
  int s = 0;
  std::uint32_t phase = 0;
  for (int jb = 0; jb < planes; jb += N) {
#pragma unroll
    for (int u = 0; u < N; ++u) {  // plane j's slot is u
      const int j = jb + u;
      if (j >= planes) break;
      sm90::mbar_wait(sm90::smem_addr(&full[s]), phase);
      const auto w = window(reinterpret_cast<const T*>(smem_raw + s * STAGE));
      // The thread's centre vectors of plane j feed the z terms of planes j - R .. j + R; plane
      // j - R, then complete, is stored first, so its slot is free during the x/y terms.
      Lanes<T> c[V];
#pragma unroll
      for (int i = 0; i < V; ++i) c[i] = stencil::lds_vec(w.centre(i + R));
      add_z_terms<R, false>(acc, u, c, k);
      if (j >= 2 * R) fwd_store(st, g, static_cast<i64>(j - 2 * R) * g.out_slice, acc[(u + R) % N]);
      if (j >= R && j < planes - R) {  // an output plane: its centre, x and y terms
        Lanes<T> centre[V];
        stencil::window_accumulate<Shape, R, V>(w, k, acc[u], centre);
      }
      add_z_terms<R, true>(acc, u, c, k);
      __syncwarp();
      if (lane == 0) {
        const std::uint32_t bar = sm90::smem_addr(&empty[s]);
        sm90::mbar_arrive(bar);
        // The CTA above refills this stage's top rows too (multicast): it waits for us as well.
        if (CY > 1 && rank > 0)
          sm90::mbar_arrive_cluster(bar, static_cast<std::uint32_t>(rank - 1));
      }
      if (producer && j >= D && j - D + S < planes) {
        // Every warp has released plane j - D: its stage takes plane j - D + S.
        sm90::mbar_wait(sm90::smem_addr(&empty[(j - D) % S]),
                        static_cast<std::uint32_t>(((j - D) / S) & 1));
        issue(j - D + S);
      }
      if (++s == S) {
        s = 0;
        phase ^= 1;
      }
    }
  }
  // Peers arrive on this CTA's empty barriers up to their last plane: no CTA leaves before.
  if constexpr (CY > 1) sm90::cluster_sync();
#else
  (void)maps, (void)out, (void)g, (void)k, (void)plan;
#endif
}

template <class T, class Cfg>
gpuopt_status_t launch_typed(const StencilProblem& p, const ExecEnv& env, const char* what) {
  const StencilGrid g = stencil_grid(p);
  const StencilCoeffs<T> k = stencil_coeffs<T>(p);
  return stencil::with_radius(p.radius, [&](auto rc) -> gpuopt_status_t {
    constexpr int R = decltype(rc)::value;
    using Shape = ShapeFwd<T, R, Cfg>;
    constexpr int CY = Cfg::kParams.cluster_y > 1 ? Cfg::kParams.cluster_y : 1;
    if constexpr (!stencil::fwd_config_supported(Shape::E, R, Cfg::kParams)) {
      return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn, "%s: %s", what,
                  Cfg::kParams.x_split ? "x-split stages take r <= 6"
                                       : "clusters take r <= 4 with 128-byte aligned halo boxes");
    } else {
      // The ring plus the cluster shift and the align slack: the size can_implement checks.
      const int smem = static_cast<int>(stencil_tma3d_fwd_smem(p, Cfg::kParams));
      auto* kernel = stencil_sm90_zmarch_fwd_kernel<T, R, Cfg>;
      FwdMaps maps;
      if constexpr (Cfg::kParams.x_split) {
        GPUOPT_TRY(stencil::prepare_tma_launch(what, kernel, p, Shape::TX, Shape::ROWS, smem, env,
                                               &maps.tile));
        maps.halo = maps.mid = maps.tile;
        GPUOPT_TRY(
            stencil::encode_plane_map_or_fail(what, p, Shape::HX, Shape::ROWS, env, &maps.side));
      } else if constexpr (CY == 1) {
        GPUOPT_TRY(stencil::prepare_tma_launch(what, kernel, p, Shape::COLS, Shape::ROWS, smem, env,
                                               &maps.tile));
        maps.halo = maps.mid = maps.side = maps.tile;
      } else {
        GPUOPT_TRY(stencil::prepare_tma_launch(what, kernel, p, Shape::COLS, 2 * R, smem, env,
                                               &maps.halo));
        maps.tile = maps.mid = maps.side = maps.halo;
        if (Shape::TY > 2 * R)
          GPUOPT_TRY(stencil::encode_plane_map_or_fail(what, p, Shape::COLS, Shape::TY - 2 * R, env,
                                                       &maps.mid));
      }
      const stencil::ZmarchPlan plan =
          Cfg::kParams.chunk_planes > 0
              ? stencil::zmarch_plan_chunks(p, Shape::TX, Shape::TY, Cfg::kParams.chunk_planes, CY)
              : stencil::zmarch_plan(
                    p, Shape::TX, Shape::TY,
                    stencil::resident_blocks(kernel, Shape::THREADS, smem, env.device->sm_count),
                    Cfg::kParams.one_wave);
      if constexpr (CY == 1) {
        kernel<<<static_cast<unsigned>(plan.blocks()), Shape::THREADS, smem, env.stream>>>(
            maps, static_cast<T*>(p.out), g, k, plan);
      } else {
        cudaLaunchAttribute attr;
        cudaLaunchConfig_t cfg =
            sm90::cluster_launch_config(CY, Shape::THREADS, smem, env.stream, &attr);
        cfg.gridDim = dim3(static_cast<unsigned>(plan.blocks()));
        GPUOPT_TRY_CUDA(cudaLaunchKernelEx(&cfg, kernel, maps, static_cast<T*>(p.out), g, k, plan),
                        env.fn, (std::string(what) + " kernel launch").c_str());
      }
      return check_launch(env.fn, (std::string(what) + " kernel launch").c_str());
    }
  });
}

// Launches configuration Cfg on p (f32 or f64).
template <class Cfg>
gpuopt_status_t launch(const StencilProblem& p, const ExecEnv& env, const char* what) {
  return p.dtype == GPUOPT_DTYPE_F64 ? launch_typed<double, Cfg>(p, env, what)
                                     : launch_typed<float, Cfg>(p, env, what);
}

}  // namespace stencil_fwd
}  // namespace gpuopt
