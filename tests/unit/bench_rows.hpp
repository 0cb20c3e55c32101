// A correct gemm row of gpuopt-bench (bf16 4096^3) for the bench's host tests.
#pragma once
#include <string>

#include "results.hpp"

namespace bench_test {

inline bench::Row gemm_row(const std::string& variant, double ms) {
  bench::Row r;
  r.op = "gemm";
  r.dtype = "bf16";
  r.shape = "4096x4096x4096";
  r.m = r.n = r.k = 4096;
  r.batch = 1;
  r.a_type = "bf16";
  r.c_type = "f32";
  r.compute = "f32";
  r.memory = "device";
  r.data = "random";
  r.flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
  r.variant = variant;
  r.ms = ms;
  r.correct = true;
  return r;
}

}  // namespace bench_test
