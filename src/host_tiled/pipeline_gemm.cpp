// Pipeline::gemm: plans the call (tiles or panels order, the panels' memory), deals the runs
// (workers or gangs, worker_runs.cpp) to threads and joins them, and hands every tile a failure
// left unwritten to the caller's CPU function.
#include <algorithm>
#include <functional>
#include <thread>

#include "pipeline_internal.hpp"

namespace gpuopt_host_tiled {

namespace {

// What the planner needs to know about a call on this pipeline (without the panel budget).
PlanInput plan_input(const Call& c, const Options& o, size_t devices) {
  PlanInput in;
  in.m = c.m;
  in.n = c.n;
  in.k = c.k;
  in.elem = c.dtype == GPUOPT_DTYPE_F64 ? 8 : 4;
  in.a_pageable = c.a_mem == Memory::kHost;
  in.b_pageable = c.b_mem == Memory::kHost;
  in.c_pageable = c.c_mem == Memory::kHost;
  in.a_device = c.a_mem == Memory::kDevice;
  in.b_device = c.b_mem == Memory::kDevice;
  in.c_device = c.c_mem == Memory::kDevice;
  in.reads_c = c.beta != 0;
  in.devices = static_cast<int>(devices);
  in.tile_mn = o.tile_mn;
  in.tile_k = o.tile_k;
  in.order = o.order;
  return in;
}

}  // namespace

Result Pipeline::gemm(const Call& call, const CpuTile& cpu_tile) {
  Result r;
  Shared sh;
  sh.call = &call;
  sh.copier = Copier{pool_.get(), static_cast<size_t>(options_.copy_piece_bytes),
                     static_cast<size_t>(options_.staging_block_bytes)};
  sh.tile_k = options_.tile_k;
  sh.slot_bytes = static_cast<size_t>(options_.tile_mn * options_.tile_k) * kMaxElem;
  sh.inject_tile = inject_tile_;
  sh.inject_finish = inject_finish_;
  inject_tile_ = inject_finish_ = -1;
  PlanInput in = plan_input(call, options_, devices_.size());
  sh.plan = plan_tiles(in);
  // One tile on one device gains nothing from a panel: no need to ask the devices for memory.
  const bool may_gain = parts(sh.plan) > 1 || devices_.size() > 1 || in.order == Order::kPanels;
  if (call.k > 0 && in.order != Order::kTiles && may_gain) {
    in.panel_budget = panel_budget(devices_);
    sh.plan = plan_gemm(in);
    if (sh.plan.order == Order::kPanels &&
        !make_panels(sh.plan, call.k, options_.tile_k, devices_, &sh.panels))
      sh.plan = plan_tiles(in);
  }
  r.tiles = parts(sh.plan);
  r.plan = describe(sh.plan) + ", " + std::to_string(options_.streams_per_device) +
           (options_.streams_per_device == 1 ? " worker" : " workers") + " per GPU";
  sh.done.assign(static_cast<size_t>(r.tiles), 0);
  if (r.tiles == 0) return r;
  if (call.k <= 0) {  // nothing to multiply: C = beta C is the CPU's (no copy is worth it)
    for (int64_t t = 0; t < r.tiles; ++t) {
      const Rect p = part_of(sh.plan, call.m, call.n, t);
      cpu_tile(call, p.i0, p.j0, p.rows, p.cols);
    }
    r.cpu_tiles = r.tiles;
    return r;
  }
  const size_t per = static_cast<size_t>(options_.streams_per_device);
  // Each run reports its own failure and its deferred finishes' (separate strings: two threads).
  std::vector<std::function<void(std::string*, std::string*)>> runs;
  if (sh.plan.order == Order::kPanels) {
    // One gang per stream index: its worker on each device of the plan.
    const size_t gangs = std::min(per, static_cast<size_t>(sh.plan.tiles_m));
    for (size_t g = 0; g < gangs; ++g) {
      std::vector<Worker*> gang;
      for (size_t d = 0; d < static_cast<size_t>(sh.plan.devices); ++d)
        gang.push_back(workers_[d * per + g].get());
      runs.push_back([gang, &sh, this](std::string* e, std::string* fe) {
        run_gang(gang, sh, options_.tile_k, e, fe);
      });
    }
  } else {
    // Deal the workers round-robin over the devices so a call with few tiles still spreads.
    const size_t nworkers = std::min(workers_.size(), static_cast<size_t>(r.tiles));
    for (size_t i = 0; i < nworkers; ++i) {
      Worker* w = workers_[(i % devices_.size()) * per + i / devices_.size()].get();
      runs.push_back([w, &sh, this](std::string* e, std::string* fe) {
        run_worker(*w, sh, options_.tile_k, e, fe);
      });
    }
  }
  // errors[2 i]: run i's own failure, errors[2 i + 1]: its deferred finishes'. Every run has
  // waited for its last finish before it returns, so after the join nothing writes C any more.
  std::vector<std::string> errors(2 * runs.size());
  if (runs.size() == 1) {
    runs[0](&errors[0], &errors[1]);
  } else {
    std::vector<std::thread> threads;
    for (size_t i = 0; i < runs.size(); ++i)
      threads.emplace_back(runs[i], &errors[2 * i], &errors[2 * i + 1]);
    for (auto& t : threads) t.join();
  }
  if (!sh.panels.empty()) free_panels(sh.panels, devices_);
  if (!sh.failed) return r;
  r.ok = false;
  for (const std::string& e : errors)
    if (!e.empty()) {
      r.error = e;
      break;
    }
  for (int64_t t = 0; t < r.tiles; ++t) {
    if (sh.done[static_cast<size_t>(t)]) continue;
    const Rect p = part_of(sh.plan, call.m, call.n, t);
    cpu_tile(call, p.i0, p.j0, p.rows, p.cols);
    ++r.cpu_tiles;
  }
  return r;
}

}  // namespace gpuopt_host_tiled
