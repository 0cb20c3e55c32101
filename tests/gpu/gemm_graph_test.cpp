// Every gemm variant under CUDA graph capture: capturing runs nothing, one replay gives the
// correct result (launchers must not allocate or synchronize: graph capture must work).
#include <gtest/gtest.h>

#include <string>

#include "gemm_harness.hpp"
#include "gpu_fixture.hpp"

namespace {

using gput::GemmCase;
using gput::GemmData;

class GemmGraph : public gput::GpuTest {};

TEST_F(GemmGraph, EveryVariantCapturesAndReplays) {
  GemmCase c;
  c.label = "graph";
  c.m = 136;
  c.n = 72;
  c.k = 40;
  c.alpha = -0.75;
  c.beta = 0.5;
  for (const gput::GemmVariant& v : gput::gemm_variant_list(ctx_)) {
    if (!v.available) continue;
    SCOPED_TRACE("variant " + v.name);
    ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, v.name.c_str()));
    for (const gput::GemmTypeConfig& cfg : gput::gemm_type_configs()) {
      if (!(v.dtype_mask & (1u << cfg.ab))) continue;
      SCOPED_TRACE(cfg.name);
      GemmData d(cfg, c, rng_);
      ASSERT_TRUE(d.ok());
      ASSERT_GPUOPT_OK(gpuopt_graph_begin(ctx_, stream_));
      const gpuopt_status_t st = d.run(ctx_, stream_);
      gpuopt_graph_t g = nullptr;
      const gpuopt_status_t end = gpuopt_graph_end(stream_, &g);
      gput::Graph graph(g);
      if (st == GPUOPT_ERROR_UNSUPPORTED) continue;  // refused (end may refuse an empty capture)
      ASSERT_GPUOPT_OK(st);
      ASSERT_GPUOPT_OK(end);
      sync();
      EXPECT_TRUE(d.check_unchanged()) << "capturing ran the gemm";
      ASSERT_GPUOPT_OK(gpuopt_graph_launch(graph.get(), stream_));
      sync();
      EXPECT_TRUE(d.check());
    }
  }
  ASSERT_GPUOPT_OK(gpuopt_context_set_variant(ctx_, GPUOPT_OP_GEMM, nullptr));
}

}  // namespace
