#include "api/comm_agree.hpp"

#include <cstdint>

#include "runtime/error.hpp"

namespace gpuopt {

gpuopt_status_t check_comm_stream(const char* fn, gpuopt_comm_t comm, gpuopt_stream_t stream) {
  GPUOPT_TRY(check_comm(fn, comm));
  return check_stream(fn, stream, comm->ctx);
}

std::uint64_t fingerprint(std::initializer_list<std::int64_t> values) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::int64_t v : values)
    for (int b = 0; b < 8; ++b) {
      h ^= (static_cast<std::uint64_t>(v) >> (8 * b)) & 0xff;
      h *= 1099511628211ull;
    }
  return h & ((std::uint64_t{1} << 62) - 1);
}

gpuopt_status_t nccl_result(const char* fn, const Comm& comm, NcclResult r, const char* what) {
  if (r == kNcclSuccess || r == kNcclInProgress) return GPUOPT_SUCCESS;
  return fail_nccl(*comm.api, r, comm.nccl, fn, what);
}

gpuopt_status_t comm_agree(const char* fn, Comm& comm, Stream& stream, std::uint64_t fp,
                           gpuopt_status_t local) {
  if (!comm.checked.load(std::memory_order_relaxed) || thread_group_depth() > 0) return local;
  if (local != GPUOPT_SUCCESS && thread_capture_depth() > 0) return local;
  GPUOPT_TRY(check_not_capturing(fn));
  // The failing rank's message is kept: the agreement must not overwrite it.
  const std::string own = local != GPUOPT_SUCCESS ? last_message() : std::string();
  GPUOPT_TRY(make_current(fn, *comm.ctx));
  const std::int64_t poison = INT64_MAX;
  std::int64_t* h = comm.check_host;
  h[0] = local == GPUOPT_SUCCESS ? static_cast<std::int64_t>(fp) : poison;
  h[1] = local == GPUOPT_SUCCESS ? -static_cast<std::int64_t>(fp) : poison;
  GPUOPT_TRY_CUDA(
      cudaMemcpyAsync(comm.check_device, h, 2 * sizeof *h, cudaMemcpyHostToDevice, stream.stream),
      fn, "cudaMemcpyAsync (checked mode)");
  GPUOPT_TRY(nccl_result(
      fn, comm,
      comm.api->AllReduce(comm.check_device, comm.check_device, 2, nccl_type(GPUOPT_DTYPE_I64),
                          2 /* max */, comm.nccl, stream.stream),
      "ncclAllReduce (checked mode's fingerprint)"));
  GPUOPT_TRY_CUDA(
      cudaMemcpyAsync(h, comm.check_device, 2 * sizeof *h, cudaMemcpyDeviceToHost, stream.stream),
      fn, "cudaMemcpyAsync (checked mode)");
  GPUOPT_TRY_CUDA(cudaStreamSynchronize(stream.stream), fn, "cudaStreamSynchronize (checked mode)");
  if (local != GPUOPT_SUCCESS) {
    const std::string prefix = std::string(fn) + ": ";
    const std::size_t skip = own.compare(0, prefix.size(), prefix) == 0 ? prefix.size() : 0;
    return fail(local, fn, "%s (checked mode: the other ranks were told)", own.c_str() + skip);
  }
  if (h[0] == poison || h[1] == poison)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "another rank's arguments failed its checks (checked mode); nothing was enqueued");
  if (h[0] != -h[1])
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "the ranks passed different arguments (dtype, operator, count, root or shape "
                "differ; checked mode); nothing was enqueued");
  return GPUOPT_SUCCESS;
}

}  // namespace gpuopt
