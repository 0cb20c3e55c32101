// gpuopt-bench's gemm bars (bench/gemm_bars.cpp): which rows a table's bars compare, the bars
// "best own / cublas", "best own / best vendor" and "auto ran the fastest", and that each is
// judged on the interleaved re-timing the suite recorded in the rows when there is one. No GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "bench_rows.hpp"
#include "gemm_bars.hpp"
#include "results.hpp"

namespace {

using bench::Bar;
using bench::Row;
using bench_test::gemm_row;

constexpr const char* kLabel = "gemm bf16 4096x4096x4096";

Row vendor_row(const std::string& variant, double ms) {
  Row r = gemm_row(variant, ms);
  r.is_vendor = true;
  return r;
}

Row auto_row(const std::string& ran, double ms) {
  Row r = gemm_row("auto", ms);
  r.ran_variant = ran;
  return r;
}

// The tf32 8192^3 table of the H100 run that motivated the interleaved auto bar: auto ran cublas,
// whose row (2.844 ms) came out 3.5% behind the cublaslt row (2.746 ms), and an own rung.
std::vector<Row> table() {
  std::vector<Row> rows = {gemm_row("sm90_tma_wgmma", 2.83), vendor_row("cublas", 2.844),
                           vendor_row("cublaslt", 2.746), auto_row("cublas", 2.898)};
  for (Row& r : rows) r.tflops = r.flops / (r.ms * 1e-3) / 1e12;
  return rows;
}

std::vector<const Row*> view(const std::vector<Row>& rows) {
  std::vector<const Row*> v;
  for (const Row& r : rows) v.push_back(&r);
  return v;
}

bench::GemmBarSpec spec(double own_min, bool auto_bar, bool tuned = false) {
  bench::GemmBarSpec s;
  s.label = kLabel;
  s.own_min = own_min;
  s.auto_bar = auto_bar;
  s.tuned = tuned;
  return s;
}

std::vector<Bar> bars_of(const bench::GemmBarSpec& s, const std::vector<Row>& rows) {
  std::vector<Bar> bars;
  bench::append_gemm_bars(s, view(rows), &bars);
  return bars;
}

Bar named(const std::vector<Bar>& bars, const std::string& what) {
  for (const Bar& b : bars) {
    if (b.name == std::string(kLabel) + ": " + what) return b;
  }
  ADD_FAILURE() << "no bar " << what;
  return Bar{};
}

TEST(BenchGemmBars, PicksSkipPeersFailedRowsAndAuto) {
  std::vector<Row> rows = table();
  Row peer = gemm_row("torch.matmul", 1.0);  // fastest, but another library's
  peer.is_peer = true;
  rows.push_back(peer);
  Row wrong = gemm_row("smem_tiled", 0.5);  // fast and wrong
  wrong.correct = false;
  rows.push_back(wrong);
  Row skipped = gemm_row("sm100", 0.4);
  skipped.skipped = true;
  skipped.error = "skipped: not on this device";
  rows.push_back(skipped);
  const bench::GemmPicks p = bench::pick_gemm_rows(view(rows));
  ASSERT_NE(p.best_own, nullptr);
  EXPECT_EQ(p.best_own->variant, "sm90_tma_wgmma");
  ASSERT_NE(p.cublas, nullptr);
  EXPECT_EQ(p.cublas->variant, "cublas");
  ASSERT_NE(p.vendor, nullptr);
  EXPECT_EQ(p.vendor->variant, "cublaslt");
  ASSERT_NE(p.fastest, nullptr);
  EXPECT_EQ(p.fastest->variant, "cublaslt");
  ASSERT_NE(p.autorow, nullptr);
  ASSERT_NE(p.ran, nullptr);
  EXPECT_EQ(p.ran->variant, "cublas");  // auto's forced row, not the auto row
}

TEST(BenchGemmBars, AutoRanAVariantWithoutARowReadsTheAutoRow) {
  std::vector<Row> rows = table();
  rows.back().ran_variant = "split_k";  // no forced row of it in the table
  const bench::GemmPicks p = bench::pick_gemm_rows(view(rows));
  ASSERT_NE(p.ran, nullptr);
  EXPECT_EQ(p.ran->variant, "auto");
  rows.back().correct = false;
  EXPECT_EQ(bench::pick_gemm_rows(view(rows)).ran, nullptr);
}

TEST(BenchGemmBars, BestOwnAgainstCublasAndAgainstTheBestVendor) {
  const std::vector<Bar> bars = bars_of(spec(1.0, false), table());
  ASSERT_EQ(bars.size(), 2u);
  const Bar cublas = named(bars, "best own / cublas");
  EXPECT_DOUBLE_EQ(cublas.value, 2.844 / 2.83);
  EXPECT_EQ(cublas.target, ">= 1.00");
  EXPECT_TRUE(cublas.pass);
  EXPECT_NE(cublas.note.find("vs cublas"), std::string::npos) << cublas.note;
  EXPECT_NE(cublas.note.find("(cublaslt"), std::string::npos) << cublas.note;
  const Bar vendor = named(bars, "best own / best vendor");
  EXPECT_DOUBLE_EQ(vendor.value, 2.746 / 2.83);
  EXPECT_FALSE(vendor.pass);
  EXPECT_NE(vendor.note.find("vs cublaslt"), std::string::npos) << vendor.note;
  EXPECT_EQ(vendor.note.find("interleaved"), std::string::npos) << vendor.note;
}

TEST(BenchGemmBars, OwnBarsAreJudgedOnTheInterleavedRetiming) {
  std::vector<Row> rows = table();
  rows[0].paired_ratio = 1.004;        // vs the faster vendor, interleaved
  rows[0].paired_ratio_cublas = 1.01;  // vs cublas, interleaved
  const std::vector<Bar> bars = bars_of(spec(1.0, false), rows);
  const Bar cublas = named(bars, "best own / cublas");
  EXPECT_DOUBLE_EQ(cublas.value, 1.01);
  EXPECT_NE(cublas.note.find("interleaved, rows 1.005"), std::string::npos) << cublas.note;
  const Bar vendor = named(bars, "best own / best vendor");
  EXPECT_DOUBLE_EQ(vendor.value, 1.004);
  EXPECT_TRUE(vendor.pass);
  EXPECT_NE(vendor.note.find("interleaved, rows 0.970"), std::string::npos) << vendor.note;
}

TEST(BenchGemmBars, MissingRowsFailTheirBarWithAReason) {
  std::vector<Row> rows = table();
  rows[1].error = "CUBLAS_STATUS_EXECUTION_FAILED";
  std::vector<Bar> bars = bars_of(spec(0.85, false), rows);
  EXPECT_TRUE(std::isnan(named(bars, "best own / cublas").value));
  EXPECT_FALSE(named(bars, "best own / cublas").pass);
  EXPECT_EQ(named(bars, "best own / cublas").note, "no correct cublas row");
  EXPECT_TRUE(named(bars, "best own / best vendor").pass);  // cublaslt still counts
  rows = table();
  rows[0].correct = false;
  bars = bars_of(spec(0.85, false), rows);
  EXPECT_EQ(named(bars, "best own / best vendor").note, "no correct own variant");
}

TEST(BenchGemmBars, NoOwnVariantNoOwnBarsAndTheAutoBarOnlyWhenAsked) {
  EXPECT_TRUE(bars_of(spec(bench::kNaN, false), table()).empty());
  const std::vector<Bar> bars = bars_of(spec(bench::kNaN, true), table());
  ASSERT_EQ(bars.size(), 1u);
  EXPECT_EQ(bars[0].name, std::string(kLabel) + ": auto ran the fastest");
}

TEST(BenchGemmBars, AutoBarByTheRowsWhenNotRetimed) {
  const Bar b = named(bars_of(spec(bench::kNaN, true), table()), "auto ran the fastest");
  EXPECT_DOUBLE_EQ(b.value, 2.746 / 2.844);  // the cublaslt row / auto's forced cublas row
  EXPECT_FALSE(b.pass);
  EXPECT_EQ(b.target, ">= 0.97");
  EXPECT_EQ(b.note, "auto ran cublas (2.8440 ms); fastest cublaslt (2.7460 ms)");
}

TEST(BenchGemmBars, AutoBarOnTheInterleavedRetimingWithTheRowsInTheNote) {
  std::vector<Row> rows = table();
  rows.back().paired_fastest = "cublaslt";
  rows.back().paired_ratio_fastest = 0.991;  // back to back, cublas is 1% behind
  const Bar b = named(bars_of(spec(bench::kNaN, true), rows), "auto ran the fastest");
  EXPECT_DOUBLE_EQ(b.value, 0.991);
  EXPECT_TRUE(b.pass);
  EXPECT_NE(b.note.find("; interleaved, rows 0.966"), std::string::npos) << b.note;
}

TEST(BenchGemmBars, AutoBarIgnoresARetimingAgainstAnotherVariant) {
  std::vector<Row> rows = table();
  rows.back().paired_fastest = "sm90_tma_wgmma";  // not the fastest row's variant
  rows.back().paired_ratio_fastest = 1.2;
  const Bar b = named(bars_of(spec(bench::kNaN, true), rows), "auto ran the fastest");
  EXPECT_DOUBLE_EQ(b.value, 2.746 / 2.844);
  EXPECT_EQ(b.note.find("interleaved"), std::string::npos) << b.note;
}

TEST(BenchGemmBars, AutoBarIsOneWhenAutoRanTheFastestRowsVariant) {
  std::vector<Row> rows = table();
  rows.back().ran_variant = "cublaslt";
  const Bar b = named(bars_of(spec(bench::kNaN, true), rows), "auto ran the fastest");
  EXPECT_DOUBLE_EQ(b.value, 1.0);
  EXPECT_TRUE(b.pass);
}

// With a tuning cache auto may run a configuration of the fastest row's variant (its forced row
// runs the rung's own rule): the suite re-times them, and the bar takes that even above 1.
TEST(BenchGemmBars, AutoBarTakesTheRetimingAgainstItsOwnVariantWithATuningCache) {
  std::vector<Row> rows = table();
  rows.back().ran_variant = "cublaslt";
  rows.back().paired_fastest = "cublaslt";
  rows.back().paired_ratio_fastest = 1.03;  // cublaslt:algo2, say, 3% ahead of algo0
  const Bar b = named(bars_of(spec(bench::kNaN, true, true), rows), "auto ran the fastest");
  EXPECT_DOUBLE_EQ(b.value, 1.03);
  EXPECT_TRUE(b.pass);
  rows.back().paired_ratio_fastest = 0.97;
  EXPECT_FALSE(named(bars_of(spec(bench::kNaN, true, true), rows), "auto ran the fastest").pass);
}

TEST(BenchGemmBars, WithATuningCacheTheAutoBarAsksForTwoPercent) {
  std::vector<Row> rows = table();
  rows.back().paired_fastest = "cublaslt";
  rows.back().paired_ratio_fastest = 0.975;
  const Bar b = named(bars_of(spec(bench::kNaN, true, true), rows), "auto ran the fastest");
  EXPECT_EQ(b.target, ">= 0.98 (tuning cache)");
  EXPECT_DOUBLE_EQ(b.min, 0.98);
  EXPECT_FALSE(b.pass);
}

TEST(BenchGemmBars, AutoBarFailsWhenTheAutoRowFailed) {
  std::vector<Row> rows = table();
  rows.back().error = "illegal address";
  const Bar b = named(bars_of(spec(bench::kNaN, true), rows), "auto ran the fastest");
  EXPECT_FALSE(b.pass);
  EXPECT_EQ(b.note, "the auto row failed");
}

}  // namespace

// --tune's progress line and report line name the recorded configuration after the variant.
TEST(BenchTuned, SummaryNamesTheVariantAndItsConfiguration) {
  bench::TunedProblem t;
  t.problem = "gemm bf16 8192x8192x1024";
  t.variant = "sm90_tma_wgmma";
  t.config = "coop_c2";
  t.ms = 0.21134;
  t.timed = 18;
  t.refused = 2;
  EXPECT_EQ(bench::tuned_summary(t),
            "fastest sm90_tma_wgmma:coop_c2, 0.2113 ms (18 timed, 2 refused)");
  t.config.clear();  // the rung's own rule
  EXPECT_EQ(bench::tuned_summary(t), "fastest sm90_tma_wgmma, 0.2113 ms (18 timed, 2 refused)");
}
