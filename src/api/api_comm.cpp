// Communicators: NCCL rendezvous ids, creation (one rank per process or all ranks of a process),
// split, queries, the checked mode switch, health, abort, destroy, and groups.
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "api/getter.hpp"
#include "runtime/comm.hpp"
#include "runtime/error.hpp"
#include "runtime/handles.hpp"
#include "runtime/stream.hpp"

using gpuopt::fail;
using gpuopt::guarded;

namespace {

// The communicator calls that change what exists: not while this thread captures a graph.
gpuopt_status_t check_setup(const char* fn) { return gpuopt::check_not_capturing(fn); }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

extern "C" {

GPUOPT_API gpuopt_status_t gpuopt_comm_nccl_version(int* version) {
  static const char* fn = "gpuopt_comm_nccl_version";
  return guarded(fn, [&] {
    if (!version) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "version is NULL");
    *version = 0;
    const gpuopt::NcclApi* api = nullptr;
    GPUOPT_TRY(gpuopt::nccl_api(fn, &api));
    *version = api->version;
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_comm_id_create(gpuopt_comm_id_t* id) {
  static const char* fn = "gpuopt_comm_id_create";
  return guarded(fn, [&] {
    if (!id) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "id is NULL");
    const gpuopt::NcclApi* api = nullptr;
    GPUOPT_TRY(gpuopt::nccl_api(fn, &api));
    gpuopt::NcclUniqueId u{};
    gpuopt::NcclResult r = api->GetUniqueId(&u);
    if (r != gpuopt::kNcclSuccess)
      return gpuopt::fail_nccl(*api, r, nullptr, fn, "ncclGetUniqueId");
    std::memcpy(id->bytes, u.internal, sizeof id->bytes);
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_comm_id_to_hex(const gpuopt_comm_id_t* id, char* hex,
                                                 size_t size) {
  static const char* fn = "gpuopt_comm_id_to_hex";
  return guarded(fn, [&] {
    if (!id) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "id is NULL");
    if (!hex) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "hex is NULL");
    if (size < GPUOPT_COMM_ID_HEX_SIZE)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "size is %zu; expected >= GPUOPT_COMM_ID_HEX_SIZE (%d)", size,
                  GPUOPT_COMM_ID_HEX_SIZE);
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < GPUOPT_COMM_ID_BYTES; ++i) {
      hex[2 * i] = digits[id->bytes[i] >> 4];
      hex[2 * i + 1] = digits[id->bytes[i] & 15];
    }
    hex[2 * GPUOPT_COMM_ID_BYTES] = '\0';
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_comm_id_from_hex(const char* hex, gpuopt_comm_id_t* id) {
  static const char* fn = "gpuopt_comm_id_from_hex";
  return guarded(fn, [&] {
    if (!hex) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "hex is NULL");
    if (!id) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "id is NULL");
    const std::size_t len = std::strlen(hex);
    if (len != 2 * GPUOPT_COMM_ID_BYTES)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "hex has %zu characters; expected %d hex digits (gpuopt_comm_id_to_hex)", len,
                  2 * GPUOPT_COMM_ID_BYTES);
    gpuopt_comm_id_t out{};
    for (int i = 0; i < GPUOPT_COMM_ID_BYTES; ++i) {
      int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
      if (hi < 0 || lo < 0)
        return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                    "hex has a character that is no hex digit at offset %d",
                    hi < 0 ? 2 * i : 2 * i + 1);
      out.bytes[i] = static_cast<unsigned char>(hi << 4 | lo);
    }
    *id = out;
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_comm_create(gpuopt_context_t ctx, const gpuopt_comm_id_t* id,
                                              int nranks, int rank, gpuopt_comm_t* comm) {
  static const char* fn = "gpuopt_comm_create";
  return guarded(fn, [&] {
    if (!comm) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "comm is NULL");
    *comm = nullptr;
    GPUOPT_TRY(gpuopt::check_context(fn, ctx));
    if (!id) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "id is NULL");
    if (nranks < 1)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "nranks is %d; expected >= 1", nranks);
    if (rank < 0 || rank >= nranks)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "rank is %d; expected 0 <= rank < nranks (%d)",
                  rank, nranks);
    GPUOPT_TRY(check_setup(fn));
    const gpuopt::NcclApi* api = nullptr;
    GPUOPT_TRY(gpuopt::nccl_api(fn, &api));
    GPUOPT_TRY(gpuopt::make_current(fn, *ctx));
    if (gpuopt::deviceless_active()) return gpuopt::deviceless_stop(fn, "ncclCommInitRank");
    gpuopt::NcclUniqueId u{};
    std::memcpy(u.internal, id->bytes, sizeof u.internal);
    gpuopt::NcclComm nc = nullptr;
    gpuopt::NcclResult r = api->CommInitRank(&nc, nranks, u, rank);
    if (r != gpuopt::kNcclSuccess)
      return gpuopt::fail_nccl(*api, r, nullptr, fn, "ncclCommInitRank");
    return gpuopt::comm_open(fn, *ctx, *api, nc, comm);
  });
}

GPUOPT_API gpuopt_status_t gpuopt_comm_create_local(const gpuopt_context_t* ctxs, int count,
                                                    gpuopt_comm_t* comms) {
  static const char* fn = "gpuopt_comm_create_local";
  return guarded(fn, [&] {
    if (!comms) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "comms is NULL");
    if (!ctxs) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "ctxs is NULL");
    if (count < 1)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "count is %d; expected >= 1", count);
    for (int i = 0; i < count; ++i) comms[i] = nullptr;
    std::vector<int> devs(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      char arg[32];
      std::snprintf(arg, sizeof arg, "ctxs[%d]", i);
      GPUOPT_TRY(gpuopt::check_context(fn, ctxs[i], arg));
      devs[i] = ctxs[i]->device;
      for (int j = 0; j < i; ++j)
        if (devs[j] == devs[i])
          return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                      "ctxs[%d] and ctxs[%d] are both on device %d; each rank needs its own device",
                      j, i, devs[i]);
    }
    GPUOPT_TRY(check_setup(fn));
    const gpuopt::NcclApi* api = nullptr;
    GPUOPT_TRY(gpuopt::nccl_api(fn, &api));
    if (gpuopt::deviceless_active()) return gpuopt::deviceless_stop(fn, "ncclCommInitAll");
    std::vector<gpuopt::NcclComm> nc(static_cast<std::size_t>(count), nullptr);
    gpuopt::NcclResult r = api->CommInitAll(nc.data(), count, devs.data());
    if (r != gpuopt::kNcclSuccess)
      return gpuopt::fail_nccl(*api, r, nullptr, fn, "ncclCommInitAll");
    gpuopt_status_t st = GPUOPT_SUCCESS;
    for (int i = 0; i < count; ++i) {
      if (st == GPUOPT_SUCCESS) {
        st = gpuopt::comm_open(fn, *ctxs[i], *api, nc[i], &comms[i]);
      } else {
        api->CommAbort(nc[i]);
      }
    }
    if (st != GPUOPT_SUCCESS)
      for (int i = 0; i < count; ++i)
        if (comms[i]) {
          gpuopt::comm_close(fn, comms[i], true);
          comms[i] = nullptr;
        }
    return st;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_comm_split(gpuopt_comm_t comm, int color, int key,
                                             gpuopt_comm_t* out) {
  static const char* fn = "gpuopt_comm_split";
  return guarded(fn, [&] {
    if (!out) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "out is NULL");
    *out = nullptr;
    GPUOPT_TRY(gpuopt::check_comm(fn, comm));
    if (color < 0 && color != GPUOPT_COMM_SPLIT_NONE)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "color is %d; expected >= 0 or GPUOPT_COMM_SPLIT_NONE (-1)", color);
    GPUOPT_TRY(check_setup(fn));
    GPUOPT_TRY(gpuopt::make_current(fn, *comm->ctx));
    const gpuopt::NcclApi& api = *comm->api;
    gpuopt::NcclComm nc = nullptr;
    gpuopt::NcclResult r =
        api.CommSplit(comm->nccl, color < 0 ? gpuopt::kNcclSplitNoColor : color, key, &nc, nullptr);
    if (r != gpuopt::kNcclSuccess)
      return gpuopt::fail_nccl(api, r, comm->nccl, fn, "ncclCommSplit");
    if (!nc) return GPUOPT_SUCCESS;  // GPUOPT_COMM_SPLIT_NONE
    return gpuopt::comm_open(fn, *comm->ctx, api, nc, out);
  });
}

GPUOPT_API gpuopt_status_t gpuopt_comm_rank(gpuopt_comm_t comm, int* rank) {
  return gpuopt::get_property("gpuopt_comm_rank", gpuopt::check_comm, "comm", comm, "rank", rank,
                              [](gpuopt_comm_t h) { return h->rank; });
}

GPUOPT_API gpuopt_status_t gpuopt_comm_size(gpuopt_comm_t comm, int* size) {
  return gpuopt::get_property("gpuopt_comm_size", gpuopt::check_comm, "comm", comm, "size", size,
                              [](gpuopt_comm_t h) { return h->size; });
}

GPUOPT_API gpuopt_status_t gpuopt_comm_device(gpuopt_comm_t comm, int* device) {
  return gpuopt::get_property("gpuopt_comm_device", gpuopt::check_comm, "comm", comm, "device",
                              device, [](gpuopt_comm_t h) { return h->ctx->device; });
}

GPUOPT_API gpuopt_status_t gpuopt_comm_set_checked(gpuopt_comm_t comm, int checked) {
  static const char* fn = "gpuopt_comm_set_checked";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_comm(fn, comm));
    if (checked != 0 && checked != 1)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "checked is %d; expected 0 or 1", checked);
    if (checked && !comm->check_device) {
      GPUOPT_TRY(check_setup(fn));
      GPUOPT_TRY(gpuopt::make_current(fn, *comm->ctx));
      void* d = nullptr;
      void* h = nullptr;
      GPUOPT_TRY_CUDA(cudaMalloc(&d, 2 * sizeof(std::int64_t)), fn, "cudaMalloc");
      cudaError_t err = cudaMallocHost(&h, 2 * sizeof(std::int64_t));
      if (err != cudaSuccess) {
        cudaFree(d);
        return gpuopt::fail_cuda(err, fn, "cudaMallocHost");
      }
      comm->check_device = static_cast<std::int64_t*>(d);
      comm->check_host = static_cast<std::int64_t*>(h);
    }
    comm->checked.store(checked != 0);
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_comm_status(gpuopt_comm_t comm) {
  static const char* fn = "gpuopt_comm_status";
  return guarded(fn, [&] {
    GPUOPT_TRY(gpuopt::check_comm(fn, comm));
    gpuopt::NcclResult async = gpuopt::kNcclSuccess;
    gpuopt::NcclResult r = comm->api->CommGetAsyncError(comm->nccl, &async);
    if (r != gpuopt::kNcclSuccess)
      return gpuopt::fail_nccl(*comm->api, r, comm->nccl, fn, "ncclCommGetAsyncError");
    if (async != gpuopt::kNcclSuccess && async != gpuopt::kNcclInProgress)
      return gpuopt::fail_nccl(*comm->api, async, comm->nccl, fn,
                               "asynchronous error of the communicator (abort and rebuild it)");
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_comm_abort(gpuopt_comm_t comm) {
  static const char* fn = "gpuopt_comm_abort";
  return guarded(fn, [&] {
    if (!comm) return GPUOPT_SUCCESS;
    GPUOPT_TRY(gpuopt::check_comm(fn, comm));
    return gpuopt::comm_close(fn, comm, true);
  });
}

GPUOPT_API gpuopt_status_t gpuopt_comm_destroy(gpuopt_comm_t comm) {
  static const char* fn = "gpuopt_comm_destroy";
  return guarded(fn, [&] {
    if (!comm) return GPUOPT_SUCCESS;
    GPUOPT_TRY(gpuopt::check_comm(fn, comm));
    GPUOPT_TRY(check_setup(fn));
    return gpuopt::comm_close(fn, comm, false);
  });
}

GPUOPT_API gpuopt_status_t gpuopt_group_begin(void) {
  static const char* fn = "gpuopt_group_begin";
  return guarded(fn, [&] {
    const gpuopt::NcclApi* api = nullptr;
    GPUOPT_TRY(gpuopt::nccl_api(fn, &api));
    gpuopt::NcclResult r = api->GroupStart();
    if (r != gpuopt::kNcclSuccess) return gpuopt::fail_nccl(*api, r, nullptr, fn, "ncclGroupStart");
    ++gpuopt::thread_group_depth();
    return GPUOPT_SUCCESS;
  });
}

GPUOPT_API gpuopt_status_t gpuopt_group_end(void) {
  static const char* fn = "gpuopt_group_end";
  return guarded(fn, [&] {
    if (gpuopt::thread_group_depth() <= 0)
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                  "no group is open on this thread (gpuopt_group_begin was not called)");
    const gpuopt::NcclApi* api = nullptr;
    GPUOPT_TRY(gpuopt::nccl_api(fn, &api));
    --gpuopt::thread_group_depth();
    gpuopt::NcclResult r = api->GroupEnd();
    if (r != gpuopt::kNcclSuccess) return gpuopt::fail_nccl(*api, r, nullptr, fn, "ncclGroupEnd");
    return GPUOPT_SUCCESS;
  });
}

}  // extern "C"
