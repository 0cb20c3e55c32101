// A communicator: one rank of an NCCL communicator, bound to the context of its device, and the
// small device and pinned host buffers the checked mode's fingerprint all-reduce uses.
#pragma once
#include <atomic>
#include <cstdint>

#include "context.hpp"
#include "nccl_api.hpp"

struct gpuopt_comm_s {
  gpuopt_context_s* ctx = nullptr;
  const gpuopt::NcclApi* api = nullptr;
  gpuopt::NcclComm nccl = nullptr;
  int rank = 0;
  int size = 1;
  std::atomic<bool> checked{false};
  std::int64_t* check_device = nullptr;  // 2 x int64, allocated when checked mode is first on
  std::int64_t* check_host = nullptr;    // 2 x int64, pinned
};

namespace gpuopt {

using Comm = gpuopt_comm_s;

// Validates a communicator handle argument.
gpuopt_status_t check_comm(const char* fn, gpuopt_comm_t comm, const char* arg = "comm");

// Wraps a new NCCL communicator of ctx's device into a registered handle (counted as a live
// object of ctx). On failure the NCCL communicator is aborted.
gpuopt_status_t comm_open(const char* fn, Context& ctx, const NcclApi& api, NcclComm nccl,
                          Comm** out);

// Unregisters and frees the handle and its buffers; abort == true aborts the NCCL communicator
// (ncclCommAbort), else destroys it (ncclCommDestroy). Answers NCCL's failure, if any, after
// freeing everything.
gpuopt_status_t comm_close(const char* fn, Comm* comm, bool abort);

// Per-thread depth of gpuopt_group_begin() without gpuopt_group_end().
int& thread_group_depth();

}  // namespace gpuopt
