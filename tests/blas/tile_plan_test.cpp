// The host-tiled pipeline's choice of order (src/host_tiled/tile_plan.hpp): the traffic model of
// docs/notes/blas.md at the bench's sizes, the parts covering C once, the limits of the panels
// order. Host only.
#include "tile_plan.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ht = gpuopt_host_tiled;

namespace {

constexpr double kGB = 1e9;

ht::PlanInput square(int64_t n, int devices, int64_t budget) {
  ht::PlanInput in;
  in.m = in.n = in.k = n;
  in.devices = devices;
  in.panel_budget = budget;
  return in;
}

// Every element of C belongs to exactly one part, and parts stay inside C.
void expect_cover(const ht::Plan& p, int64_t m, int64_t n) {
  std::vector<int> hits(static_cast<size_t>(m * n), 0);
  for (int64_t t = 0; t < ht::parts(p); ++t) {
    const ht::Rect r = ht::part_of(p, m, n, t);
    ASSERT_GE(r.i0, 0);
    ASSERT_GE(r.j0, 0);
    ASSERT_GT(r.rows, 0) << "part " << t;
    ASSERT_GT(r.cols, 0) << "part " << t;
    ASSERT_LE(r.i0 + r.rows, m);
    ASSERT_LE(r.j0 + r.cols, n);
    for (int64_t j = r.j0; j < r.j0 + r.cols; ++j)
      for (int64_t i = r.i0; i < r.i0 + r.rows; ++i) ++hits[static_cast<size_t>(i + j * m)];
  }
  for (int h : hits) ASSERT_EQ(h, 1);
}

}  // namespace

// n = 32768 f64 on host arrays, beta != 0: the tiles order packs A and B four times each; the
// panels order once each, on one GPU or two.
TEST(TilePlan, Bench32768OneAndTwoGpus) {
  const double mat = 32768.0 * 32768.0 * 8;  // 8.59 GB
  const ht::Plan tiles = ht::plan_tiles(square(32768, 1, 60'000'000'000));
  EXPECT_EQ(tiles.tiles_m * tiles.tiles_n, 16);
  EXPECT_DOUBLE_EQ(tiles.host_bytes, (4 + 4 + 1.5) * mat);

  const ht::Plan one = ht::plan_gemm(square(32768, 1, 60'000'000'000));
  ASSERT_EQ(one.order, ht::Order::kPanels);
  EXPECT_EQ(one.tile_n, 32768);
  EXPECT_EQ(one.tile_m, 2048);
  EXPECT_EQ(one.tiles_m, 16);
  EXPECT_EQ(one.devices, 1);
  EXPECT_EQ(one.panel_bytes, int64_t(32768) * 32768 * 8);
  EXPECT_DOUBLE_EQ(one.host_bytes, (1 + 1 + 1.5) * mat);
  EXPECT_DOUBLE_EQ(one.link_bytes, 3 * mat);

  const ht::Plan two = ht::plan_gemm(square(32768, 2, 60'000'000'000));
  ASSERT_EQ(two.order, ht::Order::kPanels);
  EXPECT_EQ(two.tile_n, 16384);
  EXPECT_EQ(two.tile_m, 4096);
  EXPECT_EQ(two.tiles_n, 2);
  EXPECT_EQ(two.devices, 2);
  // A is packed once for both devices: the CPU's bytes do not grow with the devices.
  EXPECT_DOUBLE_EQ(two.host_bytes, one.host_bytes);
  EXPECT_DOUBLE_EQ(two.link_bytes, 2 * mat);
  EXPECT_DOUBLE_EQ(two.flops, one.flops / 2);
  // The model: one GPU bound by its products, two by the CPU's copies at 40 GB/s.
  EXPECT_NEAR(one.seconds, 2 * 32768.0 * 32768 * 32768 / 50e12, 1e-9);
  EXPECT_NEAR(two.seconds, 3.5 * mat / 40e9, 1e-9);
  EXPECT_LT(two.seconds * 1.8, tiles.seconds);
}

TEST(TilePlan, PanelOverTheBudgetRunsInTiles) {
  const ht::Plan p = ht::plan_gemm(square(32768, 1, 8'000'000'000));  // 8.59 GB panel
  EXPECT_EQ(p.order, ht::Order::kTiles);
  ht::Plan q;
  EXPECT_FALSE(ht::plan_panels(square(32768, 1, 0), &q));
  EXPECT_TRUE(ht::plan_panels(square(32768, 2, 5'000'000'000), &q));  // 4.29 GB each
}

TEST(TilePlan, OutOfCoreFitsItsPanel) {
  // n = 60672 (the bench's out-of-core size on an 80 GB GPU): the B panel is 29.4 GB.
  const ht::Plan p = ht::plan_gemm(square(60672, 1, 70'000'000'000));
  ASSERT_EQ(p.order, ht::Order::kPanels);
  EXPECT_EQ(p.tile_m, 1106);  // 8192^2 / 60672
  const ht::Plan t = ht::plan_tiles(square(60672, 1, 0));
  EXPECT_GT(t.host_bytes, 4 * p.host_bytes);
}

TEST(TilePlan, OneTileOnOneDeviceStaysInTiles) {
  for (int64_t n : {64, 1000, 8192}) {
    const ht::Plan p = ht::plan_gemm(square(n, 1, 60'000'000'000));
    EXPECT_EQ(p.order, ht::Order::kTiles) << n;
    EXPECT_EQ(ht::parts(p), 1) << n;
  }
}

TEST(TilePlan, TwoDevicesSplitEvenASingleTile) {
  // n = 8192 is one tile: in tiles one device works; panels give both half the columns for the
  // same CPU copies.
  const ht::Plan p = ht::plan_gemm(square(8192, 2, 60'000'000'000));
  EXPECT_EQ(p.order, ht::Order::kPanels);
  EXPECT_EQ(p.devices, 2);
  EXPECT_DOUBLE_EQ(p.host_bytes, ht::plan_tiles(square(8192, 2, 0)).host_bytes);
}

TEST(TilePlan, ForcedOrders) {
  ht::PlanInput in = square(20000, 2, 60'000'000'000);
  in.order = ht::Order::kTiles;
  EXPECT_EQ(ht::plan_gemm(in).order, ht::Order::kTiles);
  in.order = ht::Order::kPanels;
  in.m = 64;  // panels still possible, though the model prefers either
  EXPECT_EQ(ht::plan_gemm(in).order, ht::Order::kPanels);
  in.panel_budget = 0;  // impossible: tiles
  EXPECT_EQ(ht::plan_gemm(in).order, ht::Order::kTiles);
}

TEST(TilePlan, ThinTilesAndLongColumnsAreRefused) {
  ht::PlanInput in = square(4096, 1, INT64_MAX);
  in.tile_mn = 96;  // 9216 elements a C tile
  in.tile_k = 40;
  in.n = 4096;  // 2 rows a tile: thinner than 16
  ht::Plan p;
  EXPECT_FALSE(ht::plan_panels(in, &p));
  in.n = 500;  // 18 rows
  EXPECT_TRUE(ht::plan_panels(in, &p));
  EXPECT_EQ(p.tile_m, 18);
  in.m = 10;  // C has fewer rows than the thinnest tile: all of them
  EXPECT_TRUE(ht::plan_panels(in, &p));
  EXPECT_EQ(p.tile_m, 10);
  in.k = 0;
  EXPECT_FALSE(ht::plan_panels(in, &p));
}

TEST(TilePlan, PageLockedAndDeviceOperandsCostNoCopies) {
  ht::PlanInput in = square(16384, 1, 60'000'000'000);
  in.a_pageable = in.b_pageable = in.c_pageable = false;
  const ht::Plan pinned = ht::plan_tiles(in);
  EXPECT_EQ(pinned.host_bytes, 0);
  EXPECT_GT(pinned.link_bytes, 0);
  in.a_device = in.b_device = in.c_device = true;
  EXPECT_EQ(ht::plan_tiles(in).link_bytes, 0);
}

TEST(TilePlan, PartsCoverCOnce) {
  for (int devices : {1, 2, 3}) {
    for (int64_t m : {1, 95, 96, 301}) {
      for (int64_t n : {1, 97, 257}) {
        ht::PlanInput in;
        in.m = m;
        in.n = n;
        in.k = 50;
        in.tile_mn = 96;
        in.tile_k = 40;
        in.devices = devices;
        in.panel_budget = INT64_MAX;
        SCOPED_TRACE(testing::Message() << "m=" << m << " n=" << n << " devices=" << devices);
        expect_cover(ht::plan_tiles(in), m, n);
        ht::Plan p;
        if (ht::plan_panels(in, &p)) {
          EXPECT_LE(p.devices, devices);
          EXPECT_LE(p.tile_m * p.tile_n, 96 * 96);
          expect_cover(p, m, n);
        }
      }
    }
  }
}

TEST(TilePlan, Describe) {
  const std::string p = ht::describe(ht::plan_gemm(square(32768, 2, 60'000'000'000)));
  EXPECT_NE(p.find("panels 4096x16384 x8 on 2 GPUs"), std::string::npos) << p;
  const std::string t = ht::describe(ht::plan_tiles(square(16384, 1, 0)));
  EXPECT_NE(t.find("tiles 8192x8192 x4 on 1 GPU,"), std::string::npos) << t;
}
