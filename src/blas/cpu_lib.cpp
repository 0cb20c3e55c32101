#include "cpu_lib.hpp"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <string>

#include "config.hpp"

namespace gpuopt_blas {
namespace {

// Alternatives of Debian/Ubuntu's libblas.so.3, best first.
const char* const kCandidates[] = {
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3",
    "/usr/lib/x86_64-linux-gnu/openblas-openmp/libblas.so.3",
    "/usr/lib/x86_64-linux-gnu/openblas-serial/libblas.so.3",
    "/usr/lib/x86_64-linux-gnu/blis-pthread/libblas.so.3",
    "/usr/lib/x86_64-linux-gnu/blis-openmp/libblas.so.3",
    "/usr/lib/x86_64-linux-gnu/blis-serial/libblas.so.3",
    "/usr/lib/x86_64-linux-gnu/atlas/libblas.so.3",
    "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3",
    "/usr/lib64/libopenblas.so.0",
    "/usr/lib/libopenblas.so.0",
    "/usr/lib64/libblas.so.3",
    // The alternatives' link itself (skipped when it points at gpuopt_blas).
    "/usr/lib/x86_64-linux-gnu/libblas.so.3",
    "/usr/lib/libblas.so.3",
};

pthread_once_t g_once = PTHREAD_ONCE_INIT;
void* g_handle = nullptr;
std::string g_path;
std::string g_error;

bool same_file(const char* a, const struct stat& self) {
  struct stat st;
  return stat(a, &st) == 0 && st.st_dev == self.st_dev && st.st_ino == self.st_ino;
}

void load() {
  Dl_info info{};
  struct stat self {};
  bool have_self = dladdr(reinterpret_cast<void*>(&load), &info) != 0 && info.dli_fname &&
                   stat(info.dli_fname, &self) == 0;
  auto try_path = [&](const char* path) -> bool {
    if (have_self && same_file(path, self)) {
      g_error = std::string(path) + " is gpuopt_blas itself";
      return false;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
      g_error = std::string(path) + " does not exist";
      return false;
    }
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      g_error = std::string("dlopen ") + path + ": " + (e ? e : "failed");
      return false;
    }
    if (!dlsym(h, "dgemm_")) {
      g_error = std::string(path) + " has no dgemm_";
      dlclose(h);
      return false;
    }
    g_handle = h;
    g_path = path;
    g_error.clear();
    return true;
  };
  const std::string& forced = config().cpu_lib;
  if (!forced.empty()) {
    if (forced[0] != '/') {
      g_error = "GPUOPT_BLAS_CPU_LIB=" + forced + " is not an absolute path";
      return;
    }
    try_path(forced.c_str());
    return;
  }
  for (const char* c : kCandidates) {
    if (try_path(c)) return;
  }
  g_error = "no CPU BLAS found (set GPUOPT_BLAS_CPU_LIB to the absolute path of one)";
}

}  // namespace

void* cpu_symbol(const char* name) {
  pthread_once(&g_once, load);
  return g_handle ? dlsym(g_handle, name) : nullptr;
}

const char* cpu_library_path() {
  pthread_once(&g_once, load);
  return g_handle ? g_path.c_str() : nullptr;
}

const char* cpu_library_error() {
  pthread_once(&g_once, load);
  return g_error.c_str();
}

void* cpu_symbol_or_die(const char* name) {
  void* f = cpu_symbol(name);
  if (!f) {
    if (g_handle)
      fprintf(stderr, "gpuopt_blas: the CPU BLAS %s has no %s\n", g_path.c_str(), name);
    else
      fprintf(stderr, "gpuopt_blas: cannot run %s: %s\n", name, g_error.c_str());
    abort();
  }
  return f;
}

}  // namespace gpuopt_blas
