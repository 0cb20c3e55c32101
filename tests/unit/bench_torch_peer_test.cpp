// gpuopt-bench's host logic for the gemm torch.matmul peer rows and the vendor figure: reading
// bench/torch_matmul.py's JSON (bench/json_read.cpp, bench/torch_peer.cpp), the rows made of it,
// the "torch.matmul ms / auto ms" bars, and the fastest vendor row as a group's vendor
// (bench/results.cpp). No GPU, no Python.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "bench_rows.hpp"
#include "json_read.hpp"
#include "results.hpp"
#include "torch_peer.hpp"

namespace {

using bench::JsonValue;

using bench_test::gemm_row;

TEST(BenchJson, ParsesTheSubsetTheHelperPrints) {
  const JsonValue v = bench::parse_json(
      " {\"a\": [1, -2.5e3, 0.125, true, false, null], \"s\": "
      "\"x\\\"y\\\\z\\n\\u00e9\\ud83d\\ude00\","
      " \"o\": {}, \"e\": []} ");
  ASSERT_EQ(v.kind, JsonValue::Kind::object);
  const JsonValue* a = v.get("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->items.size(), 6u);
  EXPECT_EQ(a->items[0].number, 1.0);
  EXPECT_EQ(a->items[1].number, -2500.0);
  EXPECT_EQ(a->items[2].number, 0.125);
  EXPECT_TRUE(a->items[3].boolean);
  EXPECT_EQ(a->items[4].kind, JsonValue::Kind::boolean);
  EXPECT_FALSE(a->items[4].boolean);
  EXPECT_EQ(a->items[5].kind, JsonValue::Kind::null);
  EXPECT_EQ(v.string_or("s", ""), "x\"y\\z\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(v.get("o")->kind, JsonValue::Kind::object);
  EXPECT_EQ(v.get("e")->kind, JsonValue::Kind::array);
  EXPECT_EQ(v.get("missing"), nullptr);
  EXPECT_EQ(v.number_or("s", 7.0), 7.0);  // a string is not a number
}

TEST(BenchJson, RejectsMalformedDocuments) {
  for (const char* bad : {"", "{", "{\"a\" 1}", "[1,]", "[1 2]", "01", "1.", "-", "\"\\x\"",
                          "\"\\ud800\"", "tru", "{} x", "\"a\nb\"", "[1e]"}) {
    EXPECT_THROW(bench::parse_json(bad), std::runtime_error) << bad;
  }
  std::string deep(100, '[');
  deep += std::string(100, ']');
  EXPECT_THROW(bench::parse_json(deep), std::runtime_error);
}

TEST(BenchTorchPeer, CaseIdNamesTheProblem) {
  EXPECT_EQ(bench::torch_case_id(gemm_row("auto", 1.0)), "bf16:4096:4096:4096:1:bf16:f32:f32");
  bench::Row batched = gemm_row("auto", 1.0);
  batched.batch = 512;
  batched.m = batched.n = batched.k = 256;
  EXPECT_EQ(bench::torch_case_id(batched), "bf16:256:256:256:512:bf16:f32:f32");
}

TEST(BenchTorchPeer, RowsFromTheHelperReport) {
  const bench::Row base = gemm_row("", bench::kNaN);
  const std::string id = bench::torch_case_id(base);
  const bench::TorchReport report = bench::parse_torch_report(
      "{\"torch\": \"2.8.0\", \"cuda\": \"12.8\", \"device\": \"NVIDIA H100\", \"cases\": ["
      "{\"case\": \"" +
      id +
      "\", \"ms\": 0.2, \"ms_min\": 0.19, \"ms_max\": 0.25, "
      "\"repeats\": 20, \"inner\": 3, \"note\": \"allow_tf32=False\"},"
      "{\"case\": \"f64:8:8:8:1:f64:f64:f64\", \"error\": \"OutOfMemoryError: no\"}]}");
  ASSERT_TRUE(report.error.empty()) << report.error;
  ASSERT_EQ(report.cases.size(), 2u);
  const bench::Row r = bench::torch_row(base, report);
  EXPECT_EQ(r.variant, "torch.matmul");
  EXPECT_TRUE(r.is_peer);
  EXPECT_FALSE(r.is_vendor);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.correct);
  EXPECT_DOUBLE_EQ(r.ms, 0.2);
  EXPECT_DOUBLE_EQ(r.ms_max, 0.25);
  EXPECT_EQ(r.inner, 3);
  EXPECT_NE(r.note.find("torch 2.8.0"), std::string::npos) << r.note;
  EXPECT_EQ(r.group_key(), base.group_key());

  bench::Row f64 = base;
  f64.dtype = f64.a_type = f64.c_type = f64.compute = "f64";
  f64.m = f64.n = f64.k = 8;
  const bench::Row failed = bench::torch_row(f64, report);
  EXPECT_TRUE(failed.failed());
  EXPECT_NE(failed.error.find("OutOfMemoryError"), std::string::npos) << failed.error;

  bench::Row other = base;
  other.m = 2048;
  EXPECT_NE(bench::torch_row(other, report).error.find("did not report"), std::string::npos);
}

TEST(BenchTorchPeer, HelperErrorsBecomeRowErrors) {
  const bench::Row base = gemm_row("", bench::kNaN);
  for (const char* out : {"{\"error\": \"torch is not importable: No module named 'torch'\"}",
                          "Traceback (most recent call last):", "", "[1, 2]", "{\"torch\": \"2\"}",
                          "{\"torch\": \"2\", \"cases\": [{\"case\": \"x\"}]}"}) {
    const bench::TorchReport report = bench::parse_torch_report(out);
    const bench::Row r = bench::torch_row(base, report);
    EXPECT_FALSE(r.error.empty()) << out;
    EXPECT_TRUE(r.failed()) << out;
  }
  EXPECT_NE(bench::parse_torch_report("{\"error\": \"torch is not importable\"}")
                .error.find("not importable"),
            std::string::npos);
}

TEST(BenchTorchPeer, BarIsTorchOverAuto) {
  bench::Results res;
  res.rows.push_back(gemm_row("cublas", 0.21));
  bench::Row autorow = gemm_row("auto", 0.20);
  autorow.ran_variant = "cublas";
  res.rows.push_back(autorow);
  bench::Row peer = gemm_row("torch.matmul", 0.19);
  peer.is_peer = true;
  res.rows.push_back(peer);
  bench::compute_torch_bars(res);
  ASSERT_EQ(res.bars.size(), 1u);
  EXPECT_EQ(res.bars[0].name, "gemm bf16 4096x4096x4096: torch.matmul ms / auto ms");
  EXPECT_NEAR(res.bars[0].value, 0.95, 1e-12);
  EXPECT_FALSE(res.bars[0].pass);
  EXPECT_NE(res.bars[0].note.find("auto (cublas)"), std::string::npos) << res.bars[0].note;

  res.bars.clear();
  res.rows[2].ms = 0.20;  // a tie passes
  bench::compute_torch_bars(res);
  ASSERT_EQ(res.bars.size(), 1u);
  EXPECT_TRUE(res.bars[0].pass);

  res.bars.clear();
  res.rows[2].error = "torch.matmul: boom";
  bench::compute_torch_bars(res);
  ASSERT_EQ(res.bars.size(), 1u);
  EXPECT_FALSE(res.bars[0].pass);
  EXPECT_TRUE(std::isnan(res.bars[0].value));
}

TEST(BenchVendor, FastestVendorRowIsTheGroupsVendor) {
  bench::Results res;
  bench::Row cublas = gemm_row("cublas", 0.22);
  cublas.is_vendor = true;
  bench::Row lt = gemm_row("cublaslt", 0.20);
  lt.is_vendor = true;
  bench::Row broken = gemm_row("cublaslt_wrong", 0.01);  // fast but wrong: not the yardstick
  broken.is_vendor = true;
  broken.correct = false;
  res.rows = {cublas, gemm_row("sm90_tma_wgmma", 0.25), lt, broken};
  bench::finish_rows(res);
  for (const bench::Row& r : res.rows) {
    EXPECT_EQ(r.vendor, "cublaslt") << r.variant;
    EXPECT_DOUBLE_EQ(r.vendor_ms, 0.20);
  }
  EXPECT_DOUBLE_EQ(res.rows[1].ratio_to_vendor, 0.8);
}

}  // namespace
