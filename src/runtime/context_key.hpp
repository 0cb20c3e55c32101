// The key of the calling thread's current CUDA context for per-context caches: its unique ID
// (cuCtxGetId, never reused within a process, so a context destroyed or reset and created again
// at the same address gets a new key) plus one.
#pragma once

namespace gpuopt {

// 0 when there is no current context or the driver lacks cuCtxGetCurrent / cuCtxGetId (callers
// then cache nothing); never ~0ull (reserved by the caches as "being filled").
unsigned long long current_context_key();

}  // namespace gpuopt
