// The torch.matmul peer rows of the gemm suite: what the bench asks bench/torch_matmul.py for,
// how it reads the answer, the rows it makes of it and the bars "torch.matmul ms / auto ms".
// The helper times torch.matmul in alternation with gpuopt's auto GEMM (through the gpuopt Python
// binding, same tensors, same stream) in its one process, and the bar is that pair's ratio: two
// processes' timings of the same cuBLAS call drift 5-8 % apart on an H100. Where the binding
// could not run there, torch was timed alone and the bar divides by the bench's auto row.
// Host logic only (no CUDA): the runner is suite_torch.cpp.
#pragma once
#include <string>
#include <vector>

#include "results.hpp"

namespace bench {

constexpr const char* kTorchVariant = "torch.matmul";

// One case the helper timed (ms NaN and error set when it could not).
struct TorchCase {
  std::string id;  // the case string sent (torch_case_id)
  double ms = kNaN, ms_min = kNaN, ms_max = kNaN;
  int repeats = 0, inner = 0;
  std::string note, error;
  // "interleaved": timed in alternation with gpuopt's auto GEMM in the helper's process (gpuopt_*
  // set); "standalone": torch alone (gpuopt_error says why, if the helper said).
  std::string method;
  double gpuopt_ms = kNaN, gpuopt_ms_min = kNaN, gpuopt_ms_max = kNaN, gpuopt_rel_err = kNaN;
  std::string gpuopt_variant, gpuopt_error;
  bool gpuopt_wrong = false;  // gpuopt's result differed from torch's (not timed)
};

// What the helper printed: error set (and no cases) when torch could not run at all.
struct TorchReport {
  std::string error;
  std::string torch, cuda, device;     // versions and device name torch reports
  std::string gpuopt, gpuopt_library;  // the binding's library version and path, when it ran
  std::string gpuopt_error;            // why no case could run gpuopt in the helper ("" if none)
  std::vector<TorchCase> cases;
};

// "f64:4096:4096:4096:1:f64:f64:f64": name:m:n:k:batch:a_type:c_type:compute of a gemm row.
std::string torch_case_id(const Row& gemm_row);

// Reads the helper's stdout. Never throws: unreadable output becomes report.error.
TorchReport parse_torch_report(const std::string& json);

// The torch.matmul row of a gemm group: base (the group's gemm_row_base) with the case's times,
// or its error, and the in-process auto pair (peer_method, peer_auto_*). The row is a peer
// (is_peer): neither own nor vendor. Torch's result is not checked by the bench (the helper
// compares gpuopt's with it), so `correct` means "timed".
Row torch_row(const Row& base, const TorchReport& report);

// Per gemm group with a torch.matmul row and an auto row: "gemm <dtype> <shape>: torch.matmul ms
// / auto ms" >= 1.0 (auto at least as fast as the peer): torch ms / the in-process auto ms when
// the helper timed the pair interleaved, else torch ms / the auto row's ms (the note says which).
// A wrong in-process gpuopt result fails the bar.
void compute_torch_bars(Results& r);

}  // namespace bench
