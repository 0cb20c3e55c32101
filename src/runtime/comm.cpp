#include "runtime/comm.hpp"

#include <memory>

#include "runtime/error.hpp"
#include "runtime/handles.hpp"

namespace gpuopt {

gpuopt_status_t check_comm(const char* fn, gpuopt_comm_t comm, const char* arg) {
  return check_handle(fn, comm, HandleKind::comm, arg);
}

int& thread_group_depth() {
  thread_local int depth = 0;
  return depth;
}

gpuopt_status_t comm_open(const char* fn, Context& ctx, const NcclApi& api, NcclComm nccl,
                          Comm** out) {
  std::unique_ptr<Comm> c(new (std::nothrow) Comm);
  if (!c) {
    api.CommAbort(nccl);
    return fail(GPUOPT_ERROR_OUT_OF_MEMORY, fn, "host allocation of the communicator failed");
  }
  c->ctx = &ctx;
  c->api = &api;
  c->nccl = nccl;
  NcclResult r = api.CommUserRank(nccl, &c->rank);
  if (r == kNcclSuccess) r = api.CommCount(nccl, &c->size);
  if (r != kNcclSuccess) {
    gpuopt_status_t st = fail_nccl(api, r, nccl, fn, "ncclCommUserRank/ncclCommCount");
    api.CommAbort(nccl);
    return st;
  }
  try {
    handle_register(c.get(), HandleKind::comm);
  } catch (...) {
    api.CommAbort(nccl);
    throw;
  }
  ctx.live_objects.fetch_add(1);
  *out = c.release();
  return GPUOPT_SUCCESS;
}

gpuopt_status_t comm_close(const char* fn, Comm* comm, bool abort) {
  handle_unregister(comm);
  comm->ctx->live_objects.fetch_sub(1);
  const NcclApi& api = *comm->api;
  NcclResult r = kNcclSuccess;
  if (comm->nccl) {
    // NCCL tears a communicator down on its device. A failure to switch is not fatal here: the
    // destroy is attempted all the same and answers for itself.
    (void)make_current(fn, *comm->ctx);
    r = abort ? api.CommAbort(comm->nccl) : api.CommDestroy(comm->nccl);
  }
  if (comm->check_device) cudaFree(comm->check_device);
  if (comm->check_host) cudaFreeHost(comm->check_host);
  cudaGetLastError();
  delete comm;
  if (r != kNcclSuccess)
    return fail_nccl(api, r, nullptr, fn, abort ? "ncclCommAbort" : "ncclCommDestroy");
  return GPUOPT_SUCCESS;
}

}  // namespace gpuopt
