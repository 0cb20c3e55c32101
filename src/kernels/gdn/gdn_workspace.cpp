// Workspace layouts of the gdn variants (see gdn.hpp).
#include <cstdint>

#include "kernels/gdn/gdn.hpp"

namespace gpuopt {
namespace {

constexpr std::size_t kSat = SIZE_MAX;

std::size_t mul(std::size_t a, std::size_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kSat / b ? kSat : a * b;
}

std::size_t add(std::size_t a, std::size_t b) { return a > kSat - b ? kSat : a + b; }

// count floats in bytes, rounded up to 256 so the next piece starts aligned.
std::size_t floats(std::size_t count) {
  const std::size_t b = mul(count, sizeof(float));
  return b > kSat - 255 ? kSat : (b + 255) / 256 * 256;
}

std::size_t u(std::int64_t v) { return v > 0 ? static_cast<std::size_t>(v) : 0; }

// Appends a piece of count floats at the end of the layout; returns its offset.
std::size_t place(GdnWorkspaceLayout* l, std::size_t count) {
  const std::size_t at = l->total;
  l->total = add(l->total, floats(count));
  return at;
}

}  // namespace

GdnWorkspaceLayout gdn_composed_layout(gpuopt_gdn_pass_t pass, std::int64_t n, std::int64_t c,
                                       std::int64_t p) {
  GdnWorkspaceLayout l;
  const std::size_t tensor = mul(mul(u(n), u(c)), u(p));
  if (tensor == 0) return l;
  l.x2 = place(&l, tensor);  // forward: Z goes to y and y is finished in place
  if (pass == GPUOPT_GDN_FORWARD) return l;
  l.t = place(&l, tensor);
  l.ones = place(&l, p > n ? u(p) : u(n));
  l.rowsums = place(&l, mul(u(n), u(c)));
  l.dgpart = place(&l, mul(mul(u(n), u(c)), u(c)));  // per-image dgamma
  return l;
}

GdnWorkspaceLayout gdn_fused_layout(gpuopt_gdn_pass_t pass, std::int64_t n, std::int64_t c,
                                    std::int64_t p) {
  GdnWorkspaceLayout l;
  const std::size_t tensor = mul(mul(u(n), u(c)), u(p));
  if (tensor == 0) return l;
  const std::size_t cp = (u(c) + 31) / 32 * 32;
  if (pass == GPUOPT_GDN_FORWARD) {
    l.gsplit = place(&l, mul(mul(u(c), cp), 3));
    return l;
  }
  const std::size_t ptiles = (u(p) + kGdnTile - 1) / kGdnTile;
  const std::size_t chunks = (u(p) + kGdnDgammaChunk - 1) / kGdnDgammaChunk;
  l.t = place(&l, tensor);
  l.bpart = place(&l, mul(mul(u(n), ptiles), u(c)));
  l.dgpart = place(&l, mul(mul(mul(u(n), chunks), u(c)), u(c)));
  // gamma^T split (sm90_wgmma_fused), and gamma split beside it (sm90_onepass_fused)
  l.gsplit = place(&l, mul(mul(u(c), cp), 6));
  return l;
}

}  // namespace gpuopt
