// sm90_tma_wgmma: the persistent tile order (the skeleton's tile-order part): which output tile
// the CTA of a cluster rank computes for unit u of its sequence.
#pragma once
#include "kernels/gemm/sm90_tma_wgmma.hpp"

namespace gpuopt {
namespace sm90 {

struct TileCoord {
  int x, y, b;  // column tile (kBlockM columns), row tile (kBlockN rows), batch
};

// Unit u of the persistent order, for the CTA of cluster rank `rank`: batch-major; inside a
// batch, groups of kGroupX column tiles, each group walked column unit fastest, so the CTAs
// running together share panels in L2.
template <int kCluster>
__device__ __forceinline__ TileCoord decode_unit(int u, const Params& p, int rank) {
  constexpr int kGroupUnits = kGroupX / kCluster;
  TileCoord tc;
  tc.b = u / p.units_per_batch;
  const int r = u - tc.b * p.units_per_batch;
  const int group_units = kGroupUnits * p.tiles_y;
  const int g = r / group_units;
  const int first_x = g * kGroupUnits;
  const int width = min(p.units_x - first_x, kGroupUnits);
  const int w = r - g * group_units;
  tc.x = (first_x + w % width) * kCluster + rank;
  tc.y = w / width;
  return tc;
}

}  // namespace sm90
}  // namespace gpuopt
