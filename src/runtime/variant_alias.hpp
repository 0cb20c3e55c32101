// Retired variant names. A rung that is renamed keeps its old name working wherever a variant
// name is accepted (GPUOPT_VARIANT_<OP>, gpuopt_context_set_variant): find_variant() looks the
// old name up here and answers the rung's index. Listing, gpuopt_context_get_variant and
// gpuopt_last_variant answer the current name (docs/abi.md, "Variant names").
#pragma once

namespace gpuopt {

struct VariantAlias {
  const char* op_name;   // OpTable::op_name, "gdn"
  const char* old_name;  // the retired name, "fused"
  const char* name;      // the rung's name now, "sm80_mma_fused"
};

// Every alias, for the docs and the tests; *count receives their number.
const VariantAlias* variant_aliases(int* count);

// The current name of `name` for op `op_name`: the rung's name when `name` is a retired one,
// else `name` itself.
const char* current_variant_name(const char* op_name, const char* name);

}  // namespace gpuopt
