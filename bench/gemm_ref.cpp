#include "gemm_ref.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace bench {

double gemm_tolerance(const std::string& config) {
  if (config == "f64") return 1e-12;
  if (config == "f32") return 1e-5;
  if (config == "tf32") return 5e-3;
  if (config == "bf16" || config == "bf16_bf16") return 2e-2;
  throw std::invalid_argument("gemm_tolerance: unknown config '" + config + "'");
}

GemmIndex gemm_unflatten(std::uint64_t i, std::int64_t m, std::int64_t n) {
  GemmIndex at;
  if (m <= 0 || n <= 0) return at;
  const auto um = static_cast<std::uint64_t>(m);
  const auto per = um * static_cast<std::uint64_t>(n);
  at.batch = static_cast<std::int64_t>(i / per);
  at.col = static_cast<std::int64_t>((i % per) / um);
  at.row = static_cast<std::int64_t>(i % um);
  return at;
}

namespace {

std::string where(std::uint64_t i, std::int64_t m, std::int64_t n, std::uint64_t elements) {
  const GemmIndex at = gemm_unflatten(i, m, n);
  char buf[96];
  if (elements > static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(n)) {
    std::snprintf(buf, sizeof(buf), "(%lld, %lld) of batch %lld", static_cast<long long>(at.row),
                  static_cast<long long>(at.col), static_cast<long long>(at.batch));
  } else {
    std::snprintf(buf, sizeof(buf), "(%lld, %lld)", static_cast<long long>(at.row),
                  static_cast<long long>(at.col));
  }
  return buf;
}

}  // namespace

GemmVerdict gemm_judge(const std::vector<GemmCheckPart>& parts, double tol, std::int64_t m,
                       std::int64_t n, std::uint64_t elements) {
  GemmCheckPart all;
  gemm_part_init(&all);
  for (const GemmCheckPart& p : parts) gemm_part_merge(&all, p);

  GemmVerdict v;
  v.max_abs = all.max_abs;
  v.nonfinite = all.nonfinite;
  v.reference_ok = all.ref_nonfinite == 0;
  char buf[256];
  if (!v.reference_ok) {
    v.rel_err = std::numeric_limits<double>::quiet_NaN();
    std::snprintf(buf, sizeof(buf), "the reference has %llu non-finite elements",
                  static_cast<unsigned long long>(all.ref_nonfinite));
    v.mismatch = buf;
    return v;
  }
  if (all.nonfinite > 0) {
    v.rel_err = std::numeric_limits<double>::quiet_NaN();
    std::snprintf(
        buf, sizeof(buf), "%llu of %llu elements not finite (unwritten or NaN), first at ",
        static_cast<unsigned long long>(all.nonfinite), static_cast<unsigned long long>(elements));
    v.mismatch = buf + where(all.first_nonfinite, m, n, elements);
    return v;
  }
  v.rel_err = all.ref2 > 0.0 ? std::sqrt(all.err2 / all.ref2) : std::sqrt(all.err2);
  v.correct = v.rel_err <= tol;  // NaN (cannot happen here) fails too
  if (!v.correct) {
    std::snprintf(buf, sizeof(buf), "rel_err %.3g above %.0e; largest |error| %.3g at ", v.rel_err,
                  tol, all.max_abs);
    v.mismatch = buf + where(all.max_index, m, n, elements);
  }
  return v;
}

}  // namespace bench
