#include "verify.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "check.hpp"

namespace bench {
namespace {

struct Partial {
  double err2 = 0.0, ref2 = 0.0;
  std::int64_t bad = 0;
  std::int64_t first_bad = -1;
  double got = 0.0, want = 0.0;
  bool finite = true;
};

template <class T>
void check_range(const AxpyCheck& c, const T* out, std::int64_t begin, std::int64_t end,
                 Partial* p) {
  const double eps = std::numeric_limits<T>::epsilon();
  const double a = c.alpha;
  const double k = static_cast<double>(c.calls);
  for (std::int64_t i = begin; i < end; ++i) {
    const auto idx = static_cast<std::uint64_t>(i);
    const double x = static_cast<double>(gen_value<T>(c.kind, c.seed, kStreamX, idx));
    const double y0 = static_cast<double>(gen_value<T>(c.kind, c.seed, kStreamY, idx));
    const double ref = y0 + k * (a * x);
    const double got = static_cast<double>(out[i]);
    const double d = got - ref;
    // Each of `calls` updates rounds once or twice (no FMA) in T; allow 4 ulps of the largest
    // magnitude seen along the way, per update.
    const double bound = 4.0 * eps * k * (k * std::fabs(a * x) + std::fabs(y0));
    if (!std::isfinite(got)) p->finite = false;
    if (!(std::fabs(d) <= bound)) {  // NaN fails too
      if (p->bad++ == 0) {
        p->first_bad = i;
        p->got = got;
        p->want = ref;
      }
    }
    p->err2 += d * d;
    p->ref2 += ref * ref;
  }
}

template <class T>
VerifyResult verify_typed(const AxpyCheck& c, const T* out) {
  unsigned hw = std::thread::hardware_concurrency();
  std::int64_t threads = std::clamp<std::int64_t>(hw == 0 ? 1 : hw, 1, 32);
  if (c.n < (std::int64_t{1} << 16)) threads = 1;
  std::vector<Partial> parts(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  const std::int64_t chunk = (c.n + threads - 1) / threads;
  for (std::int64_t t = 0; t < threads; ++t) {
    std::int64_t b = std::min(c.n, t * chunk), e = std::min(c.n, b + chunk);
    pool.emplace_back(check_range<T>, std::cref(c), out, b, e, &parts[static_cast<size_t>(t)]);
  }
  for (auto& th : pool) th.join();

  Partial all;
  for (const Partial& p : parts) {  // in index order, so first_bad is the lowest index
    all.err2 += p.err2;
    all.ref2 += p.ref2;
    all.finite = all.finite && p.finite;
    if (p.bad > 0 && all.bad == 0) {
      all.first_bad = p.first_bad;
      all.got = p.got;
      all.want = p.want;
    }
    all.bad += p.bad;
  }
  VerifyResult r;
  r.bad = all.bad;
  r.first_bad = all.first_bad;
  r.first_got = all.got;
  r.first_want = all.want;
  if (!all.finite) {
    r.rel_err = std::numeric_limits<double>::quiet_NaN();
  } else {
    r.rel_err = all.ref2 > 0.0 ? std::sqrt(all.err2 / all.ref2) : std::sqrt(all.err2);
  }
  r.correct = all.finite && r.bad == 0 && r.rel_err <= rel_bar(c.dtype);
  return r;
}

}  // namespace

double rel_bar(gpuopt_dtype_t dtype) { return dtype == GPUOPT_DTYPE_F64 ? 1e-14 : 1e-6; }

VerifyResult verify_axpy(const AxpyCheck& c, const void* out) {
  if (c.dtype == GPUOPT_DTYPE_F32) return verify_typed(c, static_cast<const float*>(out));
  if (c.dtype == GPUOPT_DTYPE_F64) return verify_typed(c, static_cast<const double*>(out));
  throw BenchError(GPUOPT_ERROR_UNSUPPORTED, "verify_axpy: dtype not supported by the bench");
}

}  // namespace bench
