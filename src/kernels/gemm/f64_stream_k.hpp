// Work split of the warp-specialized f64 GEMM (f64_tensorcore_ws.cuh): which units of work (whole
// tiles, stream-K parts) there are and which blocks run them. Plain C++ (host and device) so that
// the host unit tests can check the split (tests/unit/gemm_f64_stream_k_test.cpp).
//
// With one block per SM, tiles % SMs tiles are left for a last, partial wave: at 8192^3 (4096
// tiles of 128 x 128, 132 SMs) 4 tiles run alone on 4 SMs for a whole tile time while 128 SMs idle.
// The plan keeps the full waves as they are (one block per tile) and spreads the k tiles of the
// leftover tiles evenly over up to one block per SM: the tail tiles' k tiles are laid end to end
// and unit dp_tiles + i runs k tiles [i W, (i + 1) W). W <= k_tiles, so a unit touches at most
// two tiles. The units sharing a tile add their parts into C one after the other in k order (the
// tile's flag counts the parts written), so the result does not depend on timing.
//
// Units: 0 .. dp_tiles - 1 the whole tiles (in tile order), then the stream-K units. Either one
// block per unit (block b runs unit b), or persistent blocks (one per SM, plan_persistent) that
// take units in order from a counter in the workspace: the tiles running at any time stay
// neighbours in the tile order (shared L2 panels, as with one block per tile), and a block's
// producer loads the next unit's first stages while its MMA warps store the one before.
#pragma once

#if defined(__CUDACC__)
#define GPUOPT_F64SK_HD __host__ __device__
#else
#define GPUOPT_F64SK_HD
#endif

namespace gpuopt {
namespace f64mma {

// Fewest k tiles a stream-K block runs (unless the tail has fewer per SM): below this, the
// hand-over (each part waits for the one before it) costs more than the split saves.
constexpr int kStreamKMinWidth = 16;

// Kernel argument. dp_tiles == tiles: no stream-K (flags unused).
struct StreamK {
  int dp_tiles;     // units 0 .. dp_tiles - 1: the whole tiles
  int width;        // W: k tiles per stream-K unit
  unsigned* flags;  // one per tail tile: zero before the launch and after it
  // Persistent blocks: the unit counter (zero before the launch and after it; each block takes
  // units with atomicAdd until one past the last), or nullptr: block b runs unit b.
  unsigned* next = nullptr;
  int units = 0;  // with `next`: how many units
};

// One piece of a block's work: k tiles [kb, ke) of `tile`. rank: position among the blocks that
// share the tile, in k order, or -1 when this block runs the whole tile; last: the highest rank.
struct Segment {
  int tile, kb, ke, rank, last;
};

struct StreamKPlan {
  StreamK sk;
  long long blocks;  // grid.x (plan_stream_k: one block per unit)
};

// The plan for `tiles` output tiles of `k_tiles` k tiles on `sms` SMs (one block per SM). No
// stream-K for batches, for fewer than 4 k tiles, without flags, or when the tiles fill whole
// waves (or less than one).
inline StreamKPlan plan_stream_k(long long tiles, int k_tiles, long long batch, int sms,
                                 unsigned* flags) {
  StreamKPlan p{StreamK{static_cast<int>(tiles), 1, flags}, tiles};
  if (flags == nullptr || batch != 1 || k_tiles < 4 || sms <= 0 || tiles <= sms) return p;
  const long long tail = tiles % sms;
  if (tail == 0) return p;
  const long long work = tail * k_tiles;
  long long blocks = (work + kStreamKMinWidth - 1) / kStreamKMinWidth;
  blocks = blocks < tail ? tail : (blocks > sms ? sms : blocks);  // tail <= blocks: W <= k_tiles
  const long long width = (work + blocks - 1) / blocks;
  p.sk.dp_tiles = static_cast<int>(tiles - tail);
  p.sk.width = static_cast<int>(width);
  p.blocks = p.sk.dp_tiles + (work + width - 1) / width;
  return p;
}

// Persistent blocks for plan p when the workspace holds the unit counter `next` and there is more
// than one block per SM: `sms` blocks take the p.blocks units from the counter. Batches keep one
// block per unit (grid.z runs the matrices).
inline void plan_persistent(StreamKPlan& p, long long batch, int sms, unsigned* next) {
  if (next == nullptr || batch != 1 || sms <= 0 || p.blocks <= sms) return;
  p.sk.next = next;
  p.sk.units = static_cast<int>(p.blocks);
  p.blocks = sms;
}

// Segment j of unit b: j = 0 the higher tile its k range touches, j = 1 the one below; false
// past the last. A unit runs its segments in that order. Before adding into C a part waits for
// the part before it in k order, which is always segment 0 of the unit before (b - 1): a unit
// waits only for lower units, and only for their first segment, so the waits neither cycle nor
// chain through the second segments. Lower units start first: one block per unit, blocks are
// dispatched in index order (as CUTLASS's stream-K also assumes); persistent blocks take units
// in index order, and a block runs its units in the order it took them.
GPUOPT_F64SK_HD inline bool stream_k_segment(const StreamK& sk, long long tiles, int k_tiles, int b,
                                             int j, Segment& sg) {
  if (b < sk.dp_tiles) {
    sg = Segment{b, 0, k_tiles, -1, 0};
    return j == 0;
  }
  const long long W = sk.width, KT = k_tiles, i = b - sk.dp_tiles;
  const long long beg = i * W;
  const long long end = beg + W < (tiles - sk.dp_tiles) * KT ? beg + W : (tiles - sk.dp_tiles) * KT;
  long long tl = (end - 1) / KT;  // tail tile of the range's last k tile
  long long lo = beg > tl * KT ? beg : tl * KT, hi = end;
  if (j == 1) {
    if (lo == beg) return false;
    hi = lo;
    lo = beg;
    --tl;
  } else if (j != 0) {
    return false;
  }
  const long long c0 = tl * KT / W, c1 = (tl * KT + KT - 1) / W;  // blocks sharing the tile
  sg = Segment{sk.dp_tiles + static_cast<int>(tl), static_cast<int>(lo - tl * KT),
               static_cast<int>(hi - tl * KT), c0 == c1 ? -1 : static_cast<int>(i - c0),
               static_cast<int>(c1 - c0)};
  return true;
}

}  // namespace f64mma
}  // namespace gpuopt
