#include "routing.hpp"

#include <link.h>
#include <stdio.h>
#include <string.h>

#include <atomic>

#include "call_log.hpp"
#include "config.hpp"
#include "gpu_loader.hpp"

namespace gpuopt_blas {
namespace {

// Below this many flops (a 370^3 GEMM) the CPU BLAS wins on any machine we know: one GEMM
// launch and its copies cost tens of microseconds. Such calls never load the GPU half.
constexpr double kSmallFlops = 1e8;

// True when the CUDA driver is loaded in this process (by the program or by an earlier GPU call):
// only then can an operand be in device memory. Asking loads nothing and opens no file: the list
// of loaded objects is walked (dl_iterate_phdr), and walked again only after a library was loaded
// (dlpi_adds), so a small call pays a lock and a compare. (dlopen("libcuda.so.1", RTLD_NOLOAD)
// searches the library path, opening files, whenever the driver is not loaded: 30 us and more on
// every small call of a CPU-only program.)
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

}  // namespace

gpu::Route route(double flops, const gpu::Operand* ops, int nops, size_t elem,
                 const gpu::Table** table) {
  const Config& c = config();
  gpu::Route r;
  const gpu::Table* loaded = gpu_half_if_loaded();
  if (loaded && loaded->forked_child()) {
    r.why = "in a child after fork(): CPU only";
    return r;
  }
  const bool small = flops < kSmallFlops;
  // A CPU BLAS cannot read device memory: such calls take the GPU path whatever their size or
  // GPUOPT_BLAS_FORCE (it computes on host copies when no GPU can run them). Device memory exists
  // only where the driver is loaded: a program that has loaded it pays for the GPU half's look.
  if ((c.force == Force::kCpu || small) && driver_loaded()) {
    std::string why;
    if (const gpu::Table* t = gpu_half(&why)) {
      if (t->in_device_memory(ops, nops)) {
        r.gpu = true;
        r.why = "operands in device memory";
        *table = t;
        return r;
      }
    }
  }
  if (c.force == Force::kCpu) {
    r.why = "GPUOPT_BLAS_FORCE=cpu";
    return r;
  }
  if (c.force != Force::kGpu && small) {
    if (logging()) {
      char buf[96];
      snprintf(buf, sizeof buf, "small (%.3g MFLOP): the CPU is faster", flops * 1e-6);
      r.why = buf;
    }
    return r;
  }
  const gpu::Table* t = gpu_half(&r.why);
  if (!t) return r;
  r = t->route_on_gpu(flops, ops, nops, elem);
  if (r.gpu) *table = t;
  return r;
}

}  // namespace gpuopt_blas
