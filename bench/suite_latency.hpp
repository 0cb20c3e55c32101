// The latency rows: per-call cost of small calls issued back to back on one stream, gpuopt
// against the vendor call a user would make instead (cublasSaxpy, cublasSgemm,
// cub::DeviceReduce::Sum), and the cost of wrapping a caller's cudaStream_t (what a framework
// integration does per call). Bars: gpuopt us / vendor us <= 1.0 each, stream wrap <= 10 us.
#pragma once
#include <vector>

#include "env.hpp"
#include "results.hpp"

namespace bench {

constexpr int kLatencyCalls = 2000;  // calls per timed batch

// Rows run_latency_suite adds for these options (0 or 9).
int latency_row_count(const Options& opt);

void run_latency_suite(BenchEnv& env, std::vector<Row>* rows);

// The five latency bars, from the rows.
void compute_latency_bars(Results& r, const Options& opt);

}  // namespace bench
