// The torch.matmul peer rows of the gemm suite: what the bench asks bench/torch_matmul.py for,
// how it reads the answer, the rows it makes of it and the bars "torch.matmul ms / auto ms".
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
};

// What the helper printed: error set (and no cases) when torch could not run at all.
struct TorchReport {
  std::string error;
  std::string torch, cuda, device;  // versions and device name torch reports
  std::vector<TorchCase> cases;
};

// "f64:4096:4096:4096:1:f64:f64:f64": name:m:n:k:batch:a_type:c_type:compute of a gemm row.
std::string torch_case_id(const Row& gemm_row);

// Reads the helper's stdout. Never throws: unreadable output becomes report.error.
TorchReport parse_torch_report(const std::string& json);

// The torch.matmul row of a gemm group: base (the group's gemm_row_base) with the case's times,
// or its error. The row is a peer (is_peer): neither own nor vendor. Its correctness is not
// checked by the bench (torch's result is not compared), so `correct` means "timed".
Row torch_row(const Row& base, const TorchReport& report);

// Per gemm group with a timed torch.matmul row and a correct auto row: "gemm <dtype> <shape>:
// torch.matmul ms / auto ms" >= 1.0 (auto at least as fast as the peer).
void compute_torch_bars(Results& r);

}  // namespace bench
