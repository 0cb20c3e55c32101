// The torch.matmul peer rows of the gemm suite: runs bench/torch_matmul.py once for every gemm
// table that has an auto row and merges one "torch.matmul" row into each (torch_peer.hpp).
//
// The helper is $GPUOPT_BENCH_TORCH_HELPER, else torch_matmul.py next to the gpuopt-bench
// executable (the build copies it there); the Python is $GPUOPT_BENCH_PYTHON, else python3. With
// --torch a helper that cannot run torch gives each table an error row (as does a case torch
// could not time); by default it gives no rows and one line on stderr (and such a case is a
// skipped row); --no-torch runs nothing.
#pragma once
#include <vector>

#include "env.hpp"
#include "suite_gemm.hpp"

namespace bench {

// Progress steps of the peer run (0 or 1).
int torch_step_count(const Options& opt, const std::vector<GemmGroup>& groups);

// Runs the helper and inserts each table's row after the table's last row.
void run_torch_peer(BenchEnv& env, const std::vector<GemmGroup>& groups, std::vector<Row>* rows);

}  // namespace bench
