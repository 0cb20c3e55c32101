// How many calls of a timed operation fill a span of time: the warm-up and sample sizes of the
// bench's timers (timer.cpp, suite_gemm.cpp). Host arithmetic only, tested without a GPU.
#pragma once
#include <algorithm>
#include <cmath>

namespace bench {

// The number of calls of ms_per_call each that lasts at least span_ms: ceil(span_ms /
// ms_per_call), at least 1 and at most max_calls (a call is taken to last at least 1e-4 ms, so a
// call timed as zero asks for max_calls, not a division by zero; NaN asks for 1).
inline int calls_lasting(double span_ms, double ms_per_call, int max_calls) {
  const double n = std::ceil(span_ms / std::max(ms_per_call, 1e-4));
  if (!(n >= 1.0)) return 1;
  return n >= static_cast<double>(max_calls) ? std::max(max_calls, 1) : static_cast<int>(n);
}

}  // namespace bench
