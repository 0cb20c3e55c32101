// The sm90 GEMM rung's stream-K gate (sm90::stream_k_units, docs/notes/gemm-sm90.md "Stream-K
// tail"): which launches cut their partial last wave into k ranges, on the measured shapes and
// at the gate's edges.
#include <gtest/gtest.h>

#include "kernels/gemm/sm90_tma_wgmma.hpp"

namespace {

using gpuopt::sm90::Params;
using gpuopt::sm90::stream_k_units;

float g_partials[1];
unsigned g_flags[1];

// Default parameters with both workspaces.
Params with_workspaces() {
  Params p{};
  p.partials = g_partials;
  p.flags = g_flags;
  return p;
}

// A launch's parameters: `units` units of `k_blocks` k blocks, with workspaces.
Params params(int units, int k_blocks) {
  Params p = with_workspaces();
  p.total_units = units;
  p.k_blocks = k_blocks;
  return p;
}

TEST(GemmSm90StreamK, MeasuredShapesOnAnH100) {
  // 66 clusters of 2. bf16 8192^3: 1024 units of 128 k blocks, a last wave of 34: stream-K
  // (measured +2.6%; tf32, 256 k blocks of 32, +3.6%).
  EXPECT_EQ(stream_k_units(params(1024, 128), 66), 34);
  EXPECT_EQ(stream_k_units(params(1024, 256), 66), 34);
  // 4096^3: 256 units, a last wave of 58 leaving 8 clusters idle for 7.8 (bf16) or 15.5 (tf32)
  // k blocks: less than the partials cost (measured 0.967 and 0.995): data-parallel.
  EXPECT_EQ(stream_k_units(params(256, 64), 66), 0);
  EXPECT_EQ(stream_k_units(params(256, 128), 66), 0);
}

TEST(GemmSm90StreamK, GateEdges) {
  // Whole waves, or fewer units than clusters: nothing to even out.
  EXPECT_EQ(stream_k_units(params(132, 512), 66), 0);
  EXPECT_EQ(stream_k_units(params(65, 512), 66), 0);
  EXPECT_EQ(stream_k_units(params(66, 512), 66), 0);
  // A last wave below a quarter of the clusters (a tile would span more than 5 ranges).
  EXPECT_EQ(stream_k_units(params(66 + 16, 512), 66), 0);
  EXPECT_EQ(stream_k_units(params(66 + 17, 512), 66), 17);
  // Idle k blocks per cluster (clusters - rest) x k_blocks / clusters at the minimum: 32.
  EXPECT_EQ(stream_k_units(params(100, 66), 66), 34);  // 32 x 66 / 66 = 32
  EXPECT_EQ(stream_k_units(params(100, 65), 66), 0);   // 31.5
  // No workspace (no partials or no flags): data-parallel.
  Params p = params(1024, 128);
  p.partials = nullptr;
  EXPECT_EQ(stream_k_units(p, 66), 0);
  p = params(1024, 128);
  p.flags = nullptr;
  EXPECT_EQ(stream_k_units(p, 66), 0);
  EXPECT_EQ(stream_k_units(params(1024, 128), 0), 0);
}

TEST(GemmSm90StreamK, DefaultParamsHaveNoTail) {
  const Params p{};
  EXPECT_EQ(p.sk_units, 0);
  EXPECT_EQ(p.partials, nullptr);
  EXPECT_EQ(p.flags, nullptr);
}

}  // namespace
