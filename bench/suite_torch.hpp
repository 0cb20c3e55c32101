// The torch.matmul peer rows of the gemm suite: runs bench/torch_matmul.py once for every gemm
// table that has an auto row and merges one "torch.matmul" row into each (torch_peer.hpp).
//
// The helper is $GPUOPT_BENCH_TORCH_HELPER, else torch_matmul.py next to the gpuopt-bench
// executable (the build copies it there); the Python is $GPUOPT_BENCH_PYTHON, else python3. With
// --torch a helper that cannot run torch gives each table an error row (as does a case torch
// could not time); by default it gives no rows and one line on stderr (and such a case is a
// skipped row); --no-torch runs nothing.
//
// The helper times torch.matmul interleaved with gpuopt's auto GEMM in its own process, through
// the gpuopt Python binding: the bench passes it the binding's directory ($GPUOPT_BENCH_BINDING,
// else the source tree's bindings/python this bench was built from, else the first
// bindings/python above the executable), the libgpuopt this process
// runs (its path from dladdr) and, when auto follows a tuning cache, that cache. Where the
// binding cannot be imported the helper times torch alone (torch_peer.hpp).
#pragma once
#include <vector>

#include "env.hpp"
#include "suite_gemm.hpp"

namespace bench {

// Progress steps of the peer run (0 or 1).
int torch_step_count(const Options& opt, const std::vector<GemmGroup>& groups);

// Runs the helper and inserts each table's row after the table's last row. tuning: the run's
// tuning cache (passed on when auto followed it: mode "used").
void run_torch_peer(BenchEnv& env, const std::vector<GemmGroup>& groups, const TuningInfo& tuning,
                    std::vector<Row>* rows);

}  // namespace bench
