// Contexts: device info (fields and the struct_size prefix rule), destroy with live objects,
// the variant listing and forcing API.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <set>
#include <string>

#include "axpy_harness.hpp"
#include "gpu_fixture.hpp"

namespace {

class Contexts : public gput::GpuTest {
 protected:
  gpuopt_device_info_t info() const {
    gpuopt_device_info_t i{};
    i.struct_size = sizeof i;
    EXPECT_GPUOPT_OK(gpuopt_context_device_info(ctx_, &i));
    return i;
  }
};

TEST_F(Contexts, DeviceCountSeesTheDevice) {
  int count = 0;
  ASSERT_GPUOPT_OK(gpuopt_device_count(&count));
  EXPECT_GE(count, 1);
  gpuopt_device_info_t i{};
  i.struct_size = sizeof i;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_device_info(count, &i))
      << "ordinal past the last device";
  EXPECT_TRUE(gput::MessageNames("gpuopt_device_info", "device"));
  gpuopt_context_t ctx = nullptr;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_context_create(count, &ctx));
  EXPECT_TRUE(gput::MessageNames("gpuopt_context_create", "device"));
  EXPECT_EQ(ctx, nullptr);
}

TEST_F(Contexts, DeviceInfoFieldsAreSane) {
  const gpuopt_device_info_t i = info();
  EXPECT_EQ(i.struct_size, sizeof i);
  EXPECT_EQ(i.device, 0);
  EXPECT_GT(std::strlen(i.name), 0u);
  EXPECT_LT(std::strlen(i.name), sizeof i.name);
  EXPECT_GE(i.cc_major, 7);
  EXPECT_GE(i.cc_minor, 0);
  EXPECT_LE(i.cc_minor, 9);
  EXPECT_GT(i.sm_count, 0);
  EXPECT_GE(i.max_threads_per_sm, 1024);
  EXPECT_GT(i.total_memory, size_t{1} << 30);
  EXPECT_GT(i.l2_cache_bytes, 0u);
  EXPECT_GE(i.shared_memory_per_block_optin, size_t{48} << 10);
  EXPECT_GE(i.shared_memory_per_sm, i.shared_memory_per_block_optin);
  const int cc = i.cc_major * 10 + i.cc_minor;
  EXPECT_EQ(i.supports_clusters, cc >= 90 ? 1 : 0);
  EXPECT_EQ(i.supports_tma, cc >= 90 ? 1 : 0);
  EXPECT_TRUE(i.supports_compression == 0 || i.supports_compression == 1);
  EXPECT_TRUE(i.supports_mapped_memory == 0 || i.supports_mapped_memory == 1);
  EXPECT_GE(i.memory_clock_khz, 0);
  EXPECT_GE(i.memory_bus_width_bits, 0);
  if (i.memory_clock_khz > 0 && i.memory_bus_width_bits > 0) {
    const double expect = 2.0 * i.memory_clock_khz * 1e3 * i.memory_bus_width_bits / 8 / 1e9;
    EXPECT_NEAR(i.theoretical_bandwidth_gbs, expect, expect * 1e-6);
  }
  EXPECT_GT(i.driver_version, 0);
  EXPECT_GT(i.runtime_version, 0);
  std::printf("[   NOTE   ] %s, cc %d.%d, %d SMs, %.0f GB/s theoretical, driver %d\n", i.name,
              i.cc_major, i.cc_minor, i.sm_count, i.theoretical_bandwidth_gbs, i.driver_version);

  gpuopt_device_info_t g{};
  g.struct_size = sizeof g;
  ASSERT_GPUOPT_OK(gpuopt_device_info(0, &g));
  EXPECT_STREQ(g.name, i.name);
  EXPECT_EQ(g.cc_major, i.cc_major);
  EXPECT_EQ(g.cc_minor, i.cc_minor);
  EXPECT_EQ(g.sm_count, i.sm_count);
  EXPECT_EQ(g.total_memory, i.total_memory);
}

TEST_F(Contexts, DeviceInfoFillsOnlyTheGivenPrefix) {
  gpuopt_device_info_t i;
  std::memset(&i, 0xAB, sizeof i);
  const size_t prefix = offsetof(gpuopt_device_info_t, sm_count);
  i.struct_size = prefix;
  ASSERT_GPUOPT_OK(gpuopt_context_device_info(ctx_, &i));
  EXPECT_EQ(i.struct_size, prefix);
  EXPECT_EQ(i.device, 0);
  EXPECT_GT(std::strlen(i.name), 0u);
  EXPECT_GE(i.cc_major, 7);
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&i);
  for (size_t b = prefix; b < sizeof i; ++b) {
    ASSERT_EQ(bytes[b], 0xAB) << "byte " << b << " past struct_size = " << prefix << " written";
  }

  std::memset(&i, 0xAB, sizeof i);
  i.struct_size = prefix;
  ASSERT_GPUOPT_OK(gpuopt_device_info(0, &i));
  for (size_t b = prefix; b < sizeof i; ++b) {
    ASSERT_EQ(bytes[b], 0xAB) << "gpuopt_device_info wrote byte " << b << " past struct_size";
  }
}

TEST_F(Contexts, DeviceInfoRejectsBadStructs) {
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_context_device_info(ctx_, nullptr));
  EXPECT_TRUE(gput::MessageNames("gpuopt_context_device_info", "info"));
  gpuopt_device_info_t i{};
  i.struct_size = 0;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_context_device_info(ctx_, &i));
  EXPECT_TRUE(gput::MessageNames("gpuopt_context_device_info"));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_device_info(0, &i));
}

TEST_F(Contexts, DestroyWithLiveObjectsIsRefused) {
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_context_destroy(ctx_))
      << "the fixture's stream is alive";
  EXPECT_TRUE(gput::MessageNames("gpuopt_context_destroy"));
  gput::expect_axpy_still_works(ctx_, stream_, rng_);

  gput::Buffer b = gput::make_buffer(ctx_, 4096, GPUOPT_MEMORY_DEVICE);
  ASSERT_TRUE(b);
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_context_destroy(ctx_));
  size_t bytes = 0;
  EXPECT_GPUOPT_OK(gpuopt_buffer_size(b.get(), &bytes)) << "the buffer is still alive";
  gput::expect_axpy_still_works(ctx_, stream_, rng_);
}

TEST_F(Contexts, TwoContextsOnOneDevice) {
  gput::Context other = gput::make_context();
  ASSERT_TRUE(other);
  gput::Stream s = gput::make_stream(other.get());
  ASSERT_TRUE(s);
  gput::expect_axpy_still_works(other.get(), s.get(), rng_);
  gput::expect_axpy_still_works(ctx_, stream_, rng_);
}

TEST_F(Contexts, VariantListing) {
  int count = 0;
  ASSERT_GPUOPT_OK(gpuopt_variant_count(ctx_, GPUOPT_OP_AXPY, &count));
  EXPECT_GE(count, 4);
  const std::vector<std::string> names = variant_names();
  const std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size()) << "variant names are unique";
  for (const char* want : {"naive", "vec4_gridstride", "vec4_blocktile", "cublas"}) {
    EXPECT_EQ(unique.count(want), 1u) << want;
  }
  for (int i = 0; i < count; ++i) {
    SCOPED_TRACE(names[i]);
    gpuopt_variant_info_t v;
    std::memset(&v, 0, sizeof v);
    v.struct_size = sizeof v;
    ASSERT_GPUOPT_OK(gpuopt_variant_info(ctx_, GPUOPT_OP_AXPY, i, &v));
    ASSERT_NE(v.name, nullptr);
    EXPECT_EQ(names[i], v.name);
    ASSERT_NE(v.technique, nullptr);
    EXPECT_GT(std::strlen(v.technique), 0u);
    EXPECT_GE(v.min_cc, 0);
    EXPECT_TRUE(v.exact_cc == 0 || v.exact_cc >= v.min_cc);
    EXPECT_EQ(v.is_vendor, names[i] == "cublas" ? 1 : 0);
    EXPECT_TRUE(v.available == 0 || v.available == 1);
    EXPECT_NE(v.dtype_mask & (1u << GPUOPT_DTYPE_F32), 0u);
    EXPECT_NE(v.dtype_mask & (1u << GPUOPT_DTYPE_F64), 0u);
    EXPECT_EQ(v.dtype_mask & (1u << GPUOPT_DTYPE_I32), 0u);
    if (names[i] == "naive" || names[i] == "cublas") {
      EXPECT_EQ(v.available, 1);
    }
  }
}

TEST_F(Contexts, VariantListingRejectsBadArguments) {
  int count = 0;
  ASSERT_GPUOPT_OK(gpuopt_variant_count(ctx_, GPUOPT_OP_AXPY, &count));
  const char* name = nullptr;
  for (int bad : {-1, count, 1 << 30}) {
    EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                  gpuopt_variant_name(ctx_, GPUOPT_OP_AXPY, bad, &name));
    EXPECT_TRUE(gput::MessageNames("gpuopt_variant_name", "index"));
  }
  gpuopt_variant_info_t v{};
  v.struct_size = sizeof v;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_variant_info(ctx_, GPUOPT_OP_AXPY, count, &v));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_variant_count(ctx_, GPUOPT_OP_AXPY, nullptr));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_variant_name(ctx_, GPUOPT_OP_AXPY, 0, nullptr));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_variant_info(ctx_, GPUOPT_OP_AXPY, 0, nullptr));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_context_get_variant(ctx_, GPUOPT_OP_AXPY, nullptr));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_last_variant(ctx_, GPUOPT_OP_AXPY, nullptr));
  const gpuopt_op_t bad_op = static_cast<gpuopt_op_t>(77);
  const gpuopt_status_t st = gpuopt_variant_count(ctx_, bad_op, &count);
  EXPECT_TRUE(st == GPUOPT_ERROR_INVALID_ARGUMENT || st == GPUOPT_ERROR_NOT_FOUND)
      << gpuopt_status_name(st) << ": " << gput::last_message();
  EXPECT_TRUE(gput::MessageNames("gpuopt_variant_count", "op"));
}

TEST_F(Contexts, ForcingVariants) {
  EXPECT_EQ(forced_variant(), "auto");
  EXPECT_STATUS(GPUOPT_ERROR_NOT_FOUND,
                gpuopt_context_set_variant(ctx_, GPUOPT_OP_AXPY, "no_such_variant"));
  EXPECT_TRUE(gput::MessageNames("gpuopt_context_set_variant"));
  EXPECT_NE(gput::last_message().find("no_such_variant"), std::string::npos)
      << "the message repeats the unknown name: " << gput::last_message();
  EXPECT_EQ(forced_variant(), "auto") << "a refused name changes nothing";

  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_AXPY, "naive"));
  EXPECT_EQ(forced_variant(), "naive");
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_AXPY, nullptr));
  EXPECT_EQ(forced_variant(), "auto");
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_AXPY, "cublas"));
  EXPECT_EQ(forced_variant(), "cublas");
  gput::expect_axpy_still_works(ctx_, stream_, rng_);
  EXPECT_EQ(last_variant(), "cublas");
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_AXPY, "auto"));
  EXPECT_EQ(forced_variant(), "auto");
  gput::expect_axpy_still_works(ctx_, stream_, rng_);
  EXPECT_EQ(last_variant(), "vec4_blocktile") << "auto dispatch is back";

  const gpuopt_status_t st =
      gpuopt_context_set_variant(ctx_, static_cast<gpuopt_op_t>(77), "naive");
  EXPECT_TRUE(st == GPUOPT_ERROR_INVALID_ARGUMENT || st == GPUOPT_ERROR_NOT_FOUND)
      << gpuopt_status_name(st);
}

}  // namespace
