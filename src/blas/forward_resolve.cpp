// Slot resolver of the forwarding stubs of the libblas.so.3 form (generated/forwarders_x86_64.S):
// the CPU BLAS's function of that name, stored in the slot for the next calls.
#include "cpu_lib.hpp"

extern "C" {
extern const char* const gpuopt_blas_forward_names[];
extern void* gpuopt_blas_forward_table[];
__attribute__((visibility("hidden"))) void* gpuopt_blas_forward_resolve(unsigned slot);
}

void* gpuopt_blas_forward_resolve(unsigned slot) {
  void* f = gpuopt_blas::cpu_symbol_or_die(gpuopt_blas_forward_names[slot]);
  __atomic_store_n(&gpuopt_blas_forward_table[slot], f, __ATOMIC_RELEASE);
  return f;
}
