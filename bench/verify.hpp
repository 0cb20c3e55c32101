// Host reference for axpy: recomputes the inputs from data_gen.hpp in double precision and
// compares the device's output over every element, on all host cores.
#pragma once
#include <cstdint>

#include "data_gen.hpp"
#include "gpuopt.h"

namespace bench {

struct AxpyCheck {
  gpuopt_dtype_t dtype = GPUOPT_DTYPE_F32;
  std::int64_t n = 0;
  double alpha = 0.0;  // as the library sees it (rounded to the dtype)
  int calls = 1;       // y was updated `calls` times: ref = y0 + calls * alpha * x
  DataKind kind = DataKind::kRandom;
  std::uint64_t seed = 0;
};

struct VerifyResult {
  double rel_err = 0.0;         // ||out - ref|| / ||ref|| (NaN if any output is not finite)
  std::int64_t bad = 0;         // elements outside a few ulps of their own bound, or not finite
  std::int64_t first_bad = -1;  // index of the first, -1 when none
  double first_got = 0.0, first_want = 0.0;
  bool correct = false;  // bad == 0 and rel_err <= rel_bar(dtype)
};

// 1e-6 for f32, 1e-14 for f64.
double rel_bar(gpuopt_dtype_t dtype);

// out: n elements of the dtype (host memory). Throws BenchError for unsupported dtypes.
VerifyResult verify_axpy(const AxpyCheck& c, const void* out);

}  // namespace bench
