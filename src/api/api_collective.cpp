// The collectives: all-reduce, reduce-scatter, all-gather, broadcast. Each checks everything
// locally, agrees with the other ranks in checked mode, and only then enqueues NCCL on the
// caller's stream (capturable).
#include <cinttypes>
#include <cstdint>

#include "api/comm_agree.hpp"
#include "runtime/error.hpp"
#include "runtime/registry.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace {

enum Kind : std::int64_t { kAllReduce = 1, kReduceScatter, kAllGather, kBroadcast };

gpuopt_status_t check_dtype(const char* fn, gpuopt_dtype_t dtype) {
  if (!gpuopt_dtype_name(dtype))
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "dtype is %d; not a gpuopt_dtype_t",
                static_cast<int>(dtype));
  return GPUOPT_SUCCESS;
}

gpuopt_status_t check_op(const char* fn, gpuopt_reduce_op_t op, gpuopt::NcclRedOp* nop) {
  if (!gpuopt::nccl_op(op, nop))
    return fail(
        op == GPUOPT_REDUCE_ARGMIN || op == GPUOPT_REDUCE_ARGMAX ? GPUOPT_ERROR_UNSUPPORTED
                                                                 : GPUOPT_ERROR_INVALID_ARGUMENT,
        fn, "op is %d; collectives take GPUOPT_REDUCE_SUM, MIN or MAX", static_cast<int>(op));
  return GPUOPT_SUCCESS;
}

// count >= 0 elements, and count * parts elements of elem bytes fit in the address space.
gpuopt_status_t check_count(const char* fn, const char* name, std::int64_t count, int parts,
                            std::size_t elem) {
  if (count < 0)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "%s is %" PRId64 "; expected >= 0", name, count);
  if (count > INT64_MAX / 16 / parts / static_cast<std::int64_t>(elem))
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "%s is %" PRId64 "; the buffers overflow", name,
                count);
  return GPUOPT_SUCCESS;
}

const char* at(const void* p, std::size_t bytes) { return static_cast<const char*>(p) + bytes; }

// The local checks of each collective, with the arguments named; nothing is enqueued.
struct Local {
  gpuopt::Comm& c;
  gpuopt_dtype_t dtype;
  std::size_t elem = 0;

  gpuopt_status_t operand(const char* fn, const char* name, const void* p, std::size_t bytes) {
    if (bytes == 0) return GPUOPT_SUCCESS;
    return gpuopt::check_device_operand(fn, name, *c.ctx, p, elem, bytes);
  }
};

// Runs the local checks, agrees in checked mode, then enqueues.
template <class Checks, class Enqueue>
gpuopt_status_t collective(const char* fn, const char* what, gpuopt_comm_t comm,
                           gpuopt_stream_t stream, std::uint64_t fp, Checks&& checks,
                           Enqueue&& enqueue) {
  GPUOPT_TRY(gpuopt::check_comm_stream(fn, comm, stream));
  gpuopt_status_t local = gpuopt::make_current(fn, *comm->ctx);
  if (local == GPUOPT_SUCCESS) local = checks();
  GPUOPT_TRY(gpuopt::comm_agree(fn, *comm, *stream, fp, local));
  return gpuopt::nccl_result(fn, *comm, enqueue(), what);
}

}  // namespace

extern "C" {

GPUOPT_API gpuopt_status_t gpuopt_allreduce(gpuopt_comm_t comm, gpuopt_stream_t stream,
                                            gpuopt_dtype_t dtype, gpuopt_reduce_op_t op,
                                            const void* send, void* recv, int64_t count) {
  static const char* fn = "gpuopt_allreduce";
  return guarded(fn, [&] {
    gpuopt::NcclRedOp nop = 0;
    return collective(
        fn, "ncclAllReduce", comm, stream, gpuopt::fingerprint({kAllReduce, dtype, op, count}),
        [&] {
          GPUOPT_TRY(check_dtype(fn, dtype));
          GPUOPT_TRY(check_op(fn, op, &nop));
          Local L{*comm, dtype, gpuopt::dtype_size(dtype)};
          GPUOPT_TRY(check_count(fn, "count", count, 1, L.elem));
          const std::size_t bytes = static_cast<std::size_t>(count) * L.elem;
          GPUOPT_TRY(L.operand(fn, "send", send, bytes));
          GPUOPT_TRY(L.operand(fn, "recv", recv, bytes));
          if (send != recv)
            GPUOPT_TRY(gpuopt::check_disjoint(fn, "send", send, bytes, "recv", recv, bytes));
          return GPUOPT_SUCCESS;
        },
        [&] {
          if (count == 0) return gpuopt::kNcclSuccess;
          return comm->api->AllReduce(send, recv, static_cast<std::size_t>(count),
                                      gpuopt::nccl_type(dtype), nop, comm->nccl, stream->stream);
        });
  });
}

GPUOPT_API gpuopt_status_t gpuopt_reduce_scatter(gpuopt_comm_t comm, gpuopt_stream_t stream,
                                                 gpuopt_dtype_t dtype, gpuopt_reduce_op_t op,
                                                 const void* send, void* recv, int64_t recv_count) {
  static const char* fn = "gpuopt_reduce_scatter";
  return guarded(fn, [&] {
    gpuopt::NcclRedOp nop = 0;
    return collective(
        fn, "ncclReduceScatter", comm, stream,
        gpuopt::fingerprint({kReduceScatter, dtype, op, recv_count}),
        [&] {
          GPUOPT_TRY(check_dtype(fn, dtype));
          GPUOPT_TRY(check_op(fn, op, &nop));
          Local L{*comm, dtype, gpuopt::dtype_size(dtype)};
          GPUOPT_TRY(check_count(fn, "recv_count", recv_count, comm->size, L.elem));
          const std::size_t part = static_cast<std::size_t>(recv_count) * L.elem;
          GPUOPT_TRY(L.operand(fn, "send", send, part * comm->size));
          GPUOPT_TRY(L.operand(fn, "recv", recv, part));
          if (recv != at(send, part * comm->rank))
            GPUOPT_TRY(
                gpuopt::check_disjoint(fn, "send", send, part * comm->size, "recv", recv, part));
          return GPUOPT_SUCCESS;
        },
        [&] {
          if (recv_count == 0) return gpuopt::kNcclSuccess;
          return comm->api->ReduceScatter(send, recv, static_cast<std::size_t>(recv_count),
                                          gpuopt::nccl_type(dtype), nop, comm->nccl,
                                          stream->stream);
        });
  });
}

GPUOPT_API gpuopt_status_t gpuopt_allgather(gpuopt_comm_t comm, gpuopt_stream_t stream,
                                            gpuopt_dtype_t dtype, const void* send, void* recv,
                                            int64_t send_count) {
  static const char* fn = "gpuopt_allgather";
  return guarded(fn, [&] {
    return collective(
        fn, "ncclAllGather", comm, stream, gpuopt::fingerprint({kAllGather, dtype, send_count}),
        [&] {
          GPUOPT_TRY(check_dtype(fn, dtype));
          Local L{*comm, dtype, gpuopt::dtype_size(dtype)};
          GPUOPT_TRY(check_count(fn, "send_count", send_count, comm->size, L.elem));
          const std::size_t part = static_cast<std::size_t>(send_count) * L.elem;
          GPUOPT_TRY(L.operand(fn, "send", send, part));
          GPUOPT_TRY(L.operand(fn, "recv", recv, part * comm->size));
          if (send != at(recv, part * comm->rank))
            GPUOPT_TRY(
                gpuopt::check_disjoint(fn, "send", send, part, "recv", recv, part * comm->size));
          return GPUOPT_SUCCESS;
        },
        [&] {
          if (send_count == 0) return gpuopt::kNcclSuccess;
          return comm->api->AllGather(send, recv, static_cast<std::size_t>(send_count),
                                      gpuopt::nccl_type(dtype), comm->nccl, stream->stream);
        });
  });
}

GPUOPT_API gpuopt_status_t gpuopt_broadcast(gpuopt_comm_t comm, gpuopt_stream_t stream,
                                            gpuopt_dtype_t dtype, const void* send, void* recv,
                                            int64_t count, int root) {
  static const char* fn = "gpuopt_broadcast";
  return guarded(fn, [&] {
    return collective(
        fn, "ncclBroadcast", comm, stream, gpuopt::fingerprint({kBroadcast, dtype, count, root}),
        [&] {
          GPUOPT_TRY(check_dtype(fn, dtype));
          if (root < 0 || root >= comm->size)
            return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                        "root is %d; expected 0 <= root < size (%d)", root, comm->size);
          Local L{*comm, dtype, gpuopt::dtype_size(dtype)};
          GPUOPT_TRY(check_count(fn, "count", count, 1, L.elem));
          const std::size_t bytes = static_cast<std::size_t>(count) * L.elem;
          if (comm->rank == root) {
            GPUOPT_TRY(L.operand(fn, "send", send, bytes));
            if (send != recv)
              GPUOPT_TRY(gpuopt::check_disjoint(fn, "send", send, bytes, "recv", recv, bytes));
          }
          return L.operand(fn, "recv", recv, bytes);
        },
        [&] {
          if (count == 0) return gpuopt::kNcclSuccess;
          return comm->api->Broadcast(comm->rank == root ? send : recv, recv,
                                      static_cast<std::size_t>(count), gpuopt::nccl_type(dtype),
                                      root, comm->nccl, stream->stream);
        });
  });
}

}  // extern "C"
