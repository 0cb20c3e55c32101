// Every gemm variant, forced by name, and automatic dispatch, on every type configuration (f64,
// f32, tf32, bf16 -> f32 / bf16, f16 -> f32 / f16) against the CPU reference: squares, odd and
// large sampled shapes (stream-K tails among them), skinny (k = 1, m = 1, n = 1), k = 0, all
// four transposes with leading dimensions past the rows (odd and 16-byte aligned), misaligned
// pointers, alpha/beta with beta = 0 over a NaN-poisoned C, strided batches (gaps between
// matrices, broadcast A).
// A variant may refuse a case it cannot do (GPUOPT_ERROR_UNSUPPORTED, C untouched); automatic
// dispatch must run every case, and the portable rungs and the vendor must run every case of the
// types they list.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gemm_harness.hpp"
#include "gpu_fixture.hpp"

namespace {

using gput::GemmCase;
using gput::GemmData;
using gput::GemmTypeConfig;
using gput::round8;

GemmCase make(const char* label, gpuopt_transpose_t ta, gpuopt_transpose_t tb, std::int64_t m,
              std::int64_t n, std::int64_t k, double alpha, double beta) {
  GemmCase c;
  c.label = label;
  c.ta = ta;
  c.tb = tb;
  c.m = m;
  c.n = n;
  c.k = k;
  c.alpha = alpha;
  c.beta = beta;
  return c;
}

// Rows of A and B as stored.
std::int64_t rows_a(const GemmCase& c) { return c.ta == GPUOPT_TRANS_N ? c.m : c.k; }
std::int64_t rows_b(const GemmCase& c) { return c.tb == GPUOPT_TRANS_N ? c.k : c.n; }
std::int64_t cols_a(const GemmCase& c) { return c.ta == GPUOPT_TRANS_N ? c.k : c.m; }
std::int64_t cols_b(const GemmCase& c) { return c.tb == GPUOPT_TRANS_N ? c.n : c.k; }

// Leading dimensions rows + extra (extra 0: rounded up to 8 elements, 16-byte columns).
GemmCase with_ld(GemmCase c, std::int64_t extra_a, std::int64_t extra_b, std::int64_t extra_c) {
  c.lda = extra_a ? rows_a(c) + extra_a : round8(rows_a(c));
  c.ldb = extra_b ? rows_b(c) + extra_b : round8(rows_b(c));
  c.ldc = extra_c ? c.m + extra_c : round8(c.m);
  return c;
}

// The case with its reference on sampled elements of C (large shapes).
GemmCase sampled(GemmCase c) {
  c.sampled = true;
  return c;
}

// A strided batch of `batch` matrices with gaps of ga, gb, gc elements after each A, B, C.
GemmCase with_batch(GemmCase c, int batch, std::int64_t ga, std::int64_t gb, std::int64_t gc) {
  c.batch = batch;
  c.stride_a = c.lda * cols_a(c) + ga;
  c.stride_b = c.ldb * cols_b(c) + gb;
  c.stride_c = c.ldc * c.n + gc;
  return c;
}

const gpuopt_transpose_t N = GPUOPT_TRANS_N, T = GPUOPT_TRANS_T;

std::vector<GemmCase> sweep_cases() {
  std::vector<GemmCase> v;
  // Squares.
  v.push_back(make("square 64", N, N, 64, 64, 64, 1.0, 0.0));
  v.push_back(make("square 128", N, N, 128, 128, 128, -0.5, 0.75));
  v.push_back(make("square 256", N, N, 256, 256, 256, 1.25, 1.0));
  // Odd and large (sampled reference).
  v.push_back(make("odd", N, N, 67, 45, 29, 0.75, -1.25));
  v.push_back(make("one element", N, N, 1, 1, 1, -1.25, 0.5));
  GemmCase big = with_ld(make("1000x777x333", N, N, 1000, 777, 333, 0.5, -0.75), 0, 0, 0);
  big.sampled = true;
  v.push_back(big);
  GemmCase tall = with_ld(make("4097x65x129", T, N, 4097, 65, 129, 1.0, 0.0), 0, 0, 0);
  tall.sampled = true;
  v.push_back(tall);
  // k > 2048: the sm90 rung's cooperative schedule for 16-bit types; whole 128 x 256 tiles with
  // 16-byte aligned columns take its staged epilogue, in a strided batch with gaps, beta = 0 over
  // the poisoned C; n = 384 leaves the second tile of a cluster outside C.
  GemmCase coop =
      with_batch(with_ld(make("512x384x2112 batch 2", N, N, 512, 384, 2112, 0.75, 0.0), 0, 0, 8), 2,
                 8, 16, 64);
  coop.sampled = true;
  v.push_back(coop);
  // TT, whole 128 x 256 tiles with 16-byte aligned columns and beta = 0 (batch with gaps): tf32
  // takes the sm90 rung's register-P staged epilogue in its TT layout (the NN case above its
  // swapped-roles one); n = 320 leaves half of a column tile and a cluster's second tile outside.
  GemmCase tt =
      with_batch(with_ld(make("512x320x96 TT batch 2", T, T, 512, 320, 96, -1.25, 0.0), 0, 0, 8), 2,
                 8, 16, 32);
  tt.sampled = true;
  v.push_back(tt);
  // NN and TT, 16-byte aligned, strided batches: f32 warptiled_cpasync loads its k-tiles inside
  // K without k tests (nine whole 16-deep tiles, then 11 left: a partial 16-byte vector), with m
  // and n past a tile edge and not multiples of the vector width.
  v.push_back(with_batch(with_ld(make("whole k-tiles NN", N, N, 263, 259, 155, 0.75, 0.0), 0, 0, 0),
                         2, 8, 16, 8));
  v.push_back(with_batch(with_ld(make("whole k-tiles TT", T, T, 259, 263, 155, -1.0, 0.5), 0, 0, 0),
                         2, 16, 8, 8));
  // More 128 x 128 tiles (16 x 12 = 192) than an H100 / H200 has SMs, with a partial last wave:
  // f64_tensorcore's warp-specialized kernel runs the leftover tiles as stream-K parts (2 or more
  // blocks per tile adding into C in k order; the k tail in the last part). beta != 0, and TT
  // (C^T store) with beta = 0 over the poisoned C.
  v.push_back(sampled(
      with_ld(make("2000x1500x1001 stream-K", N, N, 2000, 1500, 1001, 0.75, -0.5), 0, 0, 0)));
  v.push_back(sampled(
      with_ld(make("1500x2000x1001 TT stream-K", T, T, 1500, 2000, 1001, -1.25, 0.0), 0, 0, 8)));
  // f64_tensorcore's TN kernel (warp-specialized, cc 9.0) with more units of work than SMs runs
  // persistent blocks that take the units from a counter in the op workspace: whole tiles and
  // stream-K parts (beta != 0), and whole tiles only (3 k tiles: no stream-K; blocks end on a
  // whole tile), beta = 0 over the poisoned C.
  v.push_back(sampled(
      with_ld(make("2000x1500x1001 TN persistent", T, N, 2000, 1500, 1001, 1.25, -0.75), 0, 0, 0)));
  v.push_back(sampled(
      with_ld(make("2000x1500x90 TN persistent", T, N, 2000, 1500, 90, -0.5, 0.0), 3, 0, 5)));
  // The sm90 rung's stream-K tail (on 132 SMs: 100 units of 2 tiles for 66 clusters, the last
  // 34 cut into k ranges; bf16 k blocks of 64, tf32 of 32: both leave idle clusters the launcher's
  // minimum of k blocks): odd m and n (partial edge tiles: direct and staged epilogues), NN over
  // the poisoned C; TN with beta in a strided batch of 2 x 50 units.
  GemmCase sk90 =
      with_ld(make("stream-K 1279x5119x4200", N, N, 1279, 5119, 4200, 1.25, 0.0), 0, 0, 0);
  sk90.sampled = true;
  v.push_back(sk90);
  GemmCase sk90b = with_batch(
      with_ld(make("stream-K 1279x2559x4200 TN batch 2", T, N, 1279, 2559, 4200, -0.75, 0.5), 0, 0,
              3),
      2, 8, 16, 5);
  sk90b.sampled = true;
  v.push_back(sk90b);
  // Skinny.
  v.push_back(make("k = 1", N, N, 96, 80, 1, 1.0, 0.5));
  v.push_back(make("m = 1", T, N, 1, 96, 77, -0.75, 0.0));
  v.push_back(make("n = 1", N, T, 96, 1, 77, 0.5, 1.0));
  // k = 0: C = beta * C (and = 0 over a poisoned C).
  v.push_back(make("k = 0", N, N, 33, 17, 0, 1.0, 0.75));
  v.push_back(make("k = 0, beta = 0", T, T, 33, 17, 0, 1.0, 0.0));
  // All four transposes: odd leading dimensions (+3, +17), and 16-byte aligned ones with sizes
  // that are not multiples of the vector width or of any tile.
  int i = 0;
  for (gpuopt_transpose_t ta : {N, T}) {
    for (gpuopt_transpose_t tb : {N, T}) {
      const double beta = (i++ % 2) ? 0.0 : -0.5;
      v.push_back(with_ld(make("ld +3/+17/+3", ta, tb, 67, 45, 29, 1.25, beta), 3, 17, 3));
      v.push_back(with_ld(make("aligned ld", ta, tb, 130, 129, 67, -1.0, 0.5 - beta), 0, 0, 17));
    }
  }
  // Misaligned pointers (one element past a 256-byte boundary) and odd leading dimensions.
  GemmCase mis = with_ld(make("misaligned", N, T, 64, 64, 64, 0.75, 0.25), 1, 3, 5);
  mis.a_off = 1;
  mis.b_off = 3;
  mis.c_off = 1;
  v.push_back(mis);
  // Strided batches: gaps between the matrices; 16-byte aligned; A broadcast (stride 0).
  GemmCase b7 = with_ld(make("batch 7", T, N, 33, 17, 21, 0.5, 0.5), 3, 0, 1);
  b7 = with_batch(b7, 7, 5, 11, 7);
  v.push_back(b7);
  GemmCase b5 = with_ld(make("batch 5 aligned", N, T, 40, 24, 16, -1.25, 0.0), 0, 0, 0);
  b5 = with_batch(b5, 5, 8, 16, 24);
  v.push_back(b5);
  GemmCase b3 = with_ld(make("batch 3, A broadcast", N, N, 48, 32, 24, 1.0, 1.25), 0, 0, 0);
  b3.batch = 3;
  b3.stride_a = 0;
  b3.stride_b = b3.ldb * cols_b(b3) + 8;
  b3.stride_c = b3.ldc * b3.n;
  v.push_back(b3);
  return v;
}

struct Tally {
  int ran = 0, refused = 0;
};

class GemmSweep : public gput::GpuTest, public ::testing::WithParamInterface<std::size_t> {
 protected:
  // Runs d with variant v forced ("auto": automatic dispatch); records the outcome in tally.
  void run_one(const GemmData& d, const std::string& v, Tally* tally) {
    SCOPED_TRACE("variant " + v);
    const bool is_auto = v == "auto";
    ASSERT_GPUOPT_OK(
        gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, is_auto ? nullptr : v.c_str()));
    ASSERT_EQ(d.reset_c(), cudaSuccess);
    const gpuopt_status_t st = d.run(ctx_, stream_);
    if (st == GPUOPT_ERROR_UNSUPPORTED) {
      const std::string msg = gput::last_message();
      EXPECT_FALSE(is_auto) << "automatic dispatch found no variant: " << msg;
      EXPECT_FALSE(gput::gemm_must_accept(v, d.config(), d.problem())) << v << " refused: " << msg;
      EXPECT_NE(msg.find("gpuopt_gemm"), std::string::npos) << msg;
      ++tally->refused;
      sync();
      EXPECT_TRUE(d.check_unchanged());
      return;
    }
    ASSERT_GPUOPT_OK(st);
    sync();
    EXPECT_TRUE(d.check()) << "variant "
                           << (is_auto ? "auto -> " + gput::last_gemm_variant(ctx_) : v);
    if (!is_auto) {
      EXPECT_EQ(gput::last_gemm_variant(ctx_), v);
    }
    ++tally->ran;
  }
};

TEST_P(GemmSweep, EveryVariantEveryShape) {
  const GemmTypeConfig& cfg = gput::gemm_type_configs()[GetParam()];
  std::vector<std::string> names;
  for (const gput::GemmVariant& v : gput::gemm_variant_list(ctx_)) {
    if (v.available) {
      names.push_back(v.name);
    } else {
      EXPECT_STATUS(GPUOPT_ERROR_UNSUPPORTED,
                    gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, v.name.c_str()));
    }
  }
  ASSERT_FALSE(names.empty());
  names.push_back("auto");
  std::map<std::string, Tally> tally;
  std::map<std::string, int> auto_picks;
  for (const GemmCase& c : sweep_cases()) {
    SCOPED_TRACE(std::string(cfg.name) + " " + gput::describe(c));
    GemmData d(cfg, c, rng_);
    ASSERT_TRUE(d.ok());
    for (const std::string& v : names) {
      run_one(d, v, &tally[v]);
      if (HasFatalFailure()) return;
      if (v == "auto") ++auto_picks[gput::last_gemm_variant(ctx_)];
    }
  }
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, nullptr));
  std::string summary;
  for (const std::string& v : names) {
    summary += " " + v + " " + std::to_string(tally[v].ran) + "/" +
               std::to_string(tally[v].ran + tally[v].refused);
  }
  std::string picks;
  for (const auto& p : auto_picks) picks += " " + p.first + " x" + std::to_string(p.second);
  std::printf("[   NOTE   ] %s cases run per variant:%s; auto chose:%s\n", cfg.name,
              summary.c_str(), picks.c_str());
  EXPECT_EQ(tally["auto"].refused, 0);
}

INSTANTIATE_TEST_SUITE_P(Types, GemmSweep,
                         ::testing::Range<std::size_t>(0, gput::gemm_type_configs().size()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return std::string(gput::gemm_type_configs()[info.param].name);
                         });

class GemmVariants : public gput::GpuTest {};

// Every variant the device can run runs at least one type configuration (an aligned 96x64x48
// problem) correctly, and automatic dispatch runs all of them.
TEST_F(GemmVariants, EachRunsSomeTypeAndAutoRunsAll) {
  for (const gput::GemmVariant& v : gput::gemm_variant_list(ctx_)) {
    if (!v.available) {
      std::printf("[   NOTE   ] gemm variant %s is not available on this device\n", v.name.c_str());
      continue;
    }
    SCOPED_TRACE("variant " + v.name);
    int ran = 0;
    for (const GemmTypeConfig& cfg : gput::gemm_type_configs()) {
      SCOPED_TRACE(cfg.name);
      GemmData d(cfg, with_ld(make("aligned", N, N, 96, 64, 48, 1.25, -0.5), 0, 0, 0), rng_);
      ASSERT_TRUE(d.ok());
      ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, v.name.c_str()));
      const gpuopt_status_t st = d.run(ctx_, stream_);
      if (st == GPUOPT_ERROR_UNSUPPORTED) continue;
      ASSERT_GPUOPT_OK(st);
      sync();
      EXPECT_TRUE(d.check());
      EXPECT_NE(v.dtype_mask & (1u << cfg.ab), 0u) << "ran a type its dtype_mask lacks";
      ++ran;
    }
    EXPECT_GE(ran, 1) << v.name << " refused every type configuration";
  }
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, nullptr));
  for (const GemmTypeConfig& cfg : gput::gemm_type_configs()) {
    SCOPED_TRACE(cfg.name);
    GemmData d(cfg, make("auto", T, T, 100, 50, 70, 0.5, 0.25), rng_);
    ASSERT_TRUE(d.ok());
    ASSERT_GPUOPT_OK(d.run(ctx_, stream_));
    sync();
    EXPECT_TRUE(d.check()) << "auto -> " << gput::last_gemm_variant(ctx_);
  }
}

// f64_tensorcore back to back on one stream, no synchronization between the calls: persistent
// TN calls of different shapes (the unit counter in the op workspace must be zero again after
// each), with and without a stream-K tail (its flags share the workspace), beta != 0, between
// them a batch and an NN call (one block per unit). Twice, in two orders.
TEST_F(GemmVariants, F64TensorcorePersistentCallsBackToBack) {
  if (gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, "f64_tensorcore") != GPUOPT_SUCCESS) {
    GTEST_SKIP() << "f64_tensorcore is not available on this device";
  }
  const GemmTypeConfig& f64 = gput::gemm_type_configs()[0];
  std::vector<GemmCase> cases = {
      make("TN stream-K", T, N, 2000, 1500, 1001, 0.75, -0.5),
      make("TN whole tiles", T, N, 2000, 1500, 90, 1.25, 0.0),
      with_batch(with_ld(make("TN batch 2", T, N, 1700, 1600, 257, -1.0, 0.75), 0, 0, 0), 2, 8, 16,
                 24),
      make("NN stream-K", N, N, 2000, 1500, 1001, 0.5, 0.0),
      make("TN 2 waves + 8", T, N, 2100, 2000, 513, -0.75, 1.0),
      make("TN one wave", T, N, 1500, 1400, 300, 1.0, 0.0)};
  std::vector<std::unique_ptr<GemmData>> data;
  for (GemmCase& c : cases) {
    if (c.batch == 1) c = with_ld(c, 0, 0, 6);  // padded, even: f64 columns stay 16-byte aligned
    data.push_back(std::make_unique<GemmData>(f64, sampled(c), rng_));
    ASSERT_TRUE(data.back()->ok());
  }
  for (const bool reverse : {false, true}) {
    for (std::size_t i = 0; i < data.size(); ++i) {
      const GemmData& d = *data[reverse ? data.size() - 1 - i : i];
      ASSERT_EQ(d.reset_c(), cudaSuccess);
    }
    for (std::size_t i = 0; i < data.size(); ++i) {
      const GemmData& d = *data[reverse ? data.size() - 1 - i : i];
      SCOPED_TRACE(gput::describe(d.problem()));
      ASSERT_GPUOPT_OK(d.run(ctx_, stream_));
    }
    sync();
    for (const auto& d : data) {
      SCOPED_TRACE(gput::describe(d->problem()) + (reverse ? " (reverse order)" : ""));
      EXPECT_TRUE(d->check());
    }
  }
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, nullptr));
}

// Small problems that take f64_tensorcore's persistent TN path (more tiles than SMs on any H100 /
// H200: 156 tiles of 128 x 128), with whole tiles only and with a stream-K tail, back to back:
// small enough for racecheck and synccheck to finish (gpu-check.sh SANITIZER_GTEST_FILTER).
TEST_F(GemmVariants, F64TensorcorePersistentSmallForSanitizers) {
  if (gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, "f64_tensorcore") != GPUOPT_SUCCESS) {
    GTEST_SKIP() << "f64_tensorcore is not available on this device";
  }
  const GemmTypeConfig& f64 = gput::gemm_type_configs()[0];
  GemmData whole(f64, make("TN whole tiles", T, N, 1536, 1664, 48, 1.0, 0.0), rng_);
  GemmData tail(f64, make("TN stream-K", T, N, 1536, 1664, 520, -0.5, 0.75), rng_);
  ASSERT_TRUE(whole.ok());
  ASSERT_TRUE(tail.ok());
  for (const GemmData* d : {&whole, &tail, &whole}) {
    SCOPED_TRACE(gput::describe(d->problem()));
    ASSERT_EQ(d->reset_c(), cudaSuccess);
    ASSERT_GPUOPT_OK(d->run(ctx_, stream_));
    sync();
    EXPECT_TRUE(d->check());
  }
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, nullptr));
}

// GPUOPT_ERROR_NOT_FOUND for an unknown variant name; the forced variant is reported back.
TEST_F(GemmVariants, ForcingByName) {
  EXPECT_STATUS(GPUOPT_ERROR_NOT_FOUND,
                gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, "no_such_gemm"));
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, "naive"));
  const char* name = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_context_get_variant(ctx_, GPUOPT_OP_GEMM, &name));
  EXPECT_STREQ(name, "naive");
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, nullptr));
  ASSERT_GPUOPT_OK(gpuopt_context_get_variant(ctx_, GPUOPT_OP_GEMM, &name));
  EXPECT_STREQ(name, "auto");
}

}  // namespace
