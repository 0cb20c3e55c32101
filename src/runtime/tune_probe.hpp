// The seam between gpuopt_tune and the dispatcher: while gpuopt_tune runs its caller's callback,
// the calling thread's dispatches of the tuned op run the variant being timed and note the
// problem's class. Thread-local, so other threads' calls dispatch as usual.
#pragma once
#include "gpuopt.h"
#include "runtime/tune_key.hpp"

namespace gpuopt {

struct TuneProbe {
  gpuopt_op_t op = GPUOPT_OP_AXPY;
  int variant = -1;    // the variant (packed with a configuration: registry.hpp) to run
  int calls = 0;       // dispatches of op seen
  bool mixed = false;  // the dispatches were of more than one class
  TuneKey key;         // the class of the first dispatch
  int rule = -1;       // the variant the preference rules choose for the first dispatch

  void note(const TuneKey& k) {
    if (calls++ == 0)
      key = k;
    else if (k != key)
      mixed = true;
  }
};

// The probe of the gpuopt_tune running on this thread, or nullptr.
extern thread_local TuneProbe* t_tune_probe;

}  // namespace gpuopt
