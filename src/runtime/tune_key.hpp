// The problem class of the tuning cache: a fixed set of small integer fields per op (dtypes,
// layout flags, log2 size classes), named so that the cache file is readable. docs/tuning.md
// lists the fields of each op; src/api/tune_keys.cpp computes them from a problem.
#pragma once
#include <cstdint>
#include <cstring>

#include "gpuopt.h"

namespace gpuopt {

constexpr int kTuneFields = 10;  // the most fields an op's class has

// How a field is spelled in the cache file.
enum class TuneFieldKind {
  kDtype,   // a gpuopt_dtype_t, written by name ("f32")
  kNumber,  // a small integer (an enum value, a flag, a radius)
  kLog2,    // a size class: 0 for 0, else 1 + floor(log2(size)), written "2^floor(log2)"
};

struct TuneField {
  const char* name;
  TuneFieldKind kind;
};

// The fields of one op's class, in file order.
struct TuneSchema {
  int count;
  const TuneField* fields;
};

// The schema of op; nullptr for values outside gpuopt_op_t.
const TuneSchema* tune_schema(gpuopt_op_t op);

// One class. Fields past the op's count stay 0.
struct TuneKey {
  std::int16_t f[kTuneFields] = {};

  bool operator==(const TuneKey& o) const { return std::memcmp(f, o.f, sizeof f) == 0; }
  bool operator!=(const TuneKey& o) const { return !(*this == o); }
};

// Size class of x (see kLog2): 0 for x <= 0, 1 for 1, 13 for 4096 .. 8191.
inline std::int16_t tune_log2_class(std::int64_t x) {
  if (x <= 0) return 0;
  return static_cast<std::int16_t>(64 - __builtin_clzll(static_cast<std::uint64_t>(x)));
}

// A well-mixed 64-bit hash of (op, key), for the cache's table.
inline std::uint64_t tune_hash(int op, const TuneKey& k) {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ static_cast<std::uint64_t>(op);
  for (std::int16_t v : k.f) {
    h ^= static_cast<std::uint16_t>(v);
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  return h;
}

}  // namespace gpuopt
