#include "gpu_loader.hpp"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>

#include <atomic>

#include "config.hpp"
#include "cpu_lib.hpp"

#ifndef GPUOPT_BLAS_GPU_HALF  // relative to the directory of the shim's file
#error "GPUOPT_BLAS_GPU_HALF (the GPU half's path relative to the shim) must be defined"
#endif

namespace gpuopt_blas {
namespace {

pthread_once_t g_once = PTHREAD_ONCE_INIT;
std::atomic<const gpu::Table*> g_table{nullptr};
std::string g_error;

// The shim's own directory as the loader resolved it when loading it ($ORIGIN: absolute even when
// LD_PRELOAD or LD_LIBRARY_PATH named it relative to a directory the program has left since).
std::string gpu_half_path() {
  Dl_info info{};
  link_map* self = nullptr;
  char origin[PATH_MAX];
  if (!dladdr1(reinterpret_cast<void*>(&gpu_half_path), &info, reinterpret_cast<void**>(&self),
               RTLD_DL_LINKMAP) ||
      !self || dlinfo(self, RTLD_DI_ORIGIN, origin) != 0)
    return "";
  return std::string(origin) + "/" + GPUOPT_BLAS_GPU_HALF;
}

void load() {
  std::string path = gpu_half_path();
  if (path.empty()) {
    g_error = "cannot locate the GPU half (no origin for the shim's own file)";
    return;
  }
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    g_error = "cannot load the GPU half: " + std::string(e ? e : path + ": dlopen failed");
    return;
  }
  auto entry = reinterpret_cast<gpu::GpuHalfEntry>(dlsym(h, GPUOPT_BLAS_GPU_HALF_ENTRY));
  static gpu::HostServices services;  // the GPU half keeps the pointer
  services = {sizeof(gpu::HostServices), gpu::kGpuHalfInterface, &cpu_symbol_or_die, &config()};
  const gpu::Table* t = entry ? entry(&services) : nullptr;
  if (!t || t->struct_size != sizeof(gpu::Table) || t->interface != gpu::kGpuHalfInterface) {
    g_error = path + " is not the GPU half of this build of gpuopt_blas";
    dlclose(h);
    return;
  }
  g_table.store(t, std::memory_order_release);
}

}  // namespace

const gpu::Table* gpu_half(std::string* why) {
  pthread_once(&g_once, [] {
    load();
    // A broken installation, not a machine without a GPU: say so once (results stay right).
    if (!g_error.empty())
      fprintf(stderr, "gpuopt_blas: %s; level-3 calls run on the CPU BLAS\n", g_error.c_str());
  });
  const gpu::Table* t = g_table.load(std::memory_order_acquire);
  if (!t) *why = g_error;
  return t;
}

const gpu::Table* gpu_half_if_loaded() { return g_table.load(std::memory_order_acquire); }

}  // namespace gpuopt_blas
