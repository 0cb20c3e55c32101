// gpuopt_reduce_dist: gpuopt_reduce of the local part, then the ranks' results combined: exact
// operators through an NCCL all-reduce, deterministic floating-point sums in rank order.
#include <cstring>

#include "api/comm_agree.hpp"
#include "kernels/dist/rank_order_sum.hpp"
#include "runtime/error.hpp"
#include "runtime/registry.hpp"
#include "runtime/versioned_struct.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace {

constexpr const char* kFn = "gpuopt_reduce_dist";

// gpuopt_reduce's result type (its table) for SUM, MIN and MAX.
gpuopt_dtype_t result_type(gpuopt_reduce_op_t op, gpuopt_dtype_t in) {
  if (in == GPUOPT_DTYPE_BF16 || in == GPUOPT_DTYPE_F16) return GPUOPT_DTYPE_F32;
  if (op != GPUOPT_REDUCE_SUM) return in;
  if (in == GPUOPT_DTYPE_I32) return GPUOPT_DTYPE_I64;
  if (in == GPUOPT_DTYPE_U32) return GPUOPT_DTYPE_U64;
  return in;
}

}  // namespace

extern "C" GPUOPT_API gpuopt_status_t gpuopt_reduce_dist(gpuopt_comm_t comm, gpuopt_stream_t stream,
                                                         const gpuopt_reduce_desc_t* desc,
                                                         const void* in, void* out) {
  return guarded(kFn, [&] {
    GPUOPT_TRY(gpuopt::check_comm_stream(kFn, comm, stream));
    gpuopt_reduce_desc_t d{};
    d.mode = GPUOPT_REDUCE_DETERMINISTIC;
    GPUOPT_TRY(gpuopt::read_versioned(kFn, "desc", "gpuopt_reduce_desc_t", desc,
                                      GPUOPT_SIZE_THROUGH(gpuopt_reduce_desc_t, offsets), &d));
    gpuopt::NcclRedOp nop = 0;
    const std::int64_t segs = d.offsets || d.num_segments > 1 ? d.num_segments : 1;
    // The local reduction enqueues work of this rank only: a failure here leaves no peer waiting
    // on it unless the ranks' results are combined, which happens only after the agreement.
    gpuopt_status_t local = GPUOPT_SUCCESS;
    if (!gpuopt::nccl_op(d.op, &nop))
      local = fail(GPUOPT_ERROR_UNSUPPORTED, kFn,
                   "desc->op is %d; a distributed reduction takes SUM, MIN or MAX",
                   static_cast<int>(d.op));
    if (local == GPUOPT_SUCCESS) local = gpuopt_reduce(comm->ctx, stream, desc, in, out);
    if (local != GPUOPT_SUCCESS && gpuopt::last_message().rfind("gpuopt_reduce: ", 0) == 0) {
      const std::string m = gpuopt::last_message();
      local = fail(local, kFn, "%s", m.c_str() + 15);
    }
    GPUOPT_TRY(gpuopt::comm_agree(kFn, *comm, *stream,
                                  gpuopt::fingerprint({31, d.op, d.in_type, segs, d.mode}), local));
    if (segs == 0) return GPUOPT_SUCCESS;
    const gpuopt_dtype_t rt = result_type(d.op, d.in_type);
    const bool float_sum =
        d.op == GPUOPT_REDUCE_SUM && (rt == GPUOPT_DTYPE_F32 || rt == GPUOPT_DTYPE_F64);
    const gpuopt::NcclApi& api = *comm->api;
    if (!float_sum || d.mode == GPUOPT_REDUCE_FAST || comm->size == 1)
      return gpuopt::nccl_result(
          kFn, *comm,
          api.AllReduce(out, out, static_cast<std::size_t>(segs), gpuopt::nccl_type(rt), nop,
                        comm->nccl, stream->stream),
          "ncclAllReduce");
    // Deterministic: every rank gathers all partials and adds them in rank order.
    const std::size_t e = gpuopt::dtype_size(rt);
    void* parts = nullptr;
    GPUOPT_TRY_CUDA(
        cudaMallocAsync(&parts, static_cast<std::size_t>(segs) * comm->size * e, stream->stream),
        kFn, "cudaMallocAsync (the ranks' partials)");
    gpuopt_status_t st =
        gpuopt::nccl_result(kFn, *comm,
                            api.AllGather(out, parts, static_cast<std::size_t>(segs),
                                          gpuopt::nccl_type(rt), comm->nccl, stream->stream),
                            "ncclAllGather");
    if (st == GPUOPT_SUCCESS) {
      cudaError_t err =
          gpuopt::launch_rank_order_sum(rt, parts, segs, comm->size, out, stream->stream);
      if (err != cudaSuccess) st = gpuopt::fail_cuda(err, kFn, "rank_order_sum launch");
    }
    cudaFreeAsync(parts, stream->stream);
    return st;
  });
}
