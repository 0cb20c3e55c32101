#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "runtime/error.hpp"
#include "runtime/nccl_api.hpp"
#include "runtime/stream.hpp"

#if GPUOPT_HAVE_NCCL_H
#include <nccl.h>
// The declarations of nccl_api.hpp are NCCL's ABI: hold them to the header this build found.
static_assert(sizeof(ncclUniqueId) == sizeof(gpuopt::NcclUniqueId), "ncclUniqueId size");
static_assert(sizeof(ncclResult_t) == sizeof(int) && sizeof(ncclDataType_t) == sizeof(int) &&
                  sizeof(ncclRedOp_t) == sizeof(int),
              "NCCL enums are int-sized");
static_assert(ncclSuccess == gpuopt::kNcclSuccess && ncclInProgress == gpuopt::kNcclInProgress &&
                  NCCL_SPLIT_NOCOLOR == gpuopt::kNcclSplitNoColor,
              "NCCL constants");
static_assert(ncclInt32 == 2 && ncclUint32 == 3 && ncclInt64 == 4 && ncclUint64 == 5 &&
                  ncclFloat16 == 6 && ncclFloat32 == 7 && ncclFloat64 == 8 && ncclBfloat16 == 9,
              "NCCL data types");
static_assert(ncclSum == 0 && ncclMax == 2 && ncclMin == 3, "NCCL operators");
#endif

namespace gpuopt {
namespace {

struct Loaded {
  NcclApi api;
  bool ok = false;
  std::string why;  // when !ok
};

constexpr const char* kHowTo =
    "install NCCL (the CUDA toolkit's copy, the libnccl2 package, or pip's nvidia-nccl-cu13) so "
    "that libnccl.so.2 is on the loader's path (LD_LIBRARY_PATH), or name the file in "
    "GPUOPT_NCCL_LIBRARY; docs/multi-gpu.md";

template <class F>
bool bind(void* h, const char* name, F* slot, std::string* missing) {
  *slot = reinterpret_cast<F>(dlsym(h, name));
  if (!*slot) *missing += std::string(missing->empty() ? "" : ", ") + name;
  return *slot != nullptr;
}

Loaded load() {
  Loaded L;
#if !GPUOPT_NCCL_ENABLED
  L.why = std::string(
              "this libgpuopt was built with GPUOPT_NCCL=OFF; rebuild with "
              "-DGPUOPT_NCCL=AUTO or ON and ") +
          kHowTo;
  return L;
#else
  const char* env = secure_getenv("GPUOPT_NCCL_LIBRARY");
  const char* name = env && *env ? env : "libnccl.so.2";
  void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    L.why = std::string("cannot load NCCL (") + name + ": " + (e ? e : "unknown error") + "); " +
            kHowTo;
    return L;
  }
  std::string missing;
  NcclApi& a = L.api;
  // a.<fn> from the library's nccl<fn>.
#define GPUOPT_NCCL_BIND(fn) bind(h, "nccl" #fn, &a.fn, &missing)
  GPUOPT_NCCL_BIND(GetVersion);
  GPUOPT_NCCL_BIND(GetUniqueId);
  GPUOPT_NCCL_BIND(CommInitRank);
  GPUOPT_NCCL_BIND(CommInitAll);
  GPUOPT_NCCL_BIND(CommSplit);
  GPUOPT_NCCL_BIND(CommDestroy);
  GPUOPT_NCCL_BIND(CommAbort);
  GPUOPT_NCCL_BIND(CommCount);
  GPUOPT_NCCL_BIND(CommUserRank);
  GPUOPT_NCCL_BIND(CommGetAsyncError);
  GPUOPT_NCCL_BIND(GetErrorString);
  GPUOPT_NCCL_BIND(GetLastError);
  GPUOPT_NCCL_BIND(GroupStart);
  GPUOPT_NCCL_BIND(GroupEnd);
  GPUOPT_NCCL_BIND(AllReduce);
  GPUOPT_NCCL_BIND(ReduceScatter);
  GPUOPT_NCCL_BIND(AllGather);
  GPUOPT_NCCL_BIND(Broadcast);
  GPUOPT_NCCL_BIND(Send);
  GPUOPT_NCCL_BIND(Recv);
#undef GPUOPT_NCCL_BIND
  if (!missing.empty()) {
    L.why = std::string(name) + " lacks " + missing +
            ": gpuopt needs NCCL 2.18 or newer (ncclCommSplit); " + kHowTo;
    dlclose(h);
    return L;
  }
  if (a.GetVersion(&a.version) != kNcclSuccess || a.version < 21800) {
    L.why = std::string(name) + " is NCCL " + std::to_string(a.version) +
            "; gpuopt needs 2.18 or newer; " + kHowTo;
    dlclose(h);
    return L;
  }
  L.ok = true;  // the handle stays open for the life of the process
  return L;
#endif
}

}  // namespace

gpuopt_status_t nccl_api(const char* fn, const NcclApi** api) {
  static const Loaded* loaded = new Loaded(load());  // never destroyed: used until exit
  if (!loaded->ok) return fail(GPUOPT_ERROR_UNSUPPORTED, fn, "%s", loaded->why.c_str());
  *api = &loaded->api;
  return GPUOPT_SUCCESS;
}

gpuopt_status_t fail_nccl(const NcclApi& api, NcclResult r, NcclComm comm, const char* fn,
                          const char* what) {
  static const char* const kNames[] = {
      "ncclSuccess",         "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
      "ncclInvalidArgument", "ncclInvalidUsage",       "ncclRemoteError", "ncclInProgress"};
  const char* name = r >= 0 && r < 8 ? kNames[r] : "ncclResult";
  const char* last = api.GetLastError ? api.GetLastError(comm) : nullptr;
  // NCCL connects peers at a collective's first use, which a graph capture forbids.
  const bool capture = thread_capture_depth() > 0 || (last && std::strstr(last, "capturing"));
  return fail(GPUOPT_ERROR_COMM, fn, "%s: %s (%d: %s)%s%s%s", what, name, r,
              api.GetErrorString ? api.GetErrorString(r) : "", last && *last ? "; NCCL: " : "",
              last && *last ? last : "",
              capture ? "; during graph capture: run this collective once outside the capture "
                        "first (NCCL connects peers at first use), or set NCCL_RUNTIME_CONNECT=0"
                      : "");
}

NcclType nccl_type(gpuopt_dtype_t t) {
  switch (t) {
    case GPUOPT_DTYPE_F32:
      return 7;
    case GPUOPT_DTYPE_F64:
      return 8;
    case GPUOPT_DTYPE_F16:
      return 6;
    case GPUOPT_DTYPE_BF16:
      return 9;
    case GPUOPT_DTYPE_I32:
      return 2;
    case GPUOPT_DTYPE_I64:
      return 4;
    case GPUOPT_DTYPE_U32:
      return 3;
    case GPUOPT_DTYPE_U64:
      return 5;
  }
  return 0;
}

bool nccl_op(gpuopt_reduce_op_t op, NcclRedOp* out) {
  switch (op) {
    case GPUOPT_REDUCE_SUM:
      *out = 0;
      return true;
    case GPUOPT_REDUCE_MAX:
      *out = 2;
      return true;
    case GPUOPT_REDUCE_MIN:
      *out = 3;
      return true;
    default:
      return false;
  }
}

}  // namespace gpuopt
