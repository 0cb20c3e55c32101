// The registry's op-independent parts: the architecture rule's message and lookup by name. The
// ops' tables are listed outside the runtime (src/ops/ops_list.cpp defines op_table).
#include "runtime/registry.hpp"

#include <cstring>

#include "runtime/variant_alias.hpp"

namespace gpuopt {

std::string arch_reason(const VariantMeta& meta, const DeviceDesc& dev) {
  if (meta.exact_cc) {
    if (dev.cc != meta.exact_cc)
      return "arch-specific code for sm_" + std::to_string(meta.exact_cc) +
             "a only; device is cc " + std::to_string(dev.cc / 10) + "." +
             std::to_string(dev.cc % 10);
    return {};
  }
  if (dev.cc < meta.min_cc)
    return "needs compute capability " + std::to_string(meta.min_cc / 10) + "." +
           std::to_string(meta.min_cc % 10) + "; device is " + std::to_string(dev.cc / 10) + "." +
           std::to_string(dev.cc % 10);
  return {};
}

int find_variant(const OpTable& table, const char* name) {
  if (!name) return -1;
  name = current_variant_name(table.op_name, name);  // a retired name finds its rung
  for (int i = 0; i < table.count; ++i)
    if (std::strcmp(table.meta(i).name, name) == 0) return i;
  return -1;
}

}  // namespace gpuopt
