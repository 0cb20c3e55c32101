// The 3D z-marching rungs' shared pieces (zmarch_sync, sm90_zmarch_tma): a block owns an xy tile
// of 32 * W x 16 outputs (r <= 4; 32 * W x 8 above) over a chunk of z-planes; each thread keeps the
// 2r + 1 centre vectors of its column (planes z - r .. z + r) in a register queue and reads x/y
// neighbours from the staged plane. The block order puts the z-chunks of one xy tile next to each
// other, so the r planes a chunk reads before and after its own are L2 hits of its neighbours.
#pragma once
#include "common/launch.hpp"
#include "kernels/stencil/stencil_tile.cuh"

namespace gpuopt {
namespace stencil {

template <class T, int R>
using Shape3d = TileShape<T, R, 1, row_groups_3d(R)>;

// Block decomposition of the grid (z-chunk fastest).
struct ZmarchPlan {
  i64 tiles_x = 1, tiles_y = 1;
  i64 chunk = 1, chunks = 1;  // planes per block, blocks along z
  bool xy_fastest = false;    // block order: xy tile fastest (else z-chunk fastest)
  i64 cluster_y = 1;          // xy_fastest: clusters of this many tiles stacked in y (tiles_y is
                              // a multiple of it; tiles past the grid store nothing)
  i64 blocks() const { return tiles_x * tiles_y * chunks; }
};

// Planes per block. Blocks run in waves of `resident` (what the device holds at once); a block
// marches chunk + 2r planes. Chooses the number of z-chunks that minimizes waves x (chunk + 2r),
// scaled up when fewer blocks than resident slots leave the machine partly idle; chunks of at
// least 16 planes (or the whole of z). one_wave: instead, as many z-chunks as fill one wave
// (at least 1): the fewest chunk boundaries (z-halo re-reads) and concurrent z streams.
inline ZmarchPlan zmarch_plan(const StencilProblem& p, int tx, int ty, i64 resident,
                              bool one_wave = false) {
  ZmarchPlan z;
  z.tiles_x = ceil_div(p.nx, tx);
  z.tiles_y = ceil_div(p.ny, ty);
  const i64 tiles = z.tiles_x * z.tiles_y;
  if (resident < 1) resident = 1;
  const i64 max_chunks = p.nz / 16 > 1 ? (p.nz / 16 < 512 ? p.nz / 16 : 512) : 1;
  double best = 0;
  if (one_wave) {
    const i64 c =
        resident / tiles < 1 ? 1 : (resident / tiles < max_chunks ? resident / tiles : max_chunks);
    z.chunk = ceil_div(p.nz, c);
  }
  for (i64 c = 1; c <= max_chunks && !one_wave; ++c) {
    const i64 chunk = ceil_div(p.nz, c);
    const i64 blocks = tiles * ceil_div(p.nz, chunk);
    const double fill = blocks < resident ? static_cast<double>(blocks) / resident : 1.0;
    const double cost =
        static_cast<double>(ceil_div(blocks, resident)) * (chunk + 2 * p.radius) / fill;
    if (c == 1 || cost < best) {
      best = cost;
      z.chunk = chunk;
    }
  }
  if (z.chunk < 1) z.chunk = 1;
  z.chunks = ceil_div(p.nz, z.chunk);
  return z;
}

// Z-chunks of at most max_planes planes (equal sizes), blocks in xy-tile-fastest order: the
// resident blocks are the xy tiles of one z range, started together, so the halo rows
// neighbouring tiles share stay in L2 between their loads (no drift over a whole-z sweep). With
// cluster_y > 1 the consecutive blocks of a cluster are tiles stacked in y.
inline ZmarchPlan zmarch_plan_chunks(const StencilProblem& p, int tx, int ty, i64 max_planes,
                                     i64 cluster_y = 1) {
  ZmarchPlan z;
  z.cluster_y = cluster_y > 1 ? cluster_y : 1;
  z.tiles_x = ceil_div(p.nx, tx);
  z.tiles_y = ceil_div(ceil_div(p.ny, ty), z.cluster_y) * z.cluster_y;
  const i64 nz = p.nz > 0 ? p.nz : 1;
  z.chunk = ceil_div(nz, ceil_div(nz, max_planes > 0 ? max_planes : nz));
  z.chunks = ceil_div(nz, z.chunk);
  z.xy_fastest = true;
  return z;
}

struct ZmarchBlock {
  i64 x0, y0, z0, z1;
};

template <class Shape>
__device__ __forceinline__ ZmarchBlock zmarch_block(const StencilGrid& g, ZmarchPlan plan) {
  const i64 b = blockIdx.x;
  ZmarchBlock blk;
  i64 zc, tx, ty;
  if (plan.xy_fastest) {  // cluster c = b / cluster_y: a column of cluster_y tiles
    const i64 c = b / plan.cluster_y, groups = plan.tiles_x * plan.tiles_y / plan.cluster_y;
    const i64 rest = c % groups;
    zc = c / groups;
    tx = rest % plan.tiles_x;
    ty = rest / plan.tiles_x * plan.cluster_y + b % plan.cluster_y;
  } else {
    const i64 rest = b / plan.chunks;
    zc = b % plan.chunks;
    tx = rest % plan.tiles_x;
    ty = rest / plan.tiles_x;
  }
  blk.x0 = tx * Shape::TX;
  blk.y0 = ty * Shape::TY;
  blk.z0 = zc * plan.chunk;
  blk.z1 = blk.z0 + plan.chunk < g.nz ? blk.z0 + plan.chunk : g.nz;
  return blk;
}

// Finishes output (x, y, z): the x/y terms of the staged plane plus the z terms of the queue
// (q[m] = centre of plane z - R + m), then the store.
template <class Shape, int R, class T>
__device__ __forceinline__ void zmarch_output(const T* plane, const Lanes<T> (&q)[2 * R + 1],
                                              T* out, const StencilGrid& g,
                                              const StencilCoeffs<T>& k, const ZmarchBlock& blk,
                                              i64 z) {
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  Lanes<T> acc[1];
  tile_compute<Shape, R, 1>(plane, tx, ty, k, acc);
#pragma unroll
  for (int o = 1; o <= R; ++o)
#pragma unroll
    for (int e = 0; e < Shape::W; ++e) {
      acc[0].v[e] = fma(coef_rt<R, 2>(k, -o), q[R - o].v[e], acc[0].v[e]);
      acc[0].v[e] = fma(coef_rt<R, 2>(k, o), q[R + o].v[e], acc[0].v[e]);
    }
  store_vec(out, g, blk.x0 + tx * Shape::W, blk.y0 + ty, z, acc[0]);
}

template <int R, class T>
__device__ __forceinline__ void queue_push(Lanes<T> (&q)[2 * R + 1], const Lanes<T>& front) {
#pragma unroll
  for (int m = 0; m < 2 * R; ++m) q[m] = q[m + 1];
  q[2 * R] = front;
}

}  // namespace stencil
}  // namespace gpuopt
