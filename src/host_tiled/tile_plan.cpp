#include "tile_plan.hpp"

#include <stdio.h>

#include <algorithm>

namespace gpuopt_host_tiled {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
double dbl(int64_t v) { return static_cast<double>(v); }

// Bytes the CPU copies for C: the finished tile is unpacked from the pinned ring into C, reading C
// too when beta != 0 (C = D + beta C: read D, read C, write C, about one and a half copies).
double c_host_bytes(const PlanInput& in) {
  if (!in.c_pageable) return 0;
  const double c = static_cast<double>(in.m) * static_cast<double>(in.n) * dbl(in.elem);
  return in.reads_c ? 1.5 * c : c;
}

void finish(const PlanInput& in, Plan* p) {
  p->seconds = std::max(
      {p->host_bytes / in.copy_rate, p->link_bytes / in.link_rate, p->flops / in.gemm_rate});
}

}  // namespace

Plan plan_tiles(const PlanInput& in) {
  Plan p;
  p.order = Order::kTiles;
  const int64_t t = std::max<int64_t>(1, in.tile_mn);
  p.tile_m = p.tile_n = t;
  p.tiles_m = ceil_div(in.m, t);
  p.tiles_n = ceil_div(in.n, t);
  const int64_t tiles = p.tiles_m * p.tiles_n;
  p.devices = static_cast<int>(std::min<int64_t>(std::max(1, in.devices), tiles));
  const double a = static_cast<double>(in.m) * static_cast<double>(in.k) * dbl(in.elem);
  const double b = static_cast<double>(in.k) * static_cast<double>(in.n) * dbl(in.elem);
  const double c = static_cast<double>(in.m) * static_cast<double>(in.n) * dbl(in.elem);
  // A's row panel crosses once per tile column, B's column panel once per tile row.
  const double a_moved = a * static_cast<double>(p.tiles_n);
  const double b_moved = b * static_cast<double>(p.tiles_m);
  p.host_bytes = (in.a_pageable ? a_moved : 0) + (in.b_pageable ? b_moved : 0) + c_host_bytes(in);
  // The busiest device takes ceil(tiles / devices) of the tiles.
  const double share = p.devices > 0 ? static_cast<double>(ceil_div(tiles, p.devices)) /
                                           static_cast<double>(std::max<int64_t>(1, tiles))
                                     : 1;
  const double c_link = in.c_device ? 0 : c * (in.reads_c && !in.c_pageable ? 2 : 1);
  p.link_bytes = share * ((in.a_device ? 0 : a_moved) + (in.b_device ? 0 : b_moved) + c_link);
  p.flops = share * 2.0 * static_cast<double>(in.m) * static_cast<double>(in.n) *
            static_cast<double>(in.k);
  finish(in, &p);
  return p;
}

bool plan_panels(const PlanInput& in, Plan* out) {
  if (in.m < 1 || in.n < 1 || in.k < 1 || in.tile_mn < 1 || in.tile_k < 1) return false;
  Plan p;
  p.order = Order::kPanels;
  const int64_t devices = std::max(1, in.devices);
  p.tile_n = ceil_div(in.n, devices);
  p.tiles_n = ceil_div(in.n, p.tile_n);
  p.devices = static_cast<int>(p.tiles_n);
  // The C tile buffers hold tile_mn^2 elements, the A chunk slots tile_mn x tile_k.
  const int64_t area = in.tile_mn * in.tile_mn;
  p.tile_m = std::min({in.m, in.tile_mn, area / p.tile_n});
  const int64_t thinnest = std::min<int64_t>(in.m, std::max<int64_t>(16, in.tile_mn / 32));
  if (p.tile_m < thinnest) return false;
  // op(B)^T chunks are staged by stored columns of tile_n elements through tile_mn x tile_k slots.
  if (p.tile_n > in.tile_mn * in.tile_k) return false;
  if (dbl(in.k) * dbl(p.tile_n) * dbl(in.elem) > dbl(in.panel_budget)) return false;
  p.panel_bytes = in.k * p.tile_n * in.elem;
  p.tiles_m = ceil_div(in.m, p.tile_m);
  const double a = static_cast<double>(in.m) * static_cast<double>(in.k) * dbl(in.elem);
  const double b = static_cast<double>(in.k) * static_cast<double>(in.n) * dbl(in.elem);
  const double b_dev = static_cast<double>(in.k) * static_cast<double>(p.tile_n) * dbl(in.elem);
  const double c_dev = static_cast<double>(in.m) * static_cast<double>(p.tile_n) * dbl(in.elem);
  // A is packed once and copied to every device from the same pinned slot; B once, in panels.
  p.host_bytes = (in.a_pageable ? a : 0) + (in.b_pageable ? b : 0) + c_host_bytes(in);
  p.link_bytes = (in.a_device ? 0 : a) + (in.b_device ? 0 : b_dev) +
                 (in.c_device ? 0 : c_dev * (in.reads_c && !in.c_pageable ? 2 : 1));
  p.flops =
      2.0 * static_cast<double>(in.m) * static_cast<double>(p.tile_n) * static_cast<double>(in.k);
  finish(in, &p);
  *out = p;
  return true;
}

Plan plan_gemm(const PlanInput& in) {
  Plan tiles = plan_tiles(in);
  Plan panels;
  if (in.order == Order::kTiles || !plan_panels(in, &panels)) return tiles;
  if (in.order == Order::kPanels) return panels;
  const double lo = std::min(tiles.seconds, panels.seconds);
  if (std::max(tiles.seconds, panels.seconds) > 1.03 * lo)
    return panels.seconds < tiles.seconds ? panels : tiles;
  auto sum = [&in](const Plan& p) {
    return p.host_bytes / in.copy_rate + p.link_bytes / in.link_rate + p.flops / in.gemm_rate;
  };
  return sum(panels) < sum(tiles) ? panels : tiles;
}

Rect part_of(const Plan& p, int64_t m, int64_t n, int64_t t) {
  Rect r;
  int64_t ti, tj;
  if (p.order == Order::kPanels) {
    ti = t / p.tiles_n;
    tj = t % p.tiles_n;
  } else {
    ti = t % p.tiles_m;
    tj = t / p.tiles_m;
  }
  r.i0 = ti * p.tile_m;
  r.j0 = tj * p.tile_n;
  r.rows = std::min(p.tile_m, m - r.i0);
  r.cols = std::min(p.tile_n, n - r.j0);
  return r;
}

std::string describe(const Plan& p) {
  char s[256];
  if (p.order == Order::kPanels)
    snprintf(s, sizeof s,
             "panels %lldx%lld x%lld on %d GPU%s, B panel %.3g GB, host copies %.3g GB, model "
             "%.3g s",
             static_cast<long long>(p.tile_m), static_cast<long long>(p.tile_n),
             static_cast<long long>(p.tiles_m), p.devices, p.devices == 1 ? "" : "s",
             static_cast<double>(p.panel_bytes) * 1e-9, p.host_bytes * 1e-9, p.seconds);
  else
    snprintf(s, sizeof s, "tiles %lldx%lld x%lld on %d GPU%s, host copies %.3g GB, model %.3g s",
             static_cast<long long>(p.tile_m), static_cast<long long>(p.tile_n),
             static_cast<long long>(p.tiles_m * p.tiles_n), p.devices, p.devices == 1 ? "" : "s",
             p.host_bytes * 1e-9, p.seconds);
  return s;
}

}  // namespace gpuopt_host_tiled
