// gpuopt_gemm_dist: check the descriptor, the local matrices and the workspace on every rank,
// agree in checked mode, then run SUMMA.
#include <cinttypes>
#include <cstring>

#include "api/comm_agree.hpp"
#include "dist/summa.hpp"
#include "runtime/error.hpp"
#include "runtime/registry.hpp"
#include "runtime/versioned_struct.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace {

constexpr const char* kFn = "gpuopt_gemm_dist";

gpuopt_status_t read_desc(const char* fn, const gpuopt_gemm_dist_desc_t* d,
                          gpuopt_gemm_dist_desc_t* out) {
  *out = gpuopt_gemm_dist_desc_t{};
  GPUOPT_TRY(gpuopt::read_versioned(fn, "desc", "gpuopt_gemm_dist_desc_t", d,
                                    sizeof(gpuopt_gemm_dist_desc_t), out));
  if (d->m < 0 || d->n < 0 || d->k < 0)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "desc->m, n, k are %" PRId64 ", %" PRId64 ", %" PRId64 "; expected >= 0", d->m,
                d->n, d->k);
  if (d->mb < 1 || d->nb < 1 || d->kb < 1)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "desc->mb, nb, kb are %" PRId64 ", %" PRId64 ", %" PRId64 "; expected >= 1", d->mb,
                d->nb, d->kb);
  return GPUOPT_SUCCESS;
}

// The types, through gpuopt_gemm's own rules: an empty product checks them and enqueues nothing.
gpuopt_status_t check_types(gpuopt::Grid& g, gpuopt::Stream& s, const gpuopt_gemm_dist_desc_t& d) {
  gpuopt_gemm_desc_t probe{};
  probe.struct_size = sizeof probe;
  probe.a_type = d.a_type;
  probe.c_type = d.c_type;
  probe.compute = d.compute;
  probe.lda = probe.ldb = probe.ldc = 1;
  gpuopt_status_t st = gpuopt_gemm(g.comm->ctx, &s, &probe, nullptr, nullptr, nullptr);
  if (st != GPUOPT_SUCCESS) {
    const std::string& m = gpuopt::last_message();
    return fail(st, kFn, "%s", m.c_str() + (m.rfind("gpuopt_gemm: ", 0) == 0 ? 13 : 0));
  }
  return GPUOPT_SUCCESS;
}

gpuopt_status_t check_local(gpuopt::Context& ctx, const char* name, const char* ld_name,
                            const void* p, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                            std::size_t elem) {
  const std::int64_t need = rows > 1 ? rows : 1;
  if (ld < need)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                "desc->%s is %" PRId64 "; expected >= %" PRId64 " (this rank's local rows of %s)",
                ld_name, ld, need, name);
  if (rows == 0 || cols == 0) return GPUOPT_SUCCESS;
  return gpuopt::check_device_operand(kFn, name, ctx, p, elem,
                                      static_cast<std::size_t>((cols - 1) * ld + rows) * elem);
}

gpuopt_status_t check_all(gpuopt::Grid& g, gpuopt::Stream& s, const gpuopt_gemm_dist_desc_t* desc,
                          const void* A, const void* B, void* C, void* workspace,
                          std::size_t workspace_bytes, gpuopt_gemm_dist_desc_t* d) {
  GPUOPT_TRY(gpuopt::make_current(kFn, *g.comm->ctx));
  GPUOPT_TRY(read_desc(kFn, desc, d));
  GPUOPT_TRY(check_types(g, s, *d));
  const gpuopt::SummaShape sh = gpuopt::summa_shape(g, *d);
  gpuopt::Context& ctx = *g.comm->ctx;
  const std::size_t ea = gpuopt::dtype_size(d->a_type), ec = gpuopt::dtype_size(d->c_type);
  GPUOPT_TRY(check_local(ctx, "A", "lda", A, sh.mloc, sh.kloc_a, d->lda, ea));
  GPUOPT_TRY(check_local(ctx, "B", "ldb", B, sh.kloc_b, sh.nloc, d->ldb, ea));
  GPUOPT_TRY(check_local(ctx, "C", "ldc", C, sh.mloc, sh.nloc, d->ldc, ec));
  return gpuopt::check_workspace(kFn, "gpuopt_gemm_dist_workspace_size", ctx, workspace,
                                 workspace_bytes, sh.workspace_bytes);
}

}  // namespace

extern "C" {

GPUOPT_API gpuopt_status_t gpuopt_gemm_dist_workspace_size(gpuopt_grid_t grid,
                                                           const gpuopt_gemm_dist_desc_t* desc,
                                                           size_t* bytes) {
  static const char* fn = "gpuopt_gemm_dist_workspace_size";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_grid(fn, grid));
    if (!bytes) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "bytes is NULL");
    gpuopt_gemm_dist_desc_t d{};
    GPUOPT_TRY(read_desc(fn, desc, &d));
    if (!gpuopt_dtype_name(d.a_type))
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "desc->a_type is not a gpuopt_dtype_t");
    *bytes = gpuopt::summa_shape(*grid, d).workspace_bytes;
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_gemm_dist(gpuopt_grid_t grid, gpuopt_stream_t stream,
                                            const gpuopt_gemm_dist_desc_t* desc, const void* A,
                                            const void* B, void* C, void* workspace,
                                            size_t workspace_bytes) {
  return guarded(kFn, [&] {
    GPUOPT_TRY(gpuopt::check_grid(kFn, grid));
    GPUOPT_TRY(gpuopt::check_stream(kFn, stream, grid->comm->ctx));
    if (gpuopt::thread_group_depth() > 0)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, kFn,
                  "called inside a group: its GEMMs would run before the group's broadcasts; "
                  "drive each rank from its own thread");
    gpuopt_gemm_dist_desc_t d{};
    gpuopt_status_t local =
        check_all(*grid, *stream, desc, A, B, C, workspace, workspace_bytes, &d);
    GPUOPT_TRY(gpuopt::comm_agree(
        kFn, *grid->comm, *stream,
        gpuopt::fingerprint({21, d.m, d.n, d.k, d.mb, d.nb, d.kb, d.a_type, d.c_type, d.compute}),
        local));
    return gpuopt::summa(kFn, *grid, *stream, d, A, B, C, workspace);
  });
}

}  // extern "C"
