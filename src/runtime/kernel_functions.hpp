// The context-bound function (CUfunction) of a kernel in the calling thread's current context,
// for the direct launch (common/direct_launch.cuh). A context-independent CUkernel launches in
// any context, but the driver resolves it to the context's function on every launch; launching
// the resolved function skips that step. On the H100 (driver 580, interleaved 2000-call batches
// of a 4-block kernel, four runs) a CUfunction launch issued 0.04-0.23 us faster per call than the
// same kernel's CUkernel (docs/notes/latency.md, fifth round).
//
// The cache is keyed by the context's unique ID (cuCtxGetId: never reused in a process, so a
// context destroyed or reset and created again at the same address gets a new key and a stale
// function is never launched). Slots are filled once and never overwritten, so a reader cannot
// pair one context's ID with another's function; with every slot taken (more contexts than
// slots in a process's life) the CUkernel is launched, as before.
#pragma once
#include <cuda.h>

#include <atomic>

namespace gpuopt {

struct KernelFunctionSlots {
  static constexpr int kSlots = 8;
  std::atomic<unsigned long long> key[kSlots] = {};  // context ID + 1; 0 free, ~0 being filled
  std::atomic<CUfunction> fn[kSlots] = {};
};

// The function of `kernel` in the current context, or `kernel` itself as a CUfunction (the
// driver accepts both) when there is no current context, the driver lacks the entry points or
// the slots are full.
CUfunction kernel_function(CUkernel kernel, KernelFunctionSlots& slots);

}  // namespace gpuopt
