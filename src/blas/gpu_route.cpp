// The routing model: a call goes to the GPU when its host operands' bytes over the link plus its
// flops at the GPU rate take less time than its flops at the CPU rate (rates measured once, at
// the first call big enough to ask). Small calls are answered without touching CUDA.
#include <cuda_runtime.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include <atomic>
#include <cmath>

#include "call_log.hpp"
#include "config.hpp"
#include "gpu.hpp"
#include "gpu_engine.hpp"

namespace gpuopt_blas {
namespace gpu {
namespace {

// Below this many flops (a 370^3 GEMM) the CPU BLAS wins on any machine we know: one GEMM
// launch and its copies cost tens of microseconds. Such calls never initialize CUDA.
constexpr double kSmallFlops = 1e8;
// Per-call cost of the GPU path (thread start, launches, synchronization), seconds.
constexpr double kGpuOverhead = 2e-4;

std::string fmt(const char* f, double a, double b = 0) {
  char buf[200];
  snprintf(buf, sizeof buf, f, a, b);
  return buf;
}

// True when the CUDA driver is loaded in this process (by the program or by an earlier GPU call):
// only then can an operand be in device memory. Asking loads nothing and opens no file: the list
// of loaded objects is walked (dl_iterate_phdr), and walked again only after a library was loaded
// (dlpi_adds), so a small call pays a lock and a compare. (dlopen("libcuda.so.1", RTLD_NOLOAD)
// searches the library path, opening files, whenever the driver is not loaded: tens of
// microseconds on every small call of a CPU-only program.)
bool driver_loaded() {
  static std::atomic<bool> loaded{false};                      // once loaded, the driver stays
  static std::atomic<unsigned long long> scanned_adds{~0ull};  // dlpi_adds of the last full walk
  if (loaded.load(std::memory_order_relaxed)) return true;
  struct Scan {
    unsigned long long seen, adds;
    bool found;
  } scan{scanned_adds.load(std::memory_order_relaxed), 0, false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        Scan* s = static_cast<Scan*>(data);
        s->adds = info->dlpi_adds;
        if (s->adds == s->seen) return 1;  // nothing loaded since a walk that did not find it
        const char* name = info->dlpi_name ? info->dlpi_name : "";
        const char* slash = strrchr(name, '/');
        if (strncmp(slash ? slash + 1 : name, "libcuda.so", 10) == 0) {
          s->found = true;
          return 1;
        }
        return 0;
      },
      &scan);
  if (scan.found) {
    loaded = true;
    return true;
  }
  scanned_adds.store(scan.adds, std::memory_order_relaxed);
  return false;
}

bool any_in_device_memory(const Operand* ops, int nops) {
  if (!driver_loaded()) return false;
  for (int i = 0; i < nops; ++i)
    if (classify(ops[i].ptr).mem == Mem::kDevice) return true;
  return false;
}

}  // namespace

Route route(double flops, const Operand* ops, int nops, size_t elem) {
  const Config& c = config();
  Route r;
  if (forked_child()) {
    r.why = "in a child after fork(): CPU only";
    return r;
  }
  // A CPU BLAS cannot read device memory: such calls take the GPU path whatever their size or
  // GPUOPT_BLAS_FORCE (it computes on host copies when no GPU can run them).
  if ((c.force == Force::kCpu || flops < kSmallFlops) && any_in_device_memory(ops, nops)) {
    r.gpu = true;
    r.why = "operands in device memory";
    return r;
  }
  if (c.force == Force::kCpu) {
    r.why = "GPUOPT_BLAS_FORCE=cpu";
    return r;
  }
  if (c.force != Force::kGpu && flops < kSmallFlops) {
    if (logging()) r.why = fmt("small (%.3g MFLOP): the CPU is faster", flops * 1e-6);
    return r;
  }
  Engine& e = Engine::get();
  std::lock_guard<std::mutex> lock(e.mutex());
  DeviceScope keep_device;
  std::string why;
  gpuopt_host_tiled::Pipeline* p = e.pipeline(&why);
  if (!p) {
    // Operands in device memory cannot go to the CPU BLAS as they are: the GPU side copies them.
    for (int i = 0; i < nops; ++i)
      if (classify(ops[i].ptr).mem == Mem::kDevice) {
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
