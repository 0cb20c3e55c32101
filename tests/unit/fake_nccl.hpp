// A fake NCCL for host tests: communicators that record the collectives enqueued on them, so
// that validation can be checked to enqueue nothing on bad input and exactly one call on good.
#pragma once
#include <string>
#include <vector>

#include "runtime/comm.hpp"

namespace unit {

struct FakeNccl {
  static std::vector<std::string>& calls() {
    static std::vector<std::string> c;
    return c;
  }
  static int& rank() {
    static int r = 0;
    return r;
  }
  static int& size() {
    static int s = 1;
    return s;
  }
  static gpuopt::NcclApi api() {
    gpuopt::NcclApi a;
    a.version = 22809;
    a.CommUserRank = [](gpuopt::NcclComm, int* r) { return *r = rank(), 0; };
    a.CommCount = [](gpuopt::NcclComm, int* s) { return *s = size(), 0; };
    a.CommDestroy = [](gpuopt::NcclComm) { return calls().push_back("destroy"), 0; };
    a.CommAbort = [](gpuopt::NcclComm) { return calls().push_back("abort"), 0; };
    a.GetErrorString = [](gpuopt::NcclResult) { return "fake"; };
    a.GetLastError = [](gpuopt::NcclComm) { return ""; };
    a.AllReduce = [](const void*, void*, std::size_t, gpuopt::NcclType, gpuopt::NcclRedOp,
                     gpuopt::NcclComm, cudaStream_t) { return calls().push_back("allreduce"), 0; };
    a.ReduceScatter = [](const void*, void*, std::size_t, gpuopt::NcclType, gpuopt::NcclRedOp,
                         gpuopt::NcclComm,
                         cudaStream_t) { return calls().push_back("reduce_scatter"), 0; };
    a.AllGather = [](const void*, void*, std::size_t, gpuopt::NcclType, gpuopt::NcclComm,
                     cudaStream_t) { return calls().push_back("allgather"), 0; };
    a.Broadcast = [](const void*, void*, std::size_t, gpuopt::NcclType, int, gpuopt::NcclComm,
                     cudaStream_t) { return calls().push_back("broadcast"), 0; };
    return a;
  }
};

}  // namespace unit
