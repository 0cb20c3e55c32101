// gpuopt-bench's host logic for the gemm torch.matmul peer rows and the vendor figure: reading
// bench/torch_matmul.py's JSON (bench/json_read.cpp, bench/torch_peer.cpp), the rows made of it,
// the "torch.matmul ms / auto ms" bars (from the helper's in-process torch / gpuopt auto pair when
// it timed one, else from the auto row), and the fastest vendor row as a group's vendor
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

// The helper's report of a case timed interleaved with gpuopt's auto in its process.
std::string interleaved_report(const std::string& id, const std::string& extra) {
  return "{\"torch\": \"2.8.0\", \"cuda\": \"12.8\", \"device\": \"NVIDIA H100\", "
         "\"gpuopt\": \"0.1.0\", \"gpuopt_library\": \"/b/libgpuopt.so.0\", \"cases\": ["
         "{\"case\": \"" +
         id +
         "\", \"method\": \"interleaved\", \"ms\": 0.2, \"ms_min\": 0.19, "
         "\"ms_max\": 0.25, \"repeats\": 20, \"inner\": 3, \"gpuopt_ms\": 0.19, "
         "\"gpuopt_ms_min\": 0.185, \"gpuopt_ms_max\": 0.2, \"gpuopt_variant\": \"cublas\", "
         "\"gpuopt_rel_err\": 1e-6, \"gpuopt_rel_bound\": 1e-3" +
         extra + "}]}";
}

TEST(BenchTorchPeer, InterleavedPairIsRead) {
  const bench::Row base = gemm_row("", bench::kNaN);
  const bench::TorchReport report =
      bench::parse_torch_report(interleaved_report(bench::torch_case_id(base), ""));
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_EQ(report.gpuopt, "0.1.0");
  EXPECT_EQ(report.gpuopt_library, "/b/libgpuopt.so.0");
  ASSERT_EQ(report.cases.size(), 1u);
  const bench::TorchCase& c = report.cases[0];
  EXPECT_EQ(c.method, "interleaved");
  EXPECT_DOUBLE_EQ(c.gpuopt_ms, 0.19);
  EXPECT_DOUBLE_EQ(c.gpuopt_ms_max, 0.2);
  EXPECT_EQ(c.gpuopt_variant, "cublas");
  EXPECT_FALSE(c.gpuopt_wrong);
  const bench::Row r = bench::torch_row(base, report);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_DOUBLE_EQ(r.ms, 0.2);
  EXPECT_EQ(r.peer_method, "interleaved");
  EXPECT_DOUBLE_EQ(r.peer_auto_ms, 0.19);
  EXPECT_EQ(r.peer_auto_variant, "cublas");
  EXPECT_DOUBLE_EQ(r.peer_auto_rel_err, 1e-6);
  EXPECT_NE(r.note.find("interleaved with gpuopt auto (cublas"), std::string::npos) << r.note;

  // An interleaved case without gpuopt's time, or an unknown method, is malformed.
  for (const char* bad : {"{\"case\": \"x\", \"method\": \"interleaved\", \"ms\": 1}",
                          "{\"case\": \"x\", \"method\": \"psychic\", \"ms\": 1}"}) {
    const bench::TorchReport b =
        bench::parse_torch_report(std::string("{\"torch\": \"2\", \"cases\": [") + bad + "]}");
    ASSERT_EQ(b.cases.size(), 1u);
    EXPECT_FALSE(b.cases[0].error.empty()) << bad;
  }
}

TEST(BenchTorchPeer, StandaloneCaseSaysWhyNotInterleaved) {
  const bench::Row base = gemm_row("", bench::kNaN);
  // Without "method" (an older helper) a case is standalone; the run-wide reason is the note's.
  const bench::TorchReport report = bench::parse_torch_report(
      "{\"torch\": \"2.8.0\", \"cuda\": \"12.8\", \"gpuopt_error\": \"the gpuopt binding "
      "is not importable (ModuleNotFoundError: no gpuopt)\", \"cases\": [{\"case\": \"" +
      bench::torch_case_id(base) + "\", \"ms\": 0.2}]}");
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_NE(report.gpuopt_error.find("not importable"), std::string::npos);
  const bench::Row r = bench::torch_row(base, report);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.peer_method, "standalone");
  EXPECT_TRUE(std::isnan(r.peer_auto_ms));
  EXPECT_NE(r.peer_auto_error.find("not importable"), std::string::npos) << r.peer_auto_error;
  EXPECT_NE(r.note.find("timed alone (the gpuopt binding"), std::string::npos) << r.note;
}

// A table's auto row, cublas row and torch.matmul peer row made of the helper's report.
bench::Results peer_table(const std::string& helper_json, double auto_row_ms) {
  bench::Results res;
  res.rows.push_back(gemm_row("cublas", 0.21));
  bench::Row autorow = gemm_row("auto", auto_row_ms);
  autorow.ran_variant = "cublas";
  res.rows.push_back(autorow);
  res.rows.push_back(
      bench::torch_row(gemm_row("", bench::kNaN), bench::parse_torch_report(helper_json)));
  return res;
}

TEST(BenchTorchPeer, BarUsesTheInProcessPair) {
  const std::string id = bench::torch_case_id(gemm_row("", bench::kNaN));
  // The auto row (another process, 0.21 ms) would give 0.952; the pair gives 0.2 / 0.19.
  bench::Results res = peer_table(interleaved_report(id, ""), 0.21);
  bench::compute_torch_bars(res);
  ASSERT_EQ(res.bars.size(), 1u);
  EXPECT_EQ(res.bars[0].name, "gemm bf16 4096x4096x4096: torch.matmul ms / auto ms");
  EXPECT_NEAR(res.bars[0].value, 0.2 / 0.19, 1e-12);
  EXPECT_TRUE(res.bars[0].pass);
  EXPECT_NE(res.bars[0].note.find("interleaved in one process"), std::string::npos)
      << res.bars[0].note;
  EXPECT_NE(res.bars[0].note.find("torch / it 0.952"), std::string::npos) << res.bars[0].note;

  // The pair holds even when the bench's own auto row failed.
  res = peer_table(interleaved_report(id, ""), 0.21);
  res.rows[1].error = "boom";
  bench::compute_torch_bars(res);
  ASSERT_EQ(res.bars.size(), 1u);
  EXPECT_TRUE(res.bars[0].pass);

  // The in-process auto ran another variant than the auto row: the note says so.
  res = peer_table(interleaved_report(id, ""), 0.21);
  res.rows[1].ran_variant = "sm90_tma_wgmma";
  bench::compute_torch_bars(res);
  ASSERT_EQ(res.bars.size(), 1u);
  EXPECT_NE(res.bars[0].note.find("the in-process auto ran cublas, the auto row sm90_tma_wgmma"),
            std::string::npos)
      << res.bars[0].note;
}

TEST(BenchTorchPeer, WrongInProcessGpuoptFailsTheBar) {
  const std::string id = bench::torch_case_id(gemm_row("", bench::kNaN));
  // The helper found gpuopt's result off and timed torch alone; the auto row alone would pass.
  const std::string json =
      "{\"torch\": \"2.8.0\", \"cuda\": \"12.8\", \"gpuopt\": \"0.1.0\", \"cases\": "
      "[{\"case\": \"" +
      id +
      "\", \"method\": \"standalone\", \"ms\": 0.3, \"gpuopt_wrong\": true, "
      "\"gpuopt_error\": \"gpuopt's result differs from torch's: max rel err 0.5 > 1e-03\"}]}";
  bench::Results res = peer_table(json, 0.2);
  EXPECT_TRUE(res.rows[2].peer_auto_wrong);
  bench::compute_torch_bars(res);
  ASSERT_EQ(res.bars.size(), 1u);
  EXPECT_FALSE(res.bars[0].pass);
  EXPECT_TRUE(std::isnan(res.bars[0].value));
  EXPECT_NE(res.bars[0].note.find("differs from torch's"), std::string::npos) << res.bars[0].note;
}

TEST(BenchTorchPeer, StandaloneFallsBackToTheAutoRow) {
  const std::string id = bench::torch_case_id(gemm_row("", bench::kNaN));
  bench::Results res =
      peer_table("{\"torch\": \"2.8.0\", \"cuda\": \"12.8\", \"cases\": [{\"case\": \"" + id +
                     "\", \"method\": \"standalone\", \"ms\": 0.3, \"gpuopt_error\": \"gpuopt: "
                     "GpuoptError: GPUOPT_ERROR_UNSUPPORTED\"}]}",
                 0.2);
  bench::compute_torch_bars(res);
  ASSERT_EQ(res.bars.size(), 1u);
  EXPECT_NEAR(res.bars[0].value, 1.5, 1e-12);
  EXPECT_NE(res.bars[0].note.find("separate processes"), std::string::npos) << res.bars[0].note;
  EXPECT_NE(res.bars[0].note.find("UNSUPPORTED"), std::string::npos) << res.bars[0].note;
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
