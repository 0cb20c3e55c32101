#include "runtime/kernel_functions.hpp"

#include "runtime/context_key.hpp"
#include "runtime/driver.hpp"

namespace gpuopt {

CUfunction kernel_function(CUkernel kernel, KernelFunctionSlots& slots) {
  const CUfunction fallback = reinterpret_cast<CUfunction>(kernel);
  const DriverApi& d = driver_api();
  if (!d.cuKernelGetFunction) return fallback;
  const unsigned long long key = current_context_key();
  if (key == 0) return fallback;
  for (int i = 0; i < KernelFunctionSlots::kSlots; ++i) {
    const unsigned long long k = slots.key[i].load(std::memory_order_acquire);
    if (k == key) return slots.fn[i].load(std::memory_order_relaxed);
    if (k != 0) continue;
    // A free slot: resolve and publish (function first, then the key that makes it visible).
    CUfunction f = nullptr;
    if (d.cuKernelGetFunction(&f, kernel) != CUDA_SUCCESS || !f) return fallback;
    unsigned long long expected = 0;
    if (slots.key[i].compare_exchange_strong(expected, ~0ull, std::memory_order_acq_rel)) {
      slots.fn[i].store(f, std::memory_order_relaxed);
      slots.key[i].store(key, std::memory_order_release);
    }
    return f;  // another thread took the slot first: this call still launches f
  }
  return fallback;
}

}  // namespace gpuopt
