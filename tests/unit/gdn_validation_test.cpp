// GDN without a device: the descriptor check (every bad field answers its status and names the
// field), the workspace layouts (aligned, disjoint, saturating), the dispatch decision for
// synthetic devices, and NULL handles on the three entry points.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "api/gdn_desc.hpp"
#include "kernels/gdn/gdn.hpp"
#include "runtime/device.hpp"
#include "runtime/registry.hpp"
#include "test_support.hpp"

namespace {

constexpr const char* kFn = "gpuopt_gdn_forward";

gpuopt_gdn_desc_t good() {
  gpuopt_gdn_desc_t d{};
  d.struct_size = sizeof d;
  d.batch = 2;
  d.channels = 16;
  d.height = 5;
  d.width = 7;
  return d;
}

void expect_refused(const gpuopt_gdn_desc_t& d, gpuopt_status_t status, const char* field) {
  gpuopt::GdnShape s;
  EXPECT_EQ(gpuopt::gdn_read_desc(kFn, &d, &s), status) << field;
  const std::string msg = unit::last_message();
  EXPECT_NE(msg.find(kFn), std::string::npos) << msg;
  EXPECT_TRUE(unit::has_word(msg, field)) << "does not name " << field << ": " << msg;
}

// The variant auto dispatch picks for p on dev (f32 data), "" when none accepts (a failure).
std::string chosen(const gpuopt::GdnProblem& p, const gpuopt::DeviceDesc& dev) {
  int count = 0;
  const auto* table = gpuopt::gdn_variants(&count);
  const gpuopt::Choice c =
      gpuopt::choose_variant(table, count, p, GPUOPT_DTYPE_F32, dev, -1, false);
  EXPECT_GE(c.index, 0) << c.reason;
  return c.index >= 0 ? table[c.index].meta.name : "";
}

TEST(GdnDesc, AcceptsGoodAndComputesShape) {
  gpuopt::GdnShape s;
  gpuopt_gdn_desc_t d = good();
  ASSERT_EQ(gpuopt::gdn_read_desc(kFn, &d, &s), GPUOPT_SUCCESS);
  EXPECT_EQ(s.pixels, 35);
  EXPECT_EQ(s.total, 2 * 16 * 35);
  for (gpuopt_compute_t c : {GPUOPT_COMPUTE_DEFAULT, GPUOPT_COMPUTE_F32, GPUOPT_COMPUTE_TF32}) {
    d.compute = c;
    EXPECT_EQ(gpuopt::gdn_read_desc(kFn, &d, &s), GPUOPT_SUCCESS);
  }
  d = good();
  d.batch = 0;
  d.height = 0;
  ASSERT_EQ(gpuopt::gdn_read_desc(kFn, &d, &s), GPUOPT_SUCCESS);
  EXPECT_EQ(s.total, 0);
}

TEST(GdnDesc, RefusesEachBadField) {
  gpuopt::GdnShape s;
  EXPECT_EQ(gpuopt::gdn_read_desc(kFn, nullptr, &s), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "desc"));
  gpuopt_gdn_desc_t d = good();
  d.struct_size = 8;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "struct_size");
  d = good();
  d.batch = -1;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "batch");
  d = good();
  d.channels = 0;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "channels");
  d = good();
  d.height = -3;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "height");
  d = good();
  d.width = -1;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "width");
  d = good();
  d.inverse = 2;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "inverse");
  for (int c : {3, 7, -1}) {
    d = good();
    d.compute = static_cast<gpuopt_compute_t>(c);
    expect_refused(d, GPUOPT_ERROR_UNSUPPORTED, "compute");
  }
  d = good();
  d.batch = INT64_C(1) << 40;
  d.height = INT64_C(1) << 20;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "batch");
  d = good();
  d.channels = INT64_C(1) << 31;
  d.batch = 0;
  expect_refused(d, GPUOPT_ERROR_INVALID_ARGUMENT, "channels");
}

TEST(GdnWorkspace, LayoutsAreAlignedAndCoverThePieces) {
  const std::int64_t n = 3, c = 17, p = 5000;
  const auto fwd = gpuopt::gdn_workspace_bytes(GPUOPT_GDN_FORWARD, n, c, p);
  const auto bwd = gpuopt::gdn_workspace_bytes(GPUOPT_GDN_BACKWARD, n, c, p);
  EXPECT_GE(fwd, static_cast<std::size_t>(n * c * p * 4));
  EXPECT_GE(bwd, static_cast<std::size_t>(2 * n * c * p * 4));
  EXPECT_EQ(fwd % 256, 0u);
  EXPECT_EQ(bwd % 256, 0u);
  const auto f = gpuopt::gdn_fused_layout(GPUOPT_GDN_BACKWARD, n, c, p);
  EXPECT_EQ(f.bpart % 256, 0u);
  EXPECT_EQ(f.dgpart % 256, 0u);
  EXPECT_GE(f.bpart, static_cast<std::size_t>(n * c * p * 4));
  const std::size_t chunks = (p + gpuopt::kGdnDgammaChunk - 1) / gpuopt::kGdnDgammaChunk;
  EXPECT_GE(f.total - f.dgpart, n * chunks * c * c * 4);
  // the split gamma^T and gamma of sm90_onepass_fused: 2 x C x 3 * ceil32(C) floats (f32)
  EXPECT_GE(f.total - f.gsplit, static_cast<std::size_t>(2 * c * 3 * 32 * 4));
  EXPECT_LE(f.total, bwd);
  // forward: the split gamma of sm90_wgmma_fused, C x 3 * ceil32(C) floats
  const auto ff = gpuopt::gdn_fused_layout(GPUOPT_GDN_FORWARD, n, c, p);
  EXPECT_EQ(ff.gsplit, 0u);
  EXPECT_GE(ff.total, static_cast<std::size_t>(c * 3 * 32 * 4));
  EXPECT_LE(ff.total, fwd);
  const auto fc = gpuopt::gdn_fused_layout(GPUOPT_GDN_FORWARD, 1, 300, 4);  // larger than x^2
  EXPECT_EQ(fc.total, static_cast<std::size_t>(300 * 3 * 320 * 4));
  EXPECT_EQ(gpuopt::gdn_workspace_bytes(GPUOPT_GDN_FORWARD, 1, 300, 4), fc.total);
  EXPECT_EQ(gpuopt::gdn_workspace_bytes(GPUOPT_GDN_BACKWARD, 0, c, p), 0u);
  // absurd shapes saturate rather than wrap
  EXPECT_EQ(gpuopt::gdn_workspace_bytes(GPUOPT_GDN_BACKWARD, INT64_C(1) << 40, INT64_C(1) << 20,
                                        INT64_C(1) << 20),
            SIZE_MAX);
}

// f32 forward on sm_90: sm80_mma_fused's persistent kernel where it fits (C = 256, H * W a
// multiple of 128; issue 19, H100, N = 32, C = 256, 64 x 64, one process: 0.2444 ms with its
// 3xTF32 corrections as one bf16 mma vs composed 0.6273, 2.57x; sm90_wgmma_fused ran 0.2926-0.2962
// in the benches), else sm90_wgmma_fused where H * W is a multiple of 4, else
// sm80_mma_fused; sm90_wgmma_fused ranks below sm80_mma_fused for the tf32 forward pass and above
// everything for the backward pass.
TEST(GdnDispatch, FusedOnSm80AndSm90ExceptTf32Backward) {
  int count = 0;
  const auto* table = gpuopt::gdn_variants(&count);
  ASSERT_EQ(count, 4);
  gpuopt::GdnProblem p;
  p.n = 32;
  p.c = 256;
  p.p = 4096;
  const struct {
    int cc;
    const char* want;
  } rows[] = {{75, "composed"},
              {80, "sm80_mma_fused"},
              {86, "composed"},
              {89, "composed"},
              {90, "sm80_mma_fused"}};
  for (const auto& r : rows) {
    const gpuopt::DeviceDesc dev = gpuopt::synthetic_device(r.cc, 100);
    const bool sm90 = r.cc == 90;
    EXPECT_EQ(chosen(p, dev), r.want) << "cc " << r.cc;
    gpuopt::GdnProblem part = p;  // H * W % 128 != 0: no persistent kernel
    part.p = 4092;
    EXPECT_EQ(chosen(part, dev), sm90 ? "sm90_wgmma_fused" : r.want) << "H * W = 4092, cc " << r.cc;
    part.p = 4096;
    part.c = 252;  // C != 256: no persistent kernel
    EXPECT_EQ(chosen(part, dev), sm90 ? "sm90_wgmma_fused" : r.want) << "C = 252, cc " << r.cc;
    gpuopt::GdnProblem tf = p;  // tf32 forward: fused (faster than sm90_wgmma_fused, run 7)
    tf.tf32 = true;
    EXPECT_EQ(chosen(tf, dev), r.want) << "tf32 forward, cc " << r.cc;
    gpuopt::GdnProblem odd = p;
    odd.p = 4095;
    EXPECT_EQ(chosen(odd, dev), r.want) << "H * W = 4095, cc " << r.cc;
    gpuopt::GdnProblem b = p;
    b.pass = GPUOPT_GDN_BACKWARD;
    // f32 backward on sm_90 (H * W % 4 == 0, C <= 256): sm90_onepass_fused (H100, round 15)
    EXPECT_EQ(chosen(b, dev), sm90 ? "sm90_onepass_fused" : r.want) << "backward, cc " << r.cc;
    gpuopt::GdnProblem wide32 = b;  // C > 256: sm90_wgmma_fused (H100, run 10)
    wide32.c = 300;
    EXPECT_EQ(chosen(wide32, dev), sm90 ? "sm90_wgmma_fused" : r.want)
        << "f32 backward C = 300, cc " << r.cc;
    b.tf32 = true;  // tf32 backward: composed, except sm90_onepass_fused on sm_90 (round 13)
    EXPECT_EQ(chosen(b, dev), sm90 ? "sm90_onepass_fused" : "composed")
        << "tf32 backward, cc " << r.cc;
    gpuopt::GdnProblem wide = b;  // C > 256: the one-pass kernel's tile cannot hold it
    wide.c = 300;
    EXPECT_EQ(chosen(wide, dev), sm90 ? "sm90_wgmma_fused" : "composed")
        << "tf32 backward C = 300, cc " << r.cc;
    b.p = 4095;  // odd pixel count: the rules without sm90_wgmma_fused
    EXPECT_EQ(chosen(b, dev), "composed") << "tf32 backward, cc " << r.cc;
    b.tf32 = false;
    EXPECT_EQ(chosen(b, dev), r.want) << "backward 4095, cc " << r.cc;
  }
  const gpuopt::Choice f64 = gpuopt::choose_variant(table, count, p, GPUOPT_DTYPE_F64,
                                                    gpuopt::synthetic_device(90, 132), -1, false);
  EXPECT_LT(f64.index, 0);
}

TEST(GdnEntryPoints, NullContextIsInvalidHandle) {
  gpuopt_gdn_desc_t d = good();
  size_t bytes = 0;
  EXPECT_EQ(gpuopt_gdn_workspace_size(nullptr, &d, GPUOPT_GDN_FORWARD, &bytes),
            GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "ctx"));
  EXPECT_EQ(
      gpuopt_gdn_forward(nullptr, nullptr, &d, nullptr, nullptr, nullptr, nullptr, nullptr, 0),
      GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_NE(unit::last_message().find("gpuopt_gdn_forward"), std::string::npos);
  EXPECT_EQ(gpuopt_gdn_backward(nullptr, nullptr, &d, nullptr, nullptr, nullptr, nullptr, nullptr,
                                nullptr, nullptr, nullptr, 0),
            GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_NE(unit::last_message().find("gpuopt_gdn_backward"), std::string::npos);
}

}  // namespace
