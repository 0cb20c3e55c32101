#include "runtime/tune_key.hpp"

namespace gpuopt {
namespace {

constexpr TuneFieldKind D = TuneFieldKind::kDtype;
constexpr TuneFieldKind N = TuneFieldKind::kNumber;
constexpr TuneFieldKind L = TuneFieldKind::kLog2;

constexpr TuneField kAxpy[] = {{"dtype", D}, {"n", L}, {"unit_stride", N}, {"compressible", N}};
constexpr TuneField kGemm[] = {{"a", D}, {"c", D}, {"compute", N}, {"ta", N},    {"tb", N},
                               {"m", L}, {"n", L}, {"k", L},       {"batch", L}, {"align16", N}};
constexpr TuneField kReduce[] = {{"op", N},     {"in", D}, {"mode", N},
                                 {"layout", N}, {"n", L},  {"segments", L}};
constexpr TuneField kSort[] = {{"key", D},   {"value_bytes", N}, {"descending", N},  {"layout", N},
                               {"items", L}, {"segments", L},    {"segment_size", L}};
constexpr TuneField kStencil[] = {{"dtype", D}, {"dims", N}, {"radius", N}, {"boundary", N},
                                  {"nx", L},    {"ny", L},   {"nz", L}};
constexpr TuneField kTranspose[] = {{"dtype", D}, {"rows", L}, {"cols", L}, {"align16", N}};
constexpr TuneField kGdn[] = {{"pass", N}, {"inverse", N}, {"tf32", N},
                              {"n", L},    {"c", L},       {"p", L}};

template <int Count>
constexpr TuneSchema schema(const TuneField (&f)[Count]) {
  static_assert(Count <= kTuneFields, "raise kTuneFields");
  return {Count, f};
}

constexpr TuneSchema kSchemas[] = {schema(kAxpy), schema(kGemm),    schema(kReduce),
                                   schema(kSort), schema(kStencil), schema(kTranspose),
                                   schema(kGdn)};

}  // namespace

const TuneSchema* tune_schema(gpuopt_op_t op) {
  const int i = static_cast<int>(op);
  if (i < 0 || i >= static_cast<int>(sizeof kSchemas / sizeof kSchemas[0])) return nullptr;
  return &kSchemas[i];
}

}  // namespace gpuopt
