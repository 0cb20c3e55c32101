// gpuopt_stencil argument validation (host only, no device): every bad field of the descriptor
// and bad pointer arithmetic answered with a status and a message naming the argument; and the
// dispatch decisions for synthetic devices through the real variant table. Pointers are fake
// addresses: neither validation nor dispatch dereferences them.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/stencil/stencil.hpp"
#include "runtime/device.hpp"
#include "runtime/registry.hpp"
#include "test_support.hpp"

namespace {

const std::vector<double> kCoeffs(1 + 3 * 2 * GPUOPT_STENCIL_MAX_RADIUS, 0.5);
const void* const kIn = reinterpret_cast<const void*>(0x7f0000100000);
void* const kOut = reinterpret_cast<void*>(0x7f0010100000);

gpuopt_stencil_desc_t good(int dims = 2) {
  gpuopt_stencil_desc_t d{};
  d.struct_size = sizeof d;
  d.dtype = GPUOPT_DTYPE_F32;
  d.dims = dims;
  d.radius = 4;
  d.boundary = GPUOPT_BOUNDARY_ZERO;
  d.nx = 100;
  d.ny = 50;
  d.nz = dims == 3 ? 20 : 1;
  d.in_pitch = d.out_pitch = 128;
  d.in_slice_pitch = d.out_slice_pitch = 128 * 50;
  d.coeffs = kCoeffs.data();
  return d;
}

gpuopt_status_t prepare(const gpuopt_stencil_desc_t* d, const void* in = kIn, void* out = kOut) {
  gpuopt::StencilProblem p;
  std::size_t ib = 0, ob = 0;
  return gpuopt::stencil_prepare(d, in, out, &p, &ib, &ob);
}

struct BadCase {
  const char* what;
  std::function<void(gpuopt_stencil_desc_t&)> edit;
  gpuopt_status_t status;
  const char* word;  // the message names it
};

TEST(StencilValidation, BadFieldsNamed) {
  const std::vector<BadCase> cases = {
      {"struct_size", [](gpuopt_stencil_desc_t& d) { d.struct_size = 8; },
       GPUOPT_ERROR_INVALID_ARGUMENT, "desc->struct_size"},
      {"dtype enum", [](gpuopt_stencil_desc_t& d) { d.dtype = static_cast<gpuopt_dtype_t>(99); },
       GPUOPT_ERROR_INVALID_ARGUMENT, "desc->dtype"},
      {"dtype i32", [](gpuopt_stencil_desc_t& d) { d.dtype = GPUOPT_DTYPE_I32; },
       GPUOPT_ERROR_UNSUPPORTED, "desc->dtype"},
      {"dims 1", [](gpuopt_stencil_desc_t& d) { d.dims = 1; }, GPUOPT_ERROR_INVALID_ARGUMENT,
       "desc->dims"},
      {"dims 4", [](gpuopt_stencil_desc_t& d) { d.dims = 4; }, GPUOPT_ERROR_INVALID_ARGUMENT,
       "desc->dims"},
      {"radius 0", [](gpuopt_stencil_desc_t& d) { d.radius = 0; }, GPUOPT_ERROR_INVALID_ARGUMENT,
       "desc->radius"},
      {"radius 9", [](gpuopt_stencil_desc_t& d) { d.radius = 9; }, GPUOPT_ERROR_INVALID_ARGUMENT,
       "desc->radius"},
      {"boundary", [](gpuopt_stencil_desc_t& d) { d.boundary = static_cast<gpuopt_boundary_t>(7); },
       GPUOPT_ERROR_INVALID_ARGUMENT, "desc->boundary"},
      {"coeffs", [](gpuopt_stencil_desc_t& d) { d.coeffs = nullptr; },
       GPUOPT_ERROR_INVALID_ARGUMENT, "desc->coeffs"},
      {"nx < 0", [](gpuopt_stencil_desc_t& d) { d.nx = -1; }, GPUOPT_ERROR_INVALID_ARGUMENT,
       "desc->nx"},
      {"ny < 0", [](gpuopt_stencil_desc_t& d) { d.ny = -3; }, GPUOPT_ERROR_INVALID_ARGUMENT,
       "desc->nx"},
      {"nz 2 in 2D", [](gpuopt_stencil_desc_t& d) { d.nz = 2; }, GPUOPT_ERROR_INVALID_ARGUMENT,
       "desc->nz"},
      {"in_pitch < nx", [](gpuopt_stencil_desc_t& d) { d.in_pitch = 99; },
       GPUOPT_ERROR_INVALID_ARGUMENT, "desc->in_pitch"},
      {"out_pitch < nx", [](gpuopt_stencil_desc_t& d) { d.out_pitch = 10; },
       GPUOPT_ERROR_INVALID_ARGUMENT, "desc->out_pitch"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.what);
    gpuopt_stencil_desc_t d = good();
    c.edit(d);
    EXPECT_EQ(prepare(&d), c.status);
    const std::string msg = unit::last_message();
    EXPECT_NE(msg.find("gpuopt_stencil"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.word), std::string::npos) << msg;
  }
}

TEST(StencilValidation, SlicePitches3d) {
  gpuopt_stencil_desc_t d = good(3);
  EXPECT_EQ(prepare(&d), GPUOPT_SUCCESS);
  d.in_slice_pitch = 128 * 50 - 1;
  EXPECT_EQ(prepare(&d), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "desc->in_slice_pitch")) << unit::last_message();
  d = good(3);
  d.out_slice_pitch = 0;
  EXPECT_EQ(prepare(&d), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "desc->out_slice_pitch"))
      << unit::last_message();
  // 2D ignores the slice pitches.
  d = good(2);
  d.in_slice_pitch = 0;
  EXPECT_EQ(prepare(&d), GPUOPT_SUCCESS);
}

TEST(StencilValidation, PointersAndOverlap) {
  const gpuopt_stencil_desc_t d = good();
  EXPECT_EQ(prepare(nullptr), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "desc")) << unit::last_message();
  EXPECT_EQ(prepare(&d, nullptr, kOut), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "in")) << unit::last_message();
  EXPECT_EQ(prepare(&d, kIn, nullptr), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "out")) << unit::last_message();
  auto* in_bytes = static_cast<const unsigned char*>(kIn);
  EXPECT_EQ(prepare(&d, in_bytes + 2, kOut), GPUOPT_ERROR_MISALIGNED);
  // out starts inside in's span (49 rows of 128 + 100 elements).
  EXPECT_EQ(prepare(&d, kIn, const_cast<unsigned char*>(in_bytes) + 4 * 128 * 10),
            GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "overlap")) << unit::last_message();
  // Right after in's span: fine.
  EXPECT_EQ(prepare(&d, kIn, const_cast<unsigned char*>(in_bytes) + 4 * (49 * 128 + 100)),
            GPUOPT_SUCCESS);
}

TEST(StencilValidation, EmptyGridsAndOverflow) {
  gpuopt::StencilProblem p;
  std::size_t ib = 1, ob = 1;
  gpuopt_stencil_desc_t d = good();
  d.nx = 0;
  EXPECT_EQ(gpuopt::stencil_prepare(&d, nullptr, nullptr, &p, &ib, &ob), GPUOPT_SUCCESS);
  EXPECT_EQ(ib, 0u);
  d = good(2);
  d.nz = 0;
  EXPECT_EQ(gpuopt::stencil_prepare(&d, nullptr, nullptr, &p, &ib, &ob), GPUOPT_SUCCESS);
  d = good(3);
  d.in_pitch = d.out_pitch = INT64_MAX / 4;
  d.in_slice_pitch = d.out_slice_pitch = INT64_MAX;
  EXPECT_EQ(prepare(&d), GPUOPT_ERROR_INVALID_ARGUMENT);
}

// Dispatch through the real table for synthetic devices.
std::string choice(const gpuopt_stencil_desc_t& d, int cc, const void* in = kIn) {
  gpuopt::StencilProblem p;
  std::size_t ib = 0, ob = 0;
  EXPECT_EQ(gpuopt::stencil_prepare(&d, in, kOut, &p, &ib, &ob), GPUOPT_SUCCESS);
  int count = 0;
  const auto* table = gpuopt::stencil_variants(&count);
  const gpuopt::Choice c = gpuopt::choose_variant(table, count, p, d.dtype,
                                                  gpuopt::synthetic_device(cc, 100), -1, false);
  return c.index < 0 ? "<none>" : table[c.index].meta.name;
}

TEST(StencilDispatch, SyntheticDevices) {
  gpuopt_stencil_desc_t d2 = good(2), d3 = good(3);
  // TMA needs sm_90a and, without a driver here, cuTensorMapEncodeTiled: only where present.
  const bool tma = unit::device_count() > 0;
  EXPECT_EQ(choice(d2, 90), tma ? "sm90_tma" : "sm80_cpasync_unstaged");
  EXPECT_EQ(choice(d3, 90), tma ? "sm90_zmarch_fwd_xsplit" : "zmarch_sync");
  // x-split stages take r <= 6 (above, its registers spill): fwd_chunks takes 7 and 8.
  for (int r : {1, 2, 3, 5, 6, 7, 8}) {
    gpuopt_stencil_desc_t dr = good(3);
    dr.radius = r;
    EXPECT_EQ(choice(dr, 90),
              tma ? (r <= 6 ? "sm90_zmarch_fwd_xsplit" : "sm90_zmarch_fwd_chunks") : "zmarch_sync")
        << r;
  }
  gpuopt_stencil_desc_t d64 = good(3);
  d64.dtype = GPUOPT_DTYPE_F64;
  d64.radius = 3;
  EXPECT_EQ(choice(d64, 90), tma ? "sm90_zmarch_fwd_xsplit" : "zmarch_sync");
  d64.radius = 8;
  EXPECT_EQ(choice(d64, 90), tma ? "sm90_zmarch_fwd_chunks" : "zmarch_sync");
  for (int cc : {80, 86, 89}) {
    EXPECT_EQ(choice(d2, cc), "sm80_cpasync_unstaged") << cc;
    EXPECT_EQ(choice(d3, cc), "zmarch_sync") << cc;
  }
  EXPECT_EQ(choice(d2, 75), "smem_sync");
  EXPECT_EQ(choice(d3, 75), "zmarch_sync");
  d2.boundary = d3.boundary = GPUOPT_BOUNDARY_CLAMP;
  EXPECT_EQ(choice(d2, 90), "sm80_cpasync_unstaged");
  EXPECT_EQ(choice(d3, 90), "zmarch_sync");
  d2 = good(2);
  d2.in_pitch = 101;  // 404 bytes: no TMA
  EXPECT_EQ(choice(d2, 90), "sm80_cpasync_unstaged");
}

}  // namespace
