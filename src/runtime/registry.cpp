// The registry's op-independent parts: the architecture rule's message and lookup by name. The
// ops' tables are listed outside the runtime (src/ops/ops_list.cpp defines op_table).
#include "runtime/registry.hpp"

#include <cstring>
#include <string>

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

int find_config(const VariantMeta& meta, const char* name) {
  for (int i = 0; i < meta.configs.count; ++i)
    if (std::strcmp(meta.configs.names[i], name) == 0) return i;
  return -1;
}

int find_choice(const OpTable& table, const char* text, std::string* why, int* variant_out) {
  if (variant_out) *variant_out = -1;
  if (!text) {
    *why = "no name";
    return -1;
  }
  const char* colon = std::strchr(text, ':');
  const std::string variant = colon ? std::string(text, colon) : std::string(text);
  const int v = find_variant(table, variant.c_str());
  if (v < 0) {
    *why = "\"" + variant + "\" is not a variant of " + table.op_name + " (known:";
    for (int i = 0; i < table.count; ++i) *why += std::string(i ? ", " : " ") + table.meta(i).name;
    *why += ")";
    return -1;
  }
  if (variant_out) *variant_out = v;
  if (!colon) return v;
  const VariantMeta& meta = table.meta(v);
  const int c = find_config(meta, colon + 1);
  if (c < 0) {
    *why = "\"" + std::string(colon + 1) + "\" is not a configuration of " + table.op_name + " " +
           meta.name + " (";
    if (meta.configs.count == 0) *why += "it has none";
    for (int i = 0; i < meta.configs.count; ++i)
      *why += std::string(i ? ", " : "known: ") + meta.configs.names[i];
    *why += ")";
    return -1;
  }
  return pack_choice(v, c);
}

std::string choice_name(const OpTable& table, int packed) {
  const VariantMeta& meta = table.meta(choice_variant(packed));
  const int c = choice_config(packed);
  return c < 0 ? std::string(meta.name) : std::string(meta.name) + ":" + meta.configs.names[c];
}

}  // namespace gpuopt
