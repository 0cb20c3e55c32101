// The list of retired variant names (variant_alias.hpp). Entries are never removed within a major
// version: a name once accepted stays accepted.
#include "runtime/variant_alias.hpp"

#include <cstring>

namespace gpuopt {
namespace {

constexpr VariantAlias kAliases[] = {
    // Every GDN rung but `composed` fuses; this one is the mma.sync (sm_80) design, the
    // counterpart of sm90_wgmma_fused (issue 18 item 5).
    {"gdn", "fused", "sm80_mma_fused"},
};

}  // namespace

const VariantAlias* variant_aliases(int* count) {
  *count = static_cast<int>(sizeof kAliases / sizeof kAliases[0]);
  return kAliases;
}

const char* current_variant_name(const char* op_name, const char* name) {
  for (const VariantAlias& a : kAliases)
    if (std::strcmp(a.op_name, op_name) == 0 && std::strcmp(a.old_name, name) == 0) return a.name;
  return name;
}

}  // namespace gpuopt
