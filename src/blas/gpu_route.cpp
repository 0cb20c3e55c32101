// The routing model: a call goes to the GPU when its host operands' bytes over the link plus its
// flops at the GPU rate take less time than its flops at the CPU rate (rates measured once, at
// the first call asked about). The shim (routing.cpp) answers small calls without the GPU half.
#include <cuda_runtime.h>
#include <stdio.h>

#include <cmath>

#include "call_log.hpp"
#include "config.hpp"
#include "gpu.hpp"
#include "gpu_engine.hpp"

namespace gpuopt_blas {
namespace gpu {
namespace {

// Per-call cost of the GPU path (thread start, launches, synchronization), seconds.
constexpr double kGpuOverhead = 2e-4;

std::string fmt(const char* f, double a, double b = 0) {
  char buf[200];
  snprintf(buf, sizeof buf, f, a, b);
  return buf;
}

}  // namespace

bool in_device_memory(const Operand* ops, int nops) {
  for (int i = 0; i < nops; ++i)
    if (classify(ops[i].ptr).mem == Mem::kDevice) return true;
  return false;
}

Route route_on_gpu(double flops, const Operand* ops, int nops, size_t elem) {
  const Config& c = config();
  Route r;
  Engine& e = Engine::get();
  std::lock_guard<std::mutex> lock(e.mutex());
  DeviceScope keep_device;
  std::string why;
  gpuopt_host_tiled::Pipeline* p = e.pipeline(&why);
  if (!p) {
    // Operands in device memory cannot go to the CPU BLAS as they are: the GPU side copies them.
    if (in_device_memory(ops, nops)) {
      r.gpu = true;
      r.why = why + "; operands in device memory, computed on the CPU through host copies";
      return r;
    }
    r.why = why;
    return r;
  }
  const double tile = static_cast<double>(p->options().tile_mn);
  double out_extent = 1;
  for (int i = 0; i < nops; ++i)
    if (ops[i].written)
      out_extent = std::fmax(static_cast<double>(ops[i].rows), static_cast<double>(ops[i].cols));
  const double reuse = std::ceil(out_extent / tile);  // inputs cross once per tile row/column
  double bytes = 0;
  bool on_device = false;
  for (int i = 0; i < nops; ++i) {
    Where w = classify(ops[i].ptr);
    if (w.mem == Mem::kDevice) on_device = true;
    if (w.mem != Mem::kHost) continue;
    double b = static_cast<double>(ops[i].rows) * static_cast<double>(ops[i].cols) *
               static_cast<double>(elem);
    bytes += ops[i].written ? b * (ops[i].read ? 2 : 1) : b * reuse;
  }
  r.gpu = true;
  if (c.force == Force::kGpu) {
    r.why = "GPUOPT_BLAS_FORCE=gpu";
    return r;
  }
  if (on_device) {
    r.why = "operands in device memory";
    return r;
  }
  const Rates& rt = e.rates();
  const int prec = elem == 8 ? 1 : 0;
  const double ndev = static_cast<double>(p->devices().size());
  const double t_gpu = bytes / (rt.link * ndev) + flops / (rt.gpu[prec] * ndev) + kGpuOverhead;
  const double t_cpu = flops / rt.cpu[prec];
  r.gpu = t_gpu < t_cpu;
  if (logging())
    r.why = fmt("model: GPU %.3g ms", t_gpu * 1e3) + fmt(" vs CPU %.3g ms", t_cpu * 1e3);
  return r;
}

}  // namespace gpu
}  // namespace gpuopt_blas
