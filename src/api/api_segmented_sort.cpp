// gpuopt_segmented_sort and its workspace query: read the descriptor, validate sizes, pointers
// and the workspace, dispatch.
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "api/dispatch.hpp"
#include "kernels/segmented_sort/segmented_sort.hpp"
#include "runtime/versioned_struct.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace {

constexpr const char* kFn = "gpuopt_segmented_sort";
constexpr const char* kWsFn = "gpuopt_segmented_sort_workspace_size";

// Validates the descriptor's fields (no pointers) and fills the problem's sizes.
gpuopt_status_t read_desc(const char* fn, const gpuopt_segmented_sort_desc_t* desc,
                          gpuopt::SegmentedSortProblem* p) {
  gpuopt_segmented_sort_desc_t full{};  // every field through offsets is needed
  GPUOPT_TRY(gpuopt::read_versioned(fn, "desc", "gpuopt_segmented_sort_desc_t", desc,
                                    GPUOPT_SIZE_THROUGH(gpuopt_segmented_sort_desc_t, offsets),
                                    &full));
  const gpuopt_segmented_sort_desc_t* d = &full;
  const char* tn = gpuopt_dtype_name(d->key_type);
  if (!tn)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "desc->key_type (%d) is not a gpuopt_dtype_t",
                static_cast<int>(d->key_type));
  const std::size_t ks = gpuopt::sort_key_size(d->key_type);
  if (!ks)
    return fail(GPUOPT_ERROR_UNSUPPORTED, fn,
                "desc->key_type is %s; gpuopt_segmented_sort takes i32, u32, f32, i64, u64 and f64",
                tn);
  if (d->value_bytes != 0 && d->value_bytes != 4 && d->value_bytes != 8)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "desc->value_bytes is %d; expected 0 (keys only), 4 or 8", d->value_bytes);
  if (d->order != GPUOPT_SORT_ASCENDING && d->order != GPUOPT_SORT_DESCENDING)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "desc->order is %d; expected GPUOPT_SORT_ASCENDING or GPUOPT_SORT_DESCENDING",
                static_cast<int>(d->order));
  if (d->num_items < 0)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "desc->num_items is %" PRId64 "; expected >= 0",
                d->num_items);
  if (d->num_segments < 0)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "desc->num_segments is %" PRId64 "; expected >= 0", d->num_segments);
  const std::size_t widest =
      ks > static_cast<std::size_t>(d->value_bytes) ? ks : static_cast<std::size_t>(d->value_bytes);
  if (static_cast<std::uint64_t>(d->num_items) > (SIZE_MAX / 4) / widest)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "desc->num_items is %" PRId64 "; the arrays overflow the address space",
                d->num_items);
  if (static_cast<std::uint64_t>(d->num_segments) > (SIZE_MAX / 16))
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "desc->num_segments is %" PRId64 "; the offsets overflow the address space",
                d->num_segments);
  if (!d->offsets) {
    if (d->segment_size < 0)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "desc->segment_size is %" PRId64 "; expected >= 0", d->segment_size);
    const bool overflow = d->segment_size > 0 && d->num_segments > INT64_MAX / d->segment_size;
    if (overflow || d->num_segments * d->segment_size != d->num_items)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "desc->num_items is %" PRId64
                  "; fixed-size segments (desc->offsets NULL) need "
                  "num_segments * segment_size = %" PRId64 " x %" PRId64
                  "; for variable segments set desc->offsets",
                  d->num_items, d->num_segments, d->segment_size);
  }
  p->key_type = d->key_type;
  p->value_bytes = d->value_bytes;
  p->descending = d->order == GPUOPT_SORT_DESCENDING;
  p->num_items = d->num_items;
  p->num_segments = d->num_segments;
  p->segment_size = d->offsets ? 0 : d->segment_size;
  p->offsets = d->offsets;
  return GPUOPT_SUCCESS;
}

struct Range {
  const char* name;
  const void* p;
  std::size_t bytes;
};

}  // namespace

extern "C" GPUOPT_API gpuopt_status_t gpuopt_segmented_sort_workspace_size(
    gpuopt_context_t ctx, const gpuopt_segmented_sort_desc_t* desc, size_t* bytes) {
  return guarded(kWsFn, [&] {
    GPUOPT_TRY(gpuopt::check_context(kWsFn, ctx));
    if (!bytes) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kWsFn, "bytes is NULL");
    gpuopt::SegmentedSortProblem p;
    GPUOPT_TRY(read_desc(kWsFn, desc, &p));
    GPUOPT_TRY(gpuopt::make_current(kWsFn, *ctx));
    *bytes =
        p.num_items == 0 || p.num_segments == 0 ? 0 : gpuopt::segmented_sort_workspace_bytes(p);
    return GPUOPT_SUCCESS;
  });
}

extern "C" GPUOPT_API gpuopt_status_t gpuopt_segmented_sort(
    gpuopt_context_t ctx, gpuopt_stream_t stream, const gpuopt_segmented_sort_desc_t* desc,
    const void* keys_in, void* keys_out, const void* values_in, void* values_out, void* workspace,
    size_t workspace_bytes) {
  return guarded(kFn, [&] {
    GPUOPT_TRY(gpuopt::check_context(kFn, ctx));
    GPUOPT_TRY(gpuopt::check_stream(kFn, stream, ctx));
    gpuopt::SegmentedSortProblem p;
    GPUOPT_TRY(read_desc(kFn, desc, &p));
    if (p.value_bytes == 0 && (values_in || values_out))
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                  "desc->value_bytes is 0 (keys only) but %s is not NULL",
                  values_in ? "values_in" : "values_out");
    if (p.value_bytes != 0 && (!values_in || !values_out))
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn, "%s is NULL but desc->value_bytes is %d",
                  !values_in ? "values_in" : "values_out", p.value_bytes);
    if (p.num_items == 0 || p.num_segments == 0) return GPUOPT_SUCCESS;  // nothing to sort
    GPUOPT_TRY(gpuopt::make_current(kFn, *ctx));
    const std::size_t ks = gpuopt::sort_key_size(p.key_type);
    const std::size_t vs = static_cast<std::size_t>(p.value_bytes);
    const std::size_t n = static_cast<std::size_t>(p.num_items);
    gpuopt::CallVerified v;  // operands in one allocation: one driver query
    GPUOPT_TRY(gpuopt::check_device_operand(kFn, "keys_in", *ctx, keys_in, ks, n * ks, &v));
    GPUOPT_TRY(gpuopt::check_device_operand(kFn, "keys_out", *ctx, keys_out, ks, n * ks, &v));
    if (vs) {
      GPUOPT_TRY(gpuopt::check_device_operand(kFn, "values_in", *ctx, values_in, vs, n * vs, &v));
      GPUOPT_TRY(gpuopt::check_device_operand(kFn, "values_out", *ctx, values_out, vs, n * vs, &v));
    }
    if (p.offsets)
      GPUOPT_TRY(gpuopt::check_device_operand(
          kFn, "desc->offsets", *ctx, p.offsets, sizeof(int64_t),
          static_cast<std::size_t>(p.num_segments + 1) * sizeof(int64_t), &v));
    const std::size_t need = gpuopt::segmented_sort_workspace_bytes(p);
    GPUOPT_TRY(gpuopt::check_workspace(kFn, "gpuopt_segmented_sort_workspace_size", *ctx, workspace,
                                       workspace_bytes, need, &v));
    const Range ranges[] = {{"keys_out", keys_out, n * ks},
                            {"values_out", values_out, n * vs},
                            {"workspace", workspace, need},
                            {"keys_in", keys_in, n * ks},
                            {"values_in", values_in, n * vs},
                            {"desc->offsets", p.offsets,
                             p.offsets ? static_cast<std::size_t>(p.num_segments + 1) * 8 : 0}};
    // Pairs of inputs may overlap (keys_in and values_in both read): check the first three
    // (writes) against everything.
    for (int i = 0; i < 3; ++i)
      for (int j = i + 1; j < 6; ++j)
        GPUOPT_TRY(gpuopt::check_disjoint(kFn, ranges[i].name, ranges[i].p, ranges[i].bytes,
                                          ranges[j].name, ranges[j].p, ranges[j].bytes));

    p.keys_in = keys_in;
    p.keys_out = keys_out;
    p.values_in = values_in;
    p.values_out = values_out;
    p.workspace = workspace;
    p.workspace_bytes = workspace_bytes;
    int count = 0;
    const gpuopt::Variant<gpuopt::SegmentedSortProblem>* table =
        gpuopt::segmented_sort_variants(&count);
    return gpuopt::run_dispatched(
        kFn, *ctx, *stream, GPUOPT_OP_SEGMENTED_SORT, table, count, p, p.key_type, [&] {
          char s[200];
          std::snprintf(s, sizeof s, "%s%s%s segments=%" PRId64 " items=%" PRId64 "%s",
                        gpuopt_dtype_name(p.key_type), vs ? (vs == 4 ? "+v4" : "+v8") : "",
                        p.descending ? " desc" : "", p.num_segments, p.num_items,
                        p.offsets ? " offsets" : "");
          return std::string(s);
        });
  });
}
