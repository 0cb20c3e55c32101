// The variant registry: one table per op, each entry a kernel variant with the devices it runs on,
// the problems it can implement and its launcher. See docs/design.md ("Dispatch") for the rule.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "device.hpp"
#include "gpuopt.h"

namespace gpuopt {

// Number of ops in gpuopt_op_t.
constexpr int kOpCount = 7;

// Device workspace every gpuopt stream holds while it lives (taken zeroed from its context's
// pool at the stream's first op or gpuopt_graph_begin, never during a capture): ops that need
// scratch (reduce: partials, counters, CUB temp storage) take it from ExecEnv. An op that relies on
// zeros in part of it leaves that part zero when its kernels end.
constexpr std::size_t kOpWorkspaceBytes = std::size_t{6} << 20;

// Per-call storage for a variant's launch plan (Variant::plan): the dispatcher keeps one on its
// stack, the variant's plan step fills it while deciding whether it can run the problem, and the
// launcher reads it through ExecEnv::plan, so work both need (the sm90 GEMM's TMA descriptors) is
// done once per call without allocating. A variant casts it to its own plan type and
// static_asserts that the type fits (size and alignment: CUtensorMap is 128-byte aligned).
struct alignas(128) PlanStorage {
  unsigned char bytes[512];
};

// What a launcher gets besides the problem: where to enqueue and with what.
struct ExecEnv {
  cudaStream_t stream = nullptr;
  // The stream's cuBLAS handle (vendor variants). cuBLAS documents that a cublasHandle_t can be
  // used as a cublasLtHandle_t by a cast: the cuBLASLt variant uses the same handle.
  cublasHandle_t blas = nullptr;
  // The workspace set on `blas` (cublasSetWorkspace); cuBLASLt calls on the same stream pass it
  // to cublasLtMatmul, in stream order with the cuBLAS calls that use it.
  void* blas_workspace = nullptr;
  std::size_t blas_workspace_bytes = 0;
  const DeviceDesc* device = nullptr;
  const char* fn = "";        // public entry point, for error messages
  void* workspace = nullptr;  // the stream's op workspace (kOpWorkspaceBytes, see above)
  std::size_t workspace_bytes = 0;
  // The plan the variant's plan step made for this problem in this call, or nullptr (a variant
  // without one, or a caller that launched without dispatching): the launcher then plans itself.
  const PlanStorage* plan = nullptr;
  // The run-time configuration to launch with (an index into the variant's VariantConfigs), or -1:
  // the rung's own rule. Set from a tuning cache entry, a forced "variant:config" or gpuopt_tune.
  // A variant that can find out only at launch that a configuration does not apply to a problem
  // (cublaslt: fewer heuristic algorithms) answers UNSUPPORTED when config_forced, else runs its
  // own rule (a tuning cache entry is a hint, never an error).
  int config = -1;
  bool config_forced = false;
};

// A rung's run-time configurations (docs/tuning.md): the names a tuning cache records after the
// variant's ("sm90_tma_wgmma:coop_c2") and gpuopt_context_set_variant accepts. Configuration i
// reaches the variant's plan step and launcher as the index i; -1 is the rung's own rule.
struct VariantConfigs {
  const char* const* names = nullptr;
  int count = 0;
  // The configuration the rung's own rule always chooses (the tuning search does not time it
  // twice), or -1 when the rule's choice depends on the problem.
  int rule = -1;
};

// Static description of a variant, as listed through the C API.
struct VariantMeta {
  const char* name;
  const char* technique;
  int min_cc;    // runs on cc >= min_cc ...
  int exact_cc;  // ... or, when nonzero, only on exactly this cc (sm_90a code)
  bool is_vendor;
  unsigned dtype_mask;  // bit (1u << gpuopt_dtype_t)
  VariantConfigs configs{};
};

constexpr unsigned dtype_bit(gpuopt_dtype_t t) { return 1u << static_cast<unsigned>(t); }

// Size in bytes of an element of a gpuopt dtype (0 for a value outside the enum).
constexpr std::size_t dtype_size(gpuopt_dtype_t t) {
  switch (t) {
    case GPUOPT_DTYPE_F64:
    case GPUOPT_DTYPE_I64:
    case GPUOPT_DTYPE_U64:
      return 8;
    case GPUOPT_DTYPE_F32:
    case GPUOPT_DTYPE_I32:
    case GPUOPT_DTYPE_U32:
      return 4;
    case GPUOPT_DTYPE_F16:
    case GPUOPT_DTYPE_BF16:
      return 2;
  }
  return 0;
}

// Empty when the variant's code runs on the device, else the reason.
std::string arch_reason(const VariantMeta& meta, const DeviceDesc& dev);

// One entry of an op's table. can_implement returns nullptr when it can, else the reason;
// preference ranks the entries that can (higher wins), given the problem and device.
//
// A variant whose check does work its launch needs again sets plan instead of can_implement:
// plan answers as can_implement does and, when it accepts, leaves the launch plan in *storage;
// the dispatcher hands that storage to launch as ExecEnv::plan. config is the run-time
// configuration asked for (-1: the rung's own rule; only variants with VariantConfigs see others):
// the plan refuses one that cannot implement the problem.
template <class Problem>
struct Variant {
  VariantMeta meta;
  const char* (*can_implement)(const Problem&, const DeviceDesc&);
  int (*preference)(const Problem&, const DeviceDesc&);
  gpuopt_status_t (*launch)(const Problem&, const ExecEnv&);
  const char* (*plan)(const Problem&, const DeviceDesc&, int config,
                      PlanStorage* storage) = nullptr;
};

// Type-erased view of an op's table, for listing and forcing by name.
struct OpTable {
  const char* op_name;   // "axpy"
  const char* env_name;  // "GPUOPT_VARIANT_AXPY"
  int count;
  const VariantMeta& (*meta)(int index);
};

// The table of op, or nullptr for unknown ops. Defined by the list of ops (src/ops/ops_list.cpp),
// not by the runtime: the runtime knows no op.
const OpTable* op_table(gpuopt_op_t op);

// Index of the variant called name in op's table, or -1.
int find_variant(const OpTable& table, const char* name);

// A variant and one of its run-time configurations in one int, as the forced slot, the tuning
// probe and the tuning table hold them: the variant index in the low 16 bits, config + 1 above.
// A variant under its own rule (config -1) packs to its index; -1 is none (auto).
constexpr int pack_choice(int variant, int config) {
  return variant < 0 ? -1 : variant | (config + 1) << 16;
}
constexpr int choice_variant(int packed) { return packed < 0 ? -1 : packed & 0xffff; }
constexpr int choice_config(int packed) { return packed < 0 ? -1 : (packed >> 16) - 1; }

// Index of the configuration called name of a variant, or -1.
int find_config(const VariantMeta& meta, const char* name);

// "variant" or "variant:config" (docs/tuning.md) as a packed choice, or -1 with *why (unknown
// variant or configuration, naming the known ones). *variant (may be nullptr): the index of the
// named variant, also when only its configuration is unknown, or -1 for an unknown variant.
int find_choice(const OpTable& table, const char* text, std::string* why, int* variant = nullptr);

// The name of a packed choice: "variant" or "variant:config".
std::string choice_name(const OpTable& table, int packed);

// Result of choosing a variant for a problem.
struct Choice {
  int index = -1;  // -1: none can run it
  gpuopt_status_t status = GPUOPT_SUCCESS;
  std::string reason;    // why not, when index == -1
  std::string trace;     // candidates and verdicts, for GPUOPT_LOG=debug
  bool planned = false;  // the plan storage passed to choose_variant holds the chosen one's plan
  int config = -1;       // the chosen variant's run-time configuration (-1: its own rule)
};

// True when the variant's code runs on the device (arch_reason gives the reason when not).
constexpr bool arch_ok(const VariantMeta& meta, const DeviceDesc& dev) {
  return meta.exact_cc ? dev.cc == meta.exact_cc : dev.cc >= meta.min_cc;
}

// The refusal "the variant's code does not run on this device", spelled out by arch_reason only
// when a message needs it (the per-call path builds no strings).
inline constexpr char kArchRefusal[] = "arch";

// Why v cannot implement the problem (nullptr: it can): can_implement, or plan into *storage
// (into a scratch one when storage is nullptr).
// config: the run-time configuration asked for (-1: the rung's own rule).
template <class Problem>
const char* implement_refusal(const Variant<Problem>& v, const Problem& p, const DeviceDesc& dev,
                              PlanStorage* storage, int config = -1) {
  if (v.plan) {
    if (storage) return v.plan(p, dev, config, storage);
    PlanStorage scratch;
    return v.plan(p, dev, config, &scratch);
  }
  return v.can_implement ? v.can_implement(p, dev) : nullptr;
}

// Why v cannot run the problem (nullptr: it can): dtype, architecture (kArchRefusal), then
// implement_refusal.
template <class Problem>
const char* refusal(const Variant<Problem>& v, const Problem& p, gpuopt_dtype_t dtype,
                    const DeviceDesc& dev, PlanStorage* storage = nullptr, int config = -1) {
  if (!(v.meta.dtype_mask & dtype_bit(dtype))) return "dtype not supported";
  if (!arch_ok(v.meta, dev)) return kArchRefusal;
  return implement_refusal(v, p, dev, storage, config);
}

inline std::string refusal_text(const VariantMeta& meta, const DeviceDesc& dev, const char* why) {
  return why == kArchRefusal ? arch_reason(meta, dev) : std::string(why);
}

// The dispatch rule. forced >= 0: that variant (a packed choice: with its configuration, if any;
// c.config says which), or UNSUPPORTED with its reason. Otherwise the
// entry with the highest preference among those whose dtype, arch and can_implement accept the
// problem (ties: the later table entry, i.e. the higher rung).
//
// Per call (no trace, not forced) preferences are ranked first and can_implement runs only down
// that ranking until one accepts: a costly check (the sm90 GEMM's plan encodes two TMA
// descriptors) is skipped when a preferred variant takes the problem, and no string is built.
// With a trace, or when nothing accepts, every entry is examined as the rule states.
//
// plan (may be nullptr): where planning variants leave their plan; c.planned says whether it
// holds the chosen variant's plan on return.
template <class Problem>
Choice choose_variant(const Variant<Problem>* table, int count, const Problem& p,
                      gpuopt_dtype_t dtype, const DeviceDesc& dev, int forced, bool want_trace,
                      PlanStorage* plan = nullptr) {
  Choice c;
  constexpr int kMaxRanked = 64;
  if (!want_trace && forced < 0 && count <= kMaxRanked) {
    int order[kMaxRanked];
    int pref[kMaxRanked];
    int n = 0;
    for (int i = 0; i < count; ++i) {
      const Variant<Problem>& v = table[i];
      if (!(v.meta.dtype_mask & dtype_bit(dtype)) || !arch_ok(v.meta, dev)) continue;
      pref[i] = v.preference ? v.preference(p, dev) : 0;
      // Insert keeping (preference desc, index desc): ties go to the later entry.
      int k = n++;
      for (; k > 0 && pref[order[k - 1]] <= pref[i]; --k) order[k] = order[k - 1];
      order[k] = i;
    }
    for (int k = 0; k < n; ++k) {
      const Variant<Problem>& v = table[order[k]];
      if (!implement_refusal(v, p, dev, plan)) {
        c.index = order[k];
        c.planned = v.plan && plan;
        return c;
      }
    }
  }
  // A forced choice may carry a configuration (only a variant that declares it sees one).
  int config = choice_config(forced);
  forced = choice_variant(forced);
  if (forced >= 0 && forced < count && config >= table[forced].meta.configs.count) config = -1;
  int best_pref = 0;
  int last_planned = -1;  // the entry whose plan step last wrote *plan
  std::string first_reason;
  for (int i = 0; i < count; ++i) {
    if (forced >= 0 && i != forced) continue;
    const Variant<Problem>& v = table[i];
    const char* why = refusal(v, p, dtype, dev, plan, i == forced ? config : -1);
    if (v.plan && plan && (v.meta.dtype_mask & dtype_bit(dtype)) && arch_ok(v.meta, dev))
      last_planned = i;
    int pref = why ? 0 : (v.preference ? v.preference(p, dev) : 0);
    if (want_trace) {
      c.trace += c.trace.empty() ? "" : ", ";
      c.trace += v.meta.name;
      c.trace += why ? (" no (" + refusal_text(v.meta, dev, why) + ")")
                     : (" ok pref=" + std::to_string(pref));
    }
    if (why) {
      if (first_reason.empty())
        first_reason = std::string(v.meta.name) + ": " + refusal_text(v.meta, dev, why);
      continue;
    }
    if (c.index < 0 || pref >= best_pref) {
      c.index = i;
      best_pref = pref;
    }
  }
  if (c.index < 0) {
    c.status = GPUOPT_ERROR_UNSUPPORTED;
    c.reason = forced >= 0
                   ? "forced variant " + first_reason
                   : "no variant can run this problem (first refusal: " + first_reason + ")";
  } else {
    c.config = c.index == forced ? config : -1;
    if (table[c.index].plan && plan)
      // The storage holds the winner's plan unless a later planning entry wrote it last (several
      // entries plan and all were examined): then plan the winner again.
      c.planned = last_planned == c.index || !table[c.index].plan(p, dev, c.config, plan);
  }
  return c;
}

}  // namespace gpuopt
