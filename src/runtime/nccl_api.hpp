// The NCCL seam: the one place that knows NCCL. libnccl.so.2 is opened with dlopen at first use
// (no link-time dependency), so libgpuopt builds, loads and runs where NCCL is absent; every comm
// call then answers GPUOPT_ERROR_UNSUPPORTED with how to get it. The entry points are declared
// here by NCCL's stable C ABI (checked against nccl.h where the build found it, GPUOPT_NCCL).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gpuopt.h"

namespace gpuopt {

using NcclComm = struct ncclComm*;  // ncclComm_t
struct NcclUniqueId {               // ncclUniqueId
  char internal[GPUOPT_COMM_ID_BYTES];
};
using NcclResult = int;  // ncclResult_t
using NcclType = int;    // ncclDataType_t
using NcclRedOp = int;   // ncclRedOp_t

constexpr NcclResult kNcclSuccess = 0;
constexpr NcclResult kNcclInProgress = 7;
constexpr int kNcclSplitNoColor = -1;

struct NcclApi {
  int version = 0;  // NCCL_VERSION_CODE of the loaded library
  NcclResult (*GetVersion)(int*) = nullptr;
  NcclResult (*GetUniqueId)(NcclUniqueId*) = nullptr;
  NcclResult (*CommInitRank)(NcclComm*, int, NcclUniqueId, int) = nullptr;
  NcclResult (*CommInitAll)(NcclComm*, int, const int*) = nullptr;
  NcclResult (*CommSplit)(NcclComm, int, int, NcclComm*, void* config) = nullptr;
  NcclResult (*CommDestroy)(NcclComm) = nullptr;
  NcclResult (*CommAbort)(NcclComm) = nullptr;
  NcclResult (*CommCount)(NcclComm, int*) = nullptr;
  NcclResult (*CommUserRank)(NcclComm, int*) = nullptr;
  NcclResult (*CommGetAsyncError)(NcclComm, NcclResult*) = nullptr;
  const char* (*GetErrorString)(NcclResult) = nullptr;
  const char* (*GetLastError)(NcclComm) = nullptr;
  NcclResult (*GroupStart)() = nullptr;
  NcclResult (*GroupEnd)() = nullptr;
  NcclResult (*AllReduce)(const void*, void*, std::size_t, NcclType, NcclRedOp, NcclComm,
                          cudaStream_t) = nullptr;
  NcclResult (*ReduceScatter)(const void*, void*, std::size_t, NcclType, NcclRedOp, NcclComm,
                              cudaStream_t) = nullptr;
  NcclResult (*AllGather)(const void*, void*, std::size_t, NcclType, NcclComm,
                          cudaStream_t) = nullptr;
  NcclResult (*Broadcast)(const void*, void*, std::size_t, NcclType, int, NcclComm,
                          cudaStream_t) = nullptr;
  NcclResult (*Send)(const void*, std::size_t, NcclType, int, NcclComm, cudaStream_t) = nullptr;
  NcclResult (*Recv)(void*, std::size_t, NcclType, int, NcclComm, cudaStream_t) = nullptr;
};

// The loaded NCCL (loaded once per process, thread-safe). On failure *api is untouched and the
// answer is GPUOPT_ERROR_UNSUPPORTED with a message of fn that says why and how to get NCCL.
gpuopt_status_t nccl_api(const char* fn, const NcclApi** api);

// GPUOPT_ERROR_COMM with "fn: what: ncclX (text; NCCL's last error)" for a failed NCCL call.
gpuopt_status_t fail_nccl(const NcclApi& api, NcclResult r, NcclComm comm, const char* fn,
                          const char* what);

// The NCCL type of a gpuopt dtype (every gpuopt dtype has one).
NcclType nccl_type(gpuopt_dtype_t t);

// The NCCL operator of SUM, MIN, MAX; false for the others.
bool nccl_op(gpuopt_reduce_op_t op, NcclRedOp* out);

}  // namespace gpuopt
