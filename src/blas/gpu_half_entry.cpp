// The GPU half's one export (gpu_half.hpp) and what it takes from the shim that loaded it: the
// CPU BLAS (cpu_calls.hpp's lookups) and the settings are the shim's, so both halves agree.
#include "config.hpp"
#include "cpu_lib.hpp"
#include "gpu.hpp"
#include "gpu_half.hpp"

namespace gpuopt_blas {
namespace {

const gpu::HostServices* g_host = nullptr;  // set before the shim sees the table

template <class T>
constexpr gpu::Routines<T> routines_of() {
  return {&gpu::gemm<T>,  &gpu::symm<T>, &gpu::syrk<T>,
          &gpu::syr2k<T>, &gpu::trmm<T>, &gpu::trsm<T>};
}

constexpr gpu::Table kTable = {
    sizeof(gpu::Table), gpu::kGpuHalfInterface, &gpu::route_on_gpu,  &gpu::in_device_memory,
    &gpu::forked_child, routines_of<double>(),  routines_of<float>()};

}  // namespace

void* cpu_symbol_or_die(const char* name) { return g_host->cpu_symbol_or_die(name); }

const Config& config() { return *g_host->config; }

}  // namespace gpuopt_blas

extern "C" __attribute__((visibility("default"))) const gpuopt_blas::gpu::Table*
gpuopt_blas_gpu_table(const gpuopt_blas::gpu::HostServices* host) {
  using namespace gpuopt_blas;
  if (!host || host->struct_size != sizeof(gpu::HostServices) ||
      host->interface != gpu::kGpuHalfInterface || !host->cpu_symbol_or_die || !host->config)
    return nullptr;
  g_host = host;
  return &kTable;
}
