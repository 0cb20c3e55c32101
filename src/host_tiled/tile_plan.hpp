// The order in which the host-tiled pipeline walks C, and what each order costs in CPU copies,
// bytes over the host links and flops per device (docs/notes/blas.md, "Tile orders").
//
// Two orders:
//   tiles   square tile_mn tiles of C dealt to the workers of every device; each tile streams its
//           row panel of op(A) and its column panel of op(B) in k chunks, so the CPU packs A once
//           per tile column and B once per tile row.
//   panels  C's columns are split into one block per device; each device keeps op(B)'s column
//           panel for its block resident in device memory (loaded once, chunk by chunk, by the
//           first worker that needs it), and the workers walk row tiles of C across all devices
//           together: every k chunk of op(A)'s row panel is packed once into pinned memory and
//           copied from there to every device. The CPU packs A once and B once, whatever the
//           number of devices; the cost is k x (n / devices) elements of device memory per device.
// Pure host code (no CUDA) so the choice is unit-tested on any machine.
#pragma once

#include <stdint.h>

#include <string>

namespace gpuopt_host_tiled {

enum class Order { kAuto, kTiles, kPanels };

/** What the planner needs to know about one GEMM (column-major C = alpha op(A) op(B) + beta C). */
struct PlanInput {
  int64_t m = 0, n = 0, k = 0;
  int64_t elem = 8;  // bytes per element
  // Where the operands live: pageable host memory is packed by the CPU into the pinned ring
  // (host copies and link bytes); page-locked host memory crosses the link without a CPU copy;
  // device memory does neither.
  bool a_pageable = true, b_pageable = true, c_pageable = true;
  bool a_device = false, b_device = false, c_device = false;
  bool reads_c = true;  // beta != 0
  int devices = 1;
  int64_t tile_mn = 8192, tile_k = 512;  // the pipeline's Options
  int64_t panel_budget = 0;              // device memory a B panel may take on each device (bytes)
  Order order = Order::kAuto;            // kTiles / kPanels: that order when it is possible
  // The model's rates: the CPU's aggregate copy rate into the pinned ring (bytes copied per
  // second, all copy threads), one device's host link, one device's GEMM rate.
  double copy_rate = 40e9, link_rate = 50e9, gemm_rate = 50e12;
};

/** One order for one call, with the model's figures. */
struct Plan {
  Order order = Order::kTiles;
  // A part is the piece of C one device computes and writes back whole: tile_m x tile_n (the last
  // row / column ragged). tiles: a tiles_m x tiles_n grid of tiles, part t = (t % tiles_m,
  // t / tiles_m). panels: tiles_m row tiles x tiles_n devices, part t = (row t / tiles_n, device
  // block t % tiles_n).
  int64_t tile_m = 0, tile_n = 0;
  int64_t tiles_m = 0, tiles_n = 0;
  int devices = 0;          // devices that get work
  int64_t panel_bytes = 0;  // panels: device memory of each device's B panel
  double host_bytes = 0;    // bytes the CPU copies: operands into the pinned ring, C's epilogue
  double link_bytes = 0;    // bytes over the busiest device's host link
  double flops = 0;         // flops of the busiest device
  double seconds = 0;  // the model: max(host_bytes / copy_rate, link / link_rate, flops / gemm)
};

/** A part of C: rows [i0, i0 + rows), columns [j0, j0 + cols). */
struct Rect {
  int64_t i0 = 0, j0 = 0, rows = 0, cols = 0;
};

/** The tiles order (always possible when m, n, tile_mn >= 1). */
Plan plan_tiles(const PlanInput& in);

/** The panels order; false when it is not possible: a B panel over the budget, or a C tile of at
 *  most tile_mn^2 elements that would be too thin (fewer than min(m, max(16, tile_mn / 32)) rows)
 *  or a B column too long for a pinned slot. */
bool plan_panels(const PlanInput& in, Plan* out);

/** The order to run: in.order when it is possible, else (kAuto) the one with the smaller model
 *  time; within 3% of each other, the smaller sum of the three terms (the ramp and the tail of a
 *  pipeline show the other two). */
Plan plan_gemm(const PlanInput& in);

/** Number of parts of @p p. */
inline int64_t parts(const Plan& p) { return p.tiles_m * p.tiles_n; }

/** Part @p t of @p p on an m x n C. */
Rect part_of(const Plan& p, int64_t m, int64_t n, int64_t t);

/** One line for the call log: "panels 2048x32768 x16 on 1 GPU, B panel 8.59 GB, host copies
 *  25.8 GB, model 1.41 s". */
std::string describe(const Plan& p);

}  // namespace gpuopt_host_tiled
