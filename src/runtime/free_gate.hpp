// The free gate: gpuopt's frees kept out of gpuopt's graph captures.
//
// Freeing memory (cudaFree, cudaFreeHost, a VMM unmap after cudaDeviceSynchronize) synchronizes
// the whole device, and one made by any thread while another thread captures a stream
// invalidates that capture, even in CUDA's thread-local capture mode. gpuopt orders its own
// captures and frees through this gate: a capture begins under the gate's lock, and a free asked
// for while one of gpuopt's captures is open is queued and runs when the last of them ends (on the
// thread that ends it, with the freed memory's device current). Frees by the application and
// captures gpuopt did not begin are outside the gate (docs/threading.md).
#pragma once
#include <functional>

#include "gpuopt.h"

namespace gpuopt {

// Runs `begin` (which starts a capture) under the gate; when it answers GPUOPT_SUCCESS, one more
// capture is open until gate_capture_ended().
gpuopt_status_t gate_begin_capture(const std::function<gpuopt_status_t()>& begin);

// One of gpuopt's captures ended, whatever its outcome; the last one runs the queued frees.
void gate_capture_ended();

// Runs `release` now when none of gpuopt's captures is open and answers its status; otherwise
// queues it and answers GPUOPT_SUCCESS (a queued release's failure is logged when it runs).
// `device` is made current while a queued release runs.
gpuopt_status_t gate_free(int device, std::function<gpuopt_status_t()> release);

// How many releases wait for captures to end (tests and logs).
int gate_queued_frees();

}  // namespace gpuopt
