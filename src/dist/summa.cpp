#include "dist/summa.hpp"

#include "api/comm_agree.hpp"
#include "dist/block_cyclic.hpp"
#include "runtime/error.hpp"
#include "runtime/registry.hpp"

namespace gpuopt {
namespace {

std::size_t align256(std::size_t b) { return (b + 255) / 256 * 256; }

struct Panel {
  const void* p;
  std::int64_t ld;
};

}  // namespace

SummaShape summa_shape(const Grid& g, const gpuopt_gemm_dist_desc_t& d) {
  SummaShape s{};
  s.mloc = block_cyclic_local(d.m, d.mb, g.my_row, g.rows);
  s.nloc = block_cyclic_local(d.n, d.nb, g.my_col, g.cols);
  s.kloc_a = block_cyclic_local(d.k, d.kb, g.my_col, g.cols);
  s.kloc_b = block_cyclic_local(d.k, d.kb, g.my_row, g.rows);
  const std::size_t e = dtype_size(d.a_type);
  const std::int64_t kb = d.kb < d.k ? d.kb : d.k;
  s.panel_a_bytes = align256(static_cast<std::size_t>(s.mloc * kb) * e);
  s.panel_b_bytes = align256(static_cast<std::size_t>(kb * s.nloc) * e);
  s.workspace_bytes = 2 * (s.panel_a_bytes + s.panel_b_bytes);
  return s;
}

gpuopt_status_t summa(const char* fn, Grid& g, Stream& s, const gpuopt_gemm_dist_desc_t& d,
                      const void* A, const void* B, void* C, void* workspace) {
  const SummaShape sh = summa_shape(g, d);
  const std::size_t e = dtype_size(d.a_type);
  const NcclType type = nccl_type(d.a_type);
  char* ws = static_cast<char*>(workspace);
  char* pa[2] = {ws, ws + sh.panel_a_bytes};
  char* pb[2] = {ws + 2 * sh.panel_a_bytes, ws + 2 * sh.panel_a_bytes + sh.panel_b_bytes};
  const std::int64_t steps = (d.k + d.kb - 1) / d.kb;
  Comm& rc = *g.row_comm;  // size pc, rank = my_col
  Comm& cc = *g.col_comm;  // size pr, rank = my_row

  gpuopt_gemm_desc_t gd{};
  gd.struct_size = sizeof gd;
  gd.trans_a = GPUOPT_TRANS_N;
  gd.trans_b = GPUOPT_TRANS_N;
  gd.m = sh.mloc;
  gd.n = sh.nloc;
  gd.alpha = d.alpha;
  gd.a_type = d.a_type;
  gd.c_type = d.c_type;
  gd.compute = d.compute;
  gd.ldc = d.ldc;
  gd.batch_count = 1;

  if (steps == 0) {  // k = 0: C = beta C
    gd.k = 0;
    gd.beta = d.beta;
    gd.lda = gd.ldb = 1;
    return gpuopt_gemm(g.comm->ctx, &s, &gd, A, B, C);
  }

  Panel a_of[2], b_of[2];
  // Fills panel buffer t % 2 with step t's panels on the side stream.
  auto panels = [&](std::int64_t t) -> gpuopt_status_t {
    const int buf = static_cast<int>(t % 2);
    const std::int64_t kt = d.k - t * d.kb < d.kb ? d.k - t * d.kb : d.kb;
    // Buffer reuse waits for step t - 2's product. Steps 0 and 1 need no wait: the fork below
    // already orders the side stream after every earlier product on the caller's stream, and
    // waiting on an event recorded before a graph capture began would break the capture
    // (cudaErrorStreamCaptureIsolation).
    if (t >= 2)
      GPUOPT_TRY_CUDA(cudaStreamWaitEvent(g.side, g.done[buf], 0), fn, "cudaStreamWaitEvent");
    // A: columns [t kb, t kb + kt) live on grid column t mod pc at local column (t / pc) kb.
    const int a_owner = static_cast<int>(t % g.cols);
    const char* a_local = static_cast<const char*>(A) + (t / g.cols) * d.kb * d.lda * e;
    if (g.cols == 1) {
      a_of[buf] = {a_local, d.lda};
    } else if (sh.mloc > 0) {
      const bool mine = g.my_col == a_owner;
      const bool packed = d.lda == sh.mloc || kt == 1;
      if (mine && !packed)
        GPUOPT_TRY_CUDA(cudaMemcpy2DAsync(pa[buf], sh.mloc * e, a_local, d.lda * e, sh.mloc * e, kt,
                                          cudaMemcpyDeviceToDevice, g.side),
                        fn, "cudaMemcpy2DAsync (A panel)");
      const void* send = mine ? (packed ? static_cast<const void*>(a_local) : pa[buf]) : nullptr;
      void* recv = mine && packed ? const_cast<char*>(a_local) : pa[buf];
      GPUOPT_TRY(nccl_result(
          fn, rc,
          rc.api->Broadcast(mine ? send : recv, recv, static_cast<std::size_t>(sh.mloc * kt), type,
                            a_owner, rc.nccl, g.side),
          "ncclBroadcast (A panel)"));
      a_of[buf] = mine && packed ? Panel{a_local, d.lda} : Panel{pa[buf], sh.mloc};
    }
    // B: rows [t kb, t kb + kt) live on grid row t mod pr at local row (t / pr) kb.
    const int b_owner = static_cast<int>(t % g.rows);
    const char* b_local = static_cast<const char*>(B) + (t / g.rows) * d.kb * e;
    if (g.rows == 1) {
      b_of[buf] = {b_local, d.ldb};
    } else if (sh.nloc > 0) {
      const bool mine = g.my_row == b_owner;
      if (mine)
        GPUOPT_TRY_CUDA(cudaMemcpy2DAsync(pb[buf], kt * e, b_local, d.ldb * e, kt * e, sh.nloc,
                                          cudaMemcpyDeviceToDevice, g.side),
                        fn, "cudaMemcpy2DAsync (B panel)");
      GPUOPT_TRY(
          nccl_result(fn, cc,
                      cc.api->Broadcast(pb[buf], pb[buf], static_cast<std::size_t>(kt * sh.nloc),
                                        type, b_owner, cc.nccl, g.side),
                      "ncclBroadcast (B panel)"));
      b_of[buf] = {pb[buf], kt};
    }
    GPUOPT_TRY_CUDA(cudaEventRecord(g.ready[buf], g.side), fn, "cudaEventRecord");
    return GPUOPT_SUCCESS;
  };
  // Step t's local product on the caller's stream once its panels are in.
  auto product = [&](std::int64_t t) -> gpuopt_status_t {
    const int buf = static_cast<int>(t % 2);
    const std::int64_t kt = d.k - t * d.kb < d.kb ? d.k - t * d.kb : d.kb;
    GPUOPT_TRY_CUDA(cudaStreamWaitEvent(s.stream, g.ready[buf], 0), fn, "cudaStreamWaitEvent");
    if (sh.mloc > 0 && sh.nloc > 0) {
      gd.k = kt;
      gd.beta = t == 0 ? d.beta : 1.0;
      gd.lda = a_of[buf].ld;
      gd.ldb = b_of[buf].ld;
      GPUOPT_TRY(gpuopt_gemm(g.comm->ctx, &s, &gd, a_of[buf].p, b_of[buf].p, C));
    }
    GPUOPT_TRY_CUDA(cudaEventRecord(g.done[buf], s.stream), fn, "cudaEventRecord");
    return GPUOPT_SUCCESS;
  };

  // Fork the side stream from the caller's (A, B, C may have been written there).
  GPUOPT_TRY_CUDA(cudaEventRecord(g.fork, s.stream), fn, "cudaEventRecord");
  GPUOPT_TRY_CUDA(cudaStreamWaitEvent(g.side, g.fork, 0), fn, "cudaStreamWaitEvent");
  GPUOPT_TRY(panels(0));
  if (steps > 1) GPUOPT_TRY(panels(1));
  for (std::int64_t t = 0; t < steps; ++t) {
    GPUOPT_TRY(product(t));
    if (t + 2 < steps) GPUOPT_TRY(panels(t + 2));
  }
  // Join: the caller's stream waits for the side stream's last work.
  GPUOPT_TRY_CUDA(cudaEventRecord(g.join, g.side), fn, "cudaEventRecord");
  GPUOPT_TRY_CUDA(cudaStreamWaitEvent(s.stream, g.join, 0), fn, "cudaStreamWaitEvent");
  return GPUOPT_SUCCESS;
}

}  // namespace gpuopt
