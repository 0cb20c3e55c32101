// gpuopt_stencil on the device: every variant forced x f32/f64 x both boundaries x every radius
// 1..8 on odd sizes (sizes below the radius, 1x1, padded and unaligned pitches) against the f64
// CPU reference (stencil_harness.hpp); variants that cannot take a problem must refuse it with
// UNSUPPORTED; persistent rings over many tiles; graph capture keeps the coefficients of the
// capture; bad pointers answered with statuses naming the argument.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_fixture.hpp"
#include "stencil_harness.hpp"

namespace {

using gput::StencilCase;
using gput::StencilSpec;

class Stencil : public gput::OpTest<GPUOPT_OP_STENCIL> {
 protected:
  using Variant = gput::VariantEntry;

  std::vector<Variant> variants() const { return gput::list_variants(ctx_, GPUOPT_OP_STENCIL); }

  // Whether variant v must accept s (the rules stencil_table.cpp states).
  static bool accepts(const std::string& v, const StencilSpec& s) {
    const std::int64_t e = s.dtype == GPUOPT_DTYPE_F64 ? 8 : 4;
    const std::int64_t ip = s.in_pitch ? s.in_pitch : s.nx;
    const std::int64_t is = s.in_slice ? s.in_slice : ip * s.ny;
    const bool tma = s.boundary == GPUOPT_BOUNDARY_ZERO && (ip * e) % 16 == 0 &&
                     (s.dims == 2 || (is * e) % 16 == 0);
    if (v == "naive") return true;
    if (v == "smem_sync" || v == "sm80_cpasync" || v == "sm80_cpasync_unstaged") return s.dims == 2;
    if (v.rfind("sm90_tma", 0) == 0) return s.dims == 2 && tma;
    if (v == "zmarch_sync") return s.dims == 3;
    if (v == "sm90_zmarch_tma") return s.dims == 3 && tma;
    if (v == "sm90_zmarch_fwd_pairs")  // 128-byte aligned halo boxes, r <= 4
      return s.dims == 3 && tma && s.radius <= 4 && (e == 4 ? s.radius % 2 == 0 : s.radius != 1);
    if (v == "sm90_zmarch_fwd_xsplit") return s.dims == 3 && tma && s.radius <= 6;
    if (v.rfind("sm90_zmarch_fwd", 0) == 0) return s.dims == 3 && tma;
    return true;  // auto
  }

  // Runs spec with every available variant forced (and auto), checking results or refusals.
  void run_all(const StencilSpec& spec) {
    StencilCase c(spec, rng_.split());
    c.upload();
    for (const Variant& v : variants()) {
      if (!v.available) continue;
      SCOPED_TRACE("variant " + v.name + ": " + gput::describe(c.spec()));
      force(v.name);
      c.reset_out();
      const gpuopt_status_t st = c.run(ctx_, stream_);
      if (!accepts(v.name, c.spec())) {
        EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED, st);
        continue;
      }
      ASSERT_GPUOPT_OK(st);
      sync();
      EXPECT_EQ(last_variant(), v.name);
      EXPECT_TRUE(c.check());
      if (HasFatalFailure()) return;
    }
    force("auto");
    c.reset_out();
    ASSERT_GPUOPT_OK(c.run(ctx_, stream_));
    sync();
    EXPECT_TRUE(c.check()) << "auto ran " << last_variant();
  }

  // Forces variant `name` and runs c `calls` times in a row on the same buffers, the output
  // poisoned (NaN) before every call: each launch must write every output and must not depend
  // on what an earlier launch left behind.
  void run_repeated(StencilCase& c, const std::string& name, int calls) {
    force(name);
    for (int call = 0; call < calls; ++call) {
      SCOPED_TRACE("variant " + name + " call " + std::to_string(call) + ": " +
                   gput::describe(c.spec()));
      c.reset_out();
      ASSERT_GPUOPT_OK(c.run(ctx_, stream_));
      sync();
      EXPECT_EQ(last_variant(), name);
      EXPECT_TRUE(c.check());
      if (HasFatalFailure()) return;
    }
  }

  void run_fwd_edges(const std::string& name, int max_r);

  static StencilSpec spec2(gpuopt_dtype_t t, int r, gpuopt_boundary_t b, std::int64_t nx,
                           std::int64_t ny, std::int64_t in_pitch = 0, std::int64_t out_pitch = 0) {
    StencilSpec s;
    s.dtype = t;
    s.dims = 2;
    s.radius = r;
    s.boundary = b;
    s.nx = nx;
    s.ny = ny;
    s.in_pitch = in_pitch;
    s.out_pitch = out_pitch;
    return s;
  }
  static StencilSpec spec3(gpuopt_dtype_t t, int r, gpuopt_boundary_t b, std::int64_t nx,
                           std::int64_t ny, std::int64_t nz, std::int64_t pitch = 0,
                           std::int64_t slice = 0) {
    StencilSpec s = spec2(t, r, b, nx, ny, pitch, pitch);
    s.dims = 3;
    s.nz = nz;
    s.in_slice = slice;
    s.out_slice = slice;
    return s;
  }
};

const gpuopt_dtype_t kTypes[] = {GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F64};
const gpuopt_boundary_t kBoundaries[] = {GPUOPT_BOUNDARY_ZERO, GPUOPT_BOUNDARY_CLAMP};

// Small odd 2D grids: dense odd pitch (TMA refuses), 16-byte pitch in with an odd out pitch,
// grids smaller than the radius, 1x1, one row, one column.
TEST_F(Stencil, Small2dEveryVariantRadiusBoundary) {
  for (gpuopt_dtype_t t : kTypes)
    for (gpuopt_boundary_t b : kBoundaries)
      for (int r = 1; r <= GPUOPT_STENCIL_MAX_RADIUS; ++r) {
        run_all(spec2(t, r, b, 37, 29));
        run_all(spec2(t, r, b, 37, 29, 40, 43));
        run_all(spec2(t, r, b, 5, 3, 8, 8));
        run_all(spec2(t, r, b, 1, 1));
        run_all(spec2(t, r, b, 131, 1, 136));
        run_all(spec2(t, r, b, 1, 70, 4));
        if (HasFatalFailure()) return;
      }
}

TEST_F(Stencil, Small3dEveryVariantRadiusBoundary) {
  for (gpuopt_dtype_t t : kTypes)
    for (gpuopt_boundary_t b : kBoundaries)
      for (int r = 1; r <= GPUOPT_STENCIL_MAX_RADIUS; ++r) {
        run_all(spec3(t, r, b, 19, 23, 17));
        run_all(spec3(t, r, b, 19, 23, 17, 24, 24 * 23 + 4));
        run_all(spec3(t, r, b, 3, 2, 5, 4, 8));
        run_all(spec3(t, r, b, 1, 1, 1));
        if (HasFatalFailure()) return;
      }
}

// Grids of many tiles: the persistent rings wrap (2D) and z is split over several blocks (3D).
TEST_F(Stencil, LargeGridsRingsAndChunks) {
  for (gpuopt_dtype_t t : kTypes)
    for (int r : {1, 3, 8}) {
      if (r != 3) run_all(spec2(t, r, GPUOPT_BOUNDARY_ZERO, 4001, 3003, 4008));
      run_all(spec2(t, r, GPUOPT_BOUNDARY_CLAMP, 1500, 777));
      run_all(spec3(t, r, GPUOPT_BOUNDARY_ZERO, 150, 40, 70, 152, 152 * 41));
      run_all(spec3(t, r, GPUOPT_BOUNDARY_CLAMP, 67, 33, 45));
      if (HasFatalFailure()) return;
    }
}

// The z-marching fwd rungs (sm90_zmarch_fwd's cost-rule chunks, fwd_sweep's whole-z blocks,
// fwd_chunks' 64-plane chunks) on a grid of several chunks (nz not a multiple of 64), each called
// three times in a row on the same buffers with the output poisoned (NaN) before every call: a
// launch must write every output and must not depend on what an earlier launch left behind.
TEST_F(Stencil, ZChunksRepeatedCalls) {
  for (gpuopt_dtype_t t : kTypes)
    for (int r : {1, 4, 8}) {
      StencilCase c(spec3(t, r, GPUOPT_BOUNDARY_ZERO, 150, 40, 300, 152, 152 * 41), rng_.split());
      c.upload();
      for (const Variant& v : variants())
        if (v.available && v.name.rfind("sm90_zmarch_fwd", 0) == 0 && accepts(v.name, c.spec()))
          run_repeated(c, v.name, 3);
      if (HasFatalFailure()) return;
    }
  force("auto");
}

// One sm90_zmarch_fwd configuration on the grids its tiles, clusters and z-chunks find hardest:
// y-tile counts odd and even, one tile row (ny below the tile), nx below the x halo and not a
// multiple of the tile, several z-chunks, padded pitches; radii 1 .. max_r, f32 and f64, each
// called twice on a NaN-poisoned output.
void Stencil::run_fwd_edges(const std::string& name, int max_r) {
  bool available = false;
  for (const Variant& v : variants()) available = available || (v.name == name && v.available);
  if (!available) GTEST_SKIP() << name << " does not run on this device (sm_90a only)";
  struct Shape {
    std::int64_t nx, ny, nz, pitch;
  };
  const Shape shapes[] = {{203, 77, 45, 208}, {517, 33, 130, 520}, {64, 10, 9, 64},
                          {100, 48, 70, 104}, {37, 17, 66, 40},    {130, 64, 3, 132},
                          {3, 21, 19, 4},     {129, 16, 65, 132}};
  for (gpuopt_dtype_t t : kTypes)
    for (int r = 1; r <= max_r; ++r)
      for (const Shape& sh : shapes) {
        StencilCase c(
            spec3(t, r, GPUOPT_BOUNDARY_ZERO, sh.nx, sh.ny, sh.nz, sh.pitch, sh.pitch * sh.ny),
            rng_.split());
        if (!accepts(name, c.spec())) continue;
        c.upload();
        run_repeated(c, name, 2);
        if (HasFatalFailure()) return;
      }
  force("auto");
}

// sm90_zmarch_fwd_pairs (clusters of 2 tiles stacked in y, halo rows multicast): the last
// cluster's second tile past the grid when the y-tile count is odd.
TEST_F(Stencil, PairsClusterEdges) { run_fwd_edges("sm90_zmarch_fwd_pairs", 4); }

// sm90_zmarch_fwd_xsplit (interior and x-halo boxes in separate blocks of a stage): side boxes
// wholly outside the grid (nx 3, 129), tiles narrower than the vector lanes.
TEST_F(Stencil, XsplitEdges) { run_fwd_edges("sm90_zmarch_fwd_xsplit", 8); }

// The compute-sanitizer subset (memcheck, racecheck, synccheck): every variant, both types and
// boundaries, radii 1, 2 (the smallest sm90_zmarch_fwd_pairs takes) and 8, one small 2D and 3D
// grid each.
TEST_F(Stencil, SanitizeSubset) {
  for (gpuopt_dtype_t t : kTypes)
    for (gpuopt_boundary_t b : kBoundaries)
      for (int r : {1, 2, 8}) {
        run_all(spec2(t, r, b, 37, 29, 40, 43));
        run_all(spec3(t, r, b, 19, 23, 17, 24, 24 * 23 + 4));
        if (HasFatalFailure()) return;
      }
}

// For memcheck: a 2D grid of more tiles than the persistent blocks' rings hold at once (the
// stages wrap several times), f64 (more tiles per cell).
TEST_F(Stencil, SanitizeRingWrap) {
  run_all(spec2(GPUOPT_DTYPE_F64, 8, GPUOPT_BOUNDARY_ZERO, 2500, 1100, 2504));
}

// A captured graph keeps the coefficients of the capture; replays recompute them.
TEST_F(Stencil, GraphCaptureKeepsCoefficients) {
  for (const Variant& v : variants()) {
    if (!v.available) continue;
    SCOPED_TRACE(v.name);
    force(v.name);
    const bool three = v.name.find("zmarch") != std::string::npos;
    StencilCase c(three ? spec3(GPUOPT_DTYPE_F32, 4, GPUOPT_BOUNDARY_ZERO, 200, 64, 48, 200)
                        : spec2(GPUOPT_DTYPE_F32, 8, GPUOPT_BOUNDARY_ZERO, 1000, 300, 1000),
                  rng_.split());
    c.upload();
    const std::vector<double> captured = c.coeffs();
    ASSERT_GPUOPT_OK(gpuopt_graph_begin(ctx_, stream_));
    EXPECT_GPUOPT_OK(c.run(ctx_, stream_));
    gpuopt_graph_t raw = nullptr;
    ASSERT_GPUOPT_OK(gpuopt_graph_end(stream_, &raw));
    gput::Graph g(raw);
    for (double& k : c.coeffs()) k = -k;  // the host array changes after the capture
    for (int replay = 0; replay < 2; ++replay) {
      c.reset_out();
      ASSERT_GPUOPT_OK(gpuopt_graph_launch(g.get(), stream_));
      sync();
      EXPECT_TRUE(c.check(&captured)) << "replay " << replay;
    }
  }
  force("auto");
}

TEST_F(Stencil, BadPointersNamed) {
  StencilCase c(spec2(GPUOPT_DTYPE_F32, 2, GPUOPT_BOUNDARY_ZERO, 64, 64), rng_.split());
  const gpuopt_stencil_desc_t d = c.desc();
  gput::DeviceArray<float> buf(64 * 64 + 64);
  ASSERT_TRUE(buf.ok());
  std::vector<float> host(16);
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_stencil(ctx_, stream_, &d, host.data(), buf.data()));
  EXPECT_TRUE(gput::MessageNames("gpuopt_stencil", "in"));
  // Overlapping in and out.
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_stencil(ctx_, stream_, &d, buf.data(), buf.data() + 32));
  EXPECT_TRUE(gput::MessageNames("gpuopt_stencil", "overlap"));
  // Output running past its allocation.
  gput::DeviceArray<float> small(64);
  EXPECT_NE(gpuopt_stencil(ctx_, stream_, &d, buf.data(), small.data()), GPUOPT_SUCCESS);
  EXPECT_TRUE(gput::MessageNames("gpuopt_stencil", "out"));
}

}  // namespace
