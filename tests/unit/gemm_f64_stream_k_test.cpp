// The work split of the warp-specialized f64 GEMM (src/kernels/gemm/f64_stream_k.hpp), host
// side: when the plan splits, that the units' segments cover every (tile, k tile) exactly once,
// that the parts of a shared tile are ranked in k order by increasing unit, that a part only
// ever waits for segment 0 of the unit before it (no cycle, no chain through second segments),
// and when plan_persistent turns the units over to persistent blocks.
#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "kernels/gemm/f64_stream_k.hpp"

namespace {

using gpuopt::f64mma::kStreamKMinWidth;
using gpuopt::f64mma::plan_persistent;
using gpuopt::f64mma::plan_stream_k;
using gpuopt::f64mma::Segment;
using gpuopt::f64mma::stream_k_segment;
using gpuopt::f64mma::StreamKPlan;

unsigned g_flags[1];

TEST(GemmF64StreamK, NoSplitForWholeWavesBatchesShortKOrNoFlags) {
  EXPECT_EQ(plan_stream_k(1056, 128, 1, 132, g_flags).blocks, 1056);  // 8 whole waves
  EXPECT_EQ(plan_stream_k(100, 128, 1, 132, g_flags).blocks, 100);    // less than one wave
  EXPECT_EQ(plan_stream_k(1024, 128, 2, 132, g_flags).blocks, 1024);  // batch
  EXPECT_EQ(plan_stream_k(1024, 3, 1, 132, g_flags).blocks, 1024);    // k tiles < 4
  EXPECT_EQ(plan_stream_k(1024, 128, 1, 132, nullptr).blocks, 1024);  // no workspace
  EXPECT_EQ(plan_stream_k(1024, 128, 1, 132, nullptr).sk.dp_tiles, 1024);
}

TEST(GemmF64StreamK, BenchShapesOnAnH100) {
  // 4096^3: 1024 tiles of 128 x 128, 128 k tiles: 924 whole, 100 tail tiles over 132 blocks.
  const StreamKPlan a = plan_stream_k(1024, 128, 1, 132, g_flags);
  EXPECT_EQ(a.sk.dp_tiles, 924);
  EXPECT_EQ(a.sk.width, 97);
  EXPECT_EQ(a.blocks, 924 + 132);
  // 8192^3: 4096 tiles, 256 k tiles: 4 tail tiles over 64 blocks of 16 k tiles.
  const StreamKPlan b = plan_stream_k(4096, 256, 1, 132, g_flags);
  EXPECT_EQ(b.sk.dp_tiles, 4092);
  EXPECT_EQ(b.sk.width, kStreamKMinWidth);
  EXPECT_EQ(b.blocks, 4092 + 64);
}

TEST(GemmF64StreamK, PersistentBlocksTakeTheUnitsOfOneMatrix) {
  unsigned next = 0;
  // 4096^3 on 132 SMs: 924 whole tiles + 132 stream-K units, taken by 132 blocks.
  StreamKPlan a = plan_stream_k(1024, 128, 1, 132, g_flags);
  plan_persistent(a, 1, 132, &next);
  EXPECT_EQ(a.blocks, 132);
  EXPECT_EQ(a.sk.units, 924 + 132);
  EXPECT_EQ(a.sk.next, &next);
  EXPECT_EQ(a.sk.dp_tiles, 924);  // the split itself is unchanged
  // Whole waves, no stream-K: still persistent (8 units per block).
  StreamKPlan b = plan_stream_k(1056, 128, 1, 132, g_flags);
  plan_persistent(b, 1, 132, &next);
  EXPECT_EQ(b.blocks, 132);
  EXPECT_EQ(b.sk.units, 1056);
  // One block per unit: batches, at most one unit per SM, no counter.
  struct Case {
    long long tiles, batch;
    unsigned* counter;
  };
  for (const Case& c :
       {Case{1024, 2, &next}, Case{132, 1, &next}, Case{100, 1, &next}, Case{1024, 1, nullptr}}) {
    StreamKPlan p = plan_stream_k(c.tiles, 128, c.batch, 132, g_flags);
    const long long blocks = p.blocks;
    plan_persistent(p, c.batch, 132, c.counter);
    EXPECT_EQ(p.blocks, blocks);
    EXPECT_EQ(p.sk.next, nullptr);
  }
}

TEST(GemmF64StreamK, SegmentsCoverEveryKTileOnceInOrder) {
  int split = 0;
  for (long long tiles :
       {1, 50, 77, 79, 113, 115, 131, 133, 140, 180, 230, 263, 265, 300, 397, 530}) {
    for (int kt : {1, 3, 4, 5, 10, 17, 32, 65, 128, 256}) {
      for (int sms : {78, 114, 132}) {
        const StreamKPlan p = plan_stream_k(tiles, kt, 1, sms, g_flags);
        SCOPED_TRACE(testing::Message() << tiles << " tiles, " << kt << " k tiles, " << sms);
        ASSERT_LE(p.sk.width, kt);
        if (p.sk.dp_tiles < tiles) ++split;
        ASSERT_LE(p.blocks - p.sk.dp_tiles, sms);
        std::vector<int> owner(static_cast<std::size_t>(tiles * kt),
                               -1);                          // tile * kt + k tile -> block
        std::map<int, std::vector<Segment>> parts;           // tile -> its parts
        std::map<std::pair<int, int>, int> segment_of_part;  // (tile, rank) -> block's j
        std::map<std::pair<int, int>, int> block_of_part;
        for (int b = 0; b < p.blocks; ++b) {
          Segment sg{};
          int j = 0;
          for (; stream_k_segment(p.sk, tiles, kt, b, j, sg); ++j) {
            ASSERT_LT(j, 2);
            ASSERT_LE(0, sg.kb);
            ASSERT_LT(sg.kb, sg.ke);
            ASSERT_LE(sg.ke, kt);
            for (int k = sg.kb; k < sg.ke; ++k) {
              const auto at = static_cast<std::size_t>(sg.tile) * static_cast<std::size_t>(kt) +
                              static_cast<std::size_t>(k);
              ASSERT_EQ(owner[at], -1);
              owner[at] = b;
            }
            parts[sg.tile].push_back(sg);
            segment_of_part[{sg.tile, sg.rank}] = j;
            block_of_part[{sg.tile, sg.rank}] = b;
          }
          ASSERT_GE(j, 1);
        }
        for (int b : owner) ASSERT_GE(b, 0);
        for (auto& [tile, v] : parts) {
          if (v.size() == 1) {
            EXPECT_EQ(v[0].rank, -1);
            EXPECT_EQ(v[0].kb, 0);
            EXPECT_EQ(v[0].ke, kt);
            continue;
          }
          EXPECT_GE(tile, p.sk.dp_tiles);
          for (const Segment& s : v) {
            ASSERT_GE(s.rank, 0);
            EXPECT_EQ(s.last, static_cast<int>(v.size()) - 1);
            if (s.rank == 0) {
              EXPECT_EQ(s.kb, 0);
              continue;
            }
            // The part before it in k order: segment 0 of the block before.
            const std::pair<int, int> prev{tile, s.rank - 1};
            EXPECT_EQ(block_of_part.at(prev), block_of_part.at({tile, s.rank}) - 1);
            EXPECT_EQ(segment_of_part.at(prev), 0);
          }
        }
      }
    }
  }
  EXPECT_GT(split, 50);
}

}  // namespace
