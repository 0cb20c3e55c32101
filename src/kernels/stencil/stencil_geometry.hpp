// Tile geometry of the tiled stencil rungs, host and device alike (the launchers size shared
// memory and can_implement checks it from the same formulas the kernels use).
//
// A tile is 32 * W x TY outputs (W = 16 / element size: one 16-byte vector per thread column)
// staged with its halo: COLS = 32 * W + 2 * HX (HX = r rounded up to W, so vectors stay aligned)
// by ROWS = TY + 2r elements of one z-plane.
#pragma once
#include <cstddef>

namespace gpuopt {
namespace stencil {

constexpr int kRows2d = 8;       // 2D: output rows per thread (register reuse along y)
constexpr int kRowGroups2d = 4;  // 2D: thread rows; 128 threads, 32 * W x 32 outputs per tile
// 3D: thread rows of one output row each: 16 (512 threads; y halo 2r over 16 rows) up to r = 4,
// 8 (256 threads) above, where the register queue and the ring's stages are larger.
constexpr int row_groups_3d(int r) { return r <= 4 ? 16 : 8; }
constexpr int kTmaMaxStages = 16;
constexpr int kAlignSlack = 128;   // TMA rungs: dynamic shared memory realigned to 128 bytes
constexpr int kTma3dPrefetch = 3;  // 3D TMA: planes loaded ahead of the queue's front

constexpr int vec_width(int elem) { return 16 / elem; }
constexpr int halo_x(int elem, int r) {
  return (r + vec_width(elem) - 1) / vec_width(elem) * vec_width(elem);
}
constexpr int tile_cols(int elem, int r) { return 32 * vec_width(elem) + 2 * halo_x(elem, r); }
constexpr int tile_rows(int ty, int r) { return ty + 2 * r; }
constexpr int tile_bytes(int elem, int r, int ty) {
  return tile_cols(elem, r) * tile_rows(ty, r) * elem;
}
constexpr int stage_bytes(int elem, int r, int ty) {
  return (tile_bytes(elem, r, ty) + 127) / 128 * 128;
}

// 2D TMA rungs (sm90_tma*): a configuration of the one kernel.
struct Tma2dParams {
  int ring_bytes;   // shared memory the ring may take per block
  int max_stages;   // ring stages at most (at least 1)
  bool persistent;  // false: one tile per block (grid = tiles, 1 stage)
};
// As many stages (1 .. max_stages) as fit in ring_bytes.
constexpr int tma2d_stages(int stage, const Tma2dParams& c) {
  return c.ring_bytes / stage < 1
             ? 1
             : (c.ring_bytes / stage > c.max_stages ? c.max_stages : c.ring_bytes / stage);
}
// sm90_tma: one tile per block, 1 stage (the hardware dispatches the tiles in order, so the
// resident blocks are a tight window of neighbouring tiles and their shared halos are L2 hits).
inline constexpr Tma2dParams kTma2dOneTile{0, 1, false};
// sm90_tma_ring: persistent blocks (grid stride) with 2..4 stages in about 100 KiB.
inline constexpr Tma2dParams kTma2dRing{100 * 1024, 4, true};
// 3D TMA ring: r + 1 live planes (from the centre plane, whose x/y halo is still read, to the
// queue's front) plus the prefetched ones.
constexpr int tma3d_stages(int r) { return r + 1 + kTma3dPrefetch; }

// 3D TMA rungs with forward z sums (sm90_zmarch_fwd*): a configuration of the one kernel.
struct FwdParams {
  int vmax;              // output rows per thread for r <= 4 (1 above: registers)
  int warps;             // thread rows (warps) per block
  int max_stages;        // ring stages at most
  int blocks_per_sm;     // blocks the configuration is sized for (registers, shared memory)
  bool one_wave;         // z-chunks: as many as fill one wave (else the wave cost rule)
  int refill_lag;        // a stage is refilled once every warp is this many planes on
  int chunk_planes;      // > 0: z-chunks of at most this many planes, blocks in xy-tile-fastest
                         // order (one_wave ignored); 0: the plan one_wave says
  int cluster_y;         // > 1: clusters of this many tiles stacked in y (needs chunk_planes > 0)
                         // that load the halo rows they share once, by TMA multicast
  bool x_split = false;  // the tile's TX columns and its two HX-column x halos as three boxes
                         // into three blocks of a stage (clusters of 1 only)
};
// Each block has `warps` thread rows of fwd_rows_per_thread(r) output rows; a stage is live only
// while its own plane is computed, so the ring is prefetch but for the refill lag: as many stages
// (3 .. max_stages) as fit in about 200 KiB per multiprocessor.
constexpr int fwd_rows_per_thread(int r, int vmax) { return r <= 4 ? vmax : 1; }
constexpr int fwd_tile_rows(int r, const FwdParams& c) {
  return fwd_rows_per_thread(r, c.vmax) * c.warps;
}
constexpr int fwd_stages(int stage, const FwdParams& c) {
  return 200 * 1024 / c.blocks_per_sm / stage < 3
             ? 3
             : (200 * 1024 / c.blocks_per_sm / stage > c.max_stages
                    ? c.max_stages
                    : 200 * 1024 / c.blocks_per_sm / stage);
}
// x-split stages: [interior ROWS x TX][left halo ROWS x HX][right halo ROWS x HX], each block
// dense and 128-byte aligned (TMA destinations). A whole-tile box starts HX columns before the
// tile, so its rows touch two 128-byte lines beyond the tile's; the interior box's rows are whole
// lines and the side boxes' rows one 16- to 64-byte piece each (see sm90_zmarch_fwd.cuh).
constexpr int round128(int bytes) { return (bytes + 127) / 128 * 128; }
constexpr int split_left_offset(int elem, int r, int ty) {
  return round128(tile_rows(ty, r) * 32 * vec_width(elem) * elem);
}
constexpr int split_right_offset(int elem, int r, int ty) {
  return split_left_offset(elem, r, ty) + round128(tile_rows(ty, r) * halo_x(elem, r) * elem);
}
// Stage stride of a configuration (128-byte multiples).
constexpr int fwd_stage_bytes(int elem, int r, const FwdParams& c) {
  return c.x_split ? split_right_offset(elem, r, fwd_tile_rows(r, c)) +
                         round128(tile_rows(fwd_tile_rows(r, c), r) * halo_x(elem, r) * elem)
                   : stage_bytes(elem, r, fwd_tile_rows(r, c));
}
// Clusters: CTA k of a cluster keeps its ring k * TY rows further into shared memory, so its
// stage rows [TY, TY + 2r) (the halo below its tile) sit at the same shared offset as rows
// [0, 2r) of CTA k + 1 (the halo above that tile): one multicast load fills both. The extra
// shared memory per block.
constexpr int fwd_cluster_shift_bytes(int elem, int r, const FwdParams& c) {
  return (c.cluster_y > 1 ? c.cluster_y - 1 : 0) * fwd_tile_rows(r, c) * tile_cols(elem, r) * elem;
}
// Which problems a configuration takes (the others every configuration does). Clusters: every
// box destination 128-byte aligned (stage rows 2r and TY), which the copy engine needs, and
// r <= 4 (above, the cluster's extra registers spill and nothing was measured). x-split: clusters
// of 1 and r <= 6 (at 7 and 8 the window's offsets make ptxas spill 60-150 bytes more than
// fwd_chunks does).
constexpr bool fwd_config_supported(int elem, int r, const FwdParams& c) {
  return c.x_split
             ? c.cluster_y <= 1 && r <= 6
             : c.cluster_y <= 1 || (r <= 4 && (2 * r * tile_cols(elem, r) * elem) % 128 == 0 &&
                                    (fwd_tile_rows(r, c) * tile_cols(elem, r) * elem) % 128 == 0);
}
// The rungs: sm90_zmarch_fwd (2 rows per thread, 32 * W x 32 tiles, z-chunks by the cost rule),
// sm90_zmarch_fwd_sweep (1 row, 32 * W x 16 tiles, one wave of whole-z blocks),
// sm90_zmarch_fwd_chunks (the sweep's tiles, z-chunks of 64 planes dispatched xy-tile fastest)
// sm90_zmarch_fwd_pairs (fwd_chunks' tiles in clusters of 2 stacked in y) and
// sm90_zmarch_fwd_xsplit (fwd_chunks with x-split stages).
inline constexpr FwdParams kFwdTwoRows{2, 16, 8, 1, false, 2, 0, 1};
inline constexpr FwdParams kFwdSweep{1, 16, 8, 1, true, 2, 0, 1};
inline constexpr FwdParams kFwdChunks{1, 16, 8, 1, false, 2, 64, 1};
inline constexpr FwdParams kFwdPairs{1, 16, 8, 1, false, 2, 64, 2};
inline constexpr FwdParams kFwdXsplit{1, 16, 8, 1, false, 2, 64, 1, true};

}  // namespace stencil
}  // namespace gpuopt
