// Variant listing, forcing and introspection.
#include <cstring>

#include "runtime/context.hpp"
#include "runtime/error.hpp"
#include "runtime/log.hpp"
#include "runtime/registry.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace {
gpuopt_status_t check_op(const char* fn, gpuopt_op_t op, const gpuopt::OpTable** t) {
  *t = gpuopt::op_table(op);
  if (!*t)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "op is %d, not a gpuopt_op_t value",
                static_cast<int>(op));
  return GPUOPT_SUCCESS;
}

gpuopt_status_t check_index(const char* fn, const gpuopt::OpTable& t, int index) {
  if (index < 0 || index >= t.count)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "index is %d; %s has variants 0..%d", index,
                t.op_name, t.count - 1);
  return GPUOPT_SUCCESS;
}

// The name of the variant index `slot` reads from a context (its forced or its last variant), or
// `none` while the slot holds no variant.
template <class Slot>
gpuopt_status_t slot_name(const char* fn, gpuopt_context_t ctx, gpuopt_op_t op, const char** name,
                          Slot slot, const char* none) {
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    const gpuopt::OpTable* t;
    GPUOPT_TRY(check_op(fn, op, &t));
    if (!name) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "name is NULL");
    const int idx = gpuopt::choice_variant(slot(*ctx).load());
    *name = idx < 0 ? none : t->meta(idx).name;
    return GPUOPT_SUCCESS;
  });
}

}  // namespace

extern "C" {

GPUOPT_API gpuopt_status_t gpuopt_variant_count(gpuopt_context_t ctx, gpuopt_op_t op, int* count) {
  static const char* fn = "gpuopt_variant_count";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    const gpuopt::OpTable* t;
    GPUOPT_TRY(check_op(fn, op, &t));
    if (!count) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "count is NULL");
    *count = t->count;
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_variant_name(gpuopt_context_t ctx, gpuopt_op_t op, int index,
                                               const char** name) {
  static const char* fn = "gpuopt_variant_name";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    const gpuopt::OpTable* t;
    GPUOPT_TRY(check_op(fn, op, &t));
    if (!name) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "name is NULL");
    GPUOPT_TRY(check_index(fn, *t, index));
    *name = t->meta(index).name;
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_variant_info(gpuopt_context_t ctx, gpuopt_op_t op, int index,
                                               gpuopt_variant_info_t* info) {
  static const char* fn = "gpuopt_variant_info";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    const gpuopt::OpTable* t;
    GPUOPT_TRY(check_op(fn, op, &t));
    GPUOPT_TRY(check_index(fn, *t, index));
    const gpuopt::VariantMeta& m = t->meta(index);
    gpuopt_variant_info_t full{};
    full.struct_size = sizeof full;
    full.name = m.name;
    full.technique = m.technique;
    full.min_cc = m.min_cc;
    full.exact_cc = m.exact_cc;
    full.is_vendor = m.is_vendor ? 1 : 0;
    full.available = gpuopt::arch_reason(m, ctx->desc).empty() ? 1 : 0;
    full.dtype_mask = m.dtype_mask;
    return gpuopt::copy_sized_struct(fn, "info", &full, sizeof full, info);
  });
}

GPUOPT_API gpuopt_status_t gpuopt_context_set_variant(gpuopt_context_t ctx, gpuopt_op_t op,
                                                      const char* name) {
  static const char* fn = "gpuopt_context_set_variant";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    const gpuopt::OpTable* t;
    GPUOPT_TRY(check_op(fn, op, &t));
    if (!name || std::strcmp(name, "auto") == 0) {
      ctx->forced[op] = -1;
      gpuopt::log(gpuopt::LogLevel::info, "%s: automatic variant choice", t->op_name);
      return GPUOPT_SUCCESS;
    }
    std::string why;
    int variant = -1;
    const int choice = gpuopt::find_choice(*t, name, &why, &variant);
    if (choice < 0)
      return variant >= 0 ? fail(GPUOPT_ERROR_NOT_FOUND, fn, "name \"%s\": %s", name, why.c_str())
                          : fail(GPUOPT_ERROR_NOT_FOUND, fn, "name %s", why.c_str());
    why = gpuopt::arch_reason(t->meta(gpuopt::choice_variant(choice)), ctx->desc);
    if (!why.empty())
      return fail(GPUOPT_ERROR_UNSUPPORTED, fn, "variant %s cannot run here: %s", name,
                  why.c_str());
    ctx->forced[op] = choice;
    gpuopt::log(gpuopt::LogLevel::info, "%s: forced variant %s", t->op_name, name);
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_context_get_variant(gpuopt_context_t ctx, gpuopt_op_t op,
                                                      const char** name) {
  return slot_name(
      "gpuopt_context_get_variant", ctx, op, name,
      [op](gpuopt_context_s& c) -> std::atomic<int>& { return c.forced[op]; }, "auto");
}

GPUOPT_API gpuopt_status_t gpuopt_last_variant(gpuopt_context_t ctx, gpuopt_op_t op,
                                               const char** name) {
  return slot_name(
      "gpuopt_last_variant", ctx, op, name,
      [op](gpuopt_context_s& c) -> std::atomic<int>& { return c.last[op]; }, nullptr);
}

}  // extern "C"
