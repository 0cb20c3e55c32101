// Segmented-sort dispatch decisions for synthetic devices through the real variant table (the
// refusal reasons name the limit), the binned workspace layout, and the host-side checks of the
// entry points that need no device. Pointers are fake addresses: dispatch only looks at values.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "kernels/segmented_sort/segmented_sort.hpp"
#include "runtime/device.hpp"
#include "runtime/registry.hpp"
#include "test_support.hpp"

namespace {

using gpuopt::Choice;
using gpuopt::SegmentedSortProblem;

const std::int64_t* const kOffsets = reinterpret_cast<const std::int64_t*>(0x7f0000200000);

int index_of(const char* name) {
  int count = 0;
  const auto* t = gpuopt::segmented_sort_variants(&count);
  for (int i = 0; i < count; ++i)
    if (std::string(t[i].meta.name) == name) return i;
  return -1;
}

Choice choose(const SegmentedSortProblem& p, int forced = -1) {
  int count = 0;
  const auto* t = gpuopt::segmented_sort_variants(&count);
  return gpuopt::choose_variant(t, count, p, p.key_type, gpuopt::synthetic_device(90, 132), forced,
                                true);
}

std::string name_of(const Choice& c) {
  int count = 0;
  const auto* t = gpuopt::segmented_sort_variants(&count);
  return c.index < 0 ? "<none>" : t[c.index].meta.name;
}

SegmentedSortProblem fixed(std::int64_t segments, std::int64_t size) {
  SegmentedSortProblem p;
  p.num_segments = segments;
  p.segment_size = size;
  p.num_items = segments * size;
  return p;
}

TEST(SegmentedSortTable, NamesOrderAndTypes) {
  int count = 0;
  const auto* t = gpuopt::segmented_sort_variants(&count);
  ASSERT_EQ(count, 4);
  const char* const kNames[] = {"warp_bitonic", "block_bitonic", "binned", "cub"};
  for (int i = 0; i < count; ++i) {
    EXPECT_STREQ(t[i].meta.name, kNames[i]);
    EXPECT_TRUE(t[i].meta.dtype_mask & gpuopt::dtype_bit(GPUOPT_DTYPE_U64));
    EXPECT_FALSE(t[i].meta.dtype_mask & gpuopt::dtype_bit(GPUOPT_DTYPE_F16));
  }
  EXPECT_TRUE(t[count - 1].meta.is_vendor);
  const gpuopt::OpTable* op = gpuopt::op_table(GPUOPT_OP_SEGMENTED_SORT);
  ASSERT_NE(op, nullptr);
  EXPECT_STREQ(op->env_name, "GPUOPT_VARIANT_SEGMENTED_SORT");
}

TEST(SegmentedSortDispatch, FixedSizesPickTheNetworks) {
  EXPECT_EQ(name_of(choose(fixed(1 << 22, 128))), "warp_bitonic");
  EXPECT_EQ(name_of(choose(fixed(100, 512))), "warp_bitonic");
  EXPECT_EQ(name_of(choose(fixed(100, 513))), "block_bitonic");
  EXPECT_EQ(name_of(choose(fixed(100, 4096))), "block_bitonic");
  EXPECT_EQ(name_of(choose(fixed(100, 4097))), "binned");
}

TEST(SegmentedSortDispatch, OffsetsPickBinned) {
  SegmentedSortProblem p;
  p.num_segments = 1 << 20;
  p.num_items = std::int64_t{1} << 29;
  p.offsets = kOffsets;
  EXPECT_EQ(name_of(choose(p)), "binned");
}

TEST(SegmentedSortDispatch, ForcedNetworksSayWhyTheyRefuse) {
  const Choice w = choose(fixed(10, 600), index_of("warp_bitonic"));
  EXPECT_EQ(w.index, -1);
  EXPECT_TRUE(unit::has_word(w.reason, "segment_size")) << w.reason;
  const Choice b = choose(fixed(10, 5000), index_of("block_bitonic"));
  EXPECT_TRUE(unit::has_word(b.reason, "segment_size")) << b.reason;
  SegmentedSortProblem p = fixed(10, 100);
  p.offsets = kOffsets;
  const Choice o = choose(p, index_of("block_bitonic"));
  EXPECT_TRUE(unit::has_word(o.reason, "offsets")) << o.reason;
}

TEST(SegmentedSortLayout, BinnedWorkspace) {
  SegmentedSortProblem p = fixed(1000, 100);
  gpuopt::BinnedLayout l = gpuopt::binned_layout(p);
  EXPECT_FALSE(l.radix);
  EXPECT_EQ(l.list % 256, 0u);
  EXPECT_GE(l.total, l.list + 1000 * 4);
  p = fixed(3, 5000);
  p.key_type = GPUOPT_DTYPE_F64;
  p.value_bytes = 4;
  l = gpuopt::binned_layout(p);
  EXPECT_TRUE(l.radix);
  EXPECT_GE(l.radix_values, l.radix_keys + 15000 * 8);
  EXPECT_GE(l.total, l.radix_values + 15000 * 4);
  EXPECT_EQ(gpuopt::sort_pow2(129, 8), 256);
  EXPECT_EQ(gpuopt::sort_pow2(1, 8), 8);
  EXPECT_EQ(gpuopt::sort_key_size(GPUOPT_DTYPE_BF16), 0u);
  EXPECT_EQ(gpuopt::sort_key_size(GPUOPT_DTYPE_U64), 8u);
}

TEST(SegmentedSortEntryPoints, NullContextIsInvalidHandle) {
  gpuopt_segmented_sort_desc_t d{};
  d.struct_size = sizeof d;
  std::size_t bytes = 0;
  EXPECT_EQ(gpuopt_segmented_sort_workspace_size(nullptr, &d, &bytes), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "gpuopt_segmented_sort_workspace_size"));
  EXPECT_EQ(
      gpuopt_segmented_sort(nullptr, nullptr, &d, nullptr, nullptr, nullptr, nullptr, nullptr, 0),
      GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "ctx"));
}

}  // namespace
