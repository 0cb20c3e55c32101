// The multi-GPU rows (--op allreduce, --op gemm_dist, or both with --op multi_gpu), over every
// GPU of the machine (or --gpus N), one process driving them all:
// - allreduce: f32 sum, 8 B to 1 GiB by powers of 2, gpuopt_allreduce against NCCL called
//   directly (ncclAllReduce on communicators of its own) in the same run; latency, algbw and
//   busbw as nccl-tests define them (busbw = algbw x 2 (n - 1) / n; the rows' GB/s is busbw).
// - gemm_dist: f64 C = A B, n = 32768: the best one-GPU rate (gpuopt_gemm auto and cuBLAS),
//   gpuopt_gemm_dist on all GPUs (grid 1 x 2, 2 x 2 for 4), n = 65536 on 4 GPUs, and the same
//   2-GPU problem run as 2 processes (this program re-executed as workers) against one process.
// Timing: wall clock over calls issued to every rank and completed (streams synchronized).
#pragma once
#include <vector>

#include "env.hpp"
#include "results.hpp"

namespace bench {

// Rows of the multi-GPU suites the options ask for (none unless --op names one).
void run_multi_gpu_suites(BenchEnv& env, Results* res);

// The bars of ARCHITECTURE.md's multi-GPU entries, from the rows.
void compute_multi_gpu_bars(Results& r);

// `gpuopt-bench --dist-worker RANK NRANKS ID_HEX N`: one rank of the 2-process gemm_dist run;
// prints "tflops X" (rank 0). Returns the exit code.
int dist_worker_main(int argc, char** argv);

}  // namespace bench
