// The gemm bars (issues 3 and 19), host logic only (no CUDA: unit-tested in
// tests/unit/bench_gemm_bars_test.cpp). Per table: the best own (non-vendor) variant against
// cublas and against the best vendor (the faster of cublas and cublaslt), and whether auto
// dispatch ran the fastest correct variant. Peer rows (torch.matmul) are neither: their bars are
// torch_peer.cpp's. A ratio is judged on the interleaved re-timing that the suite recorded in the
// rows (suite_gemm.cpp: the rows are timed seconds to minutes apart, and on an H100 near-equal
// variants' rows drift by up to 8 % with power and clocks), else on the rows.
#pragma once
#include <string>
#include <vector>

#include "results.hpp"

namespace bench {

constexpr const char* kGemmCublas = "cublas";  // the vendor row of "best own / cublas"

// The rows of one table that its bars compare. Usable rows only (correct, no error, finite ms),
// and never a peer row; nullptr where there is none.
struct GemmPicks {
  const Row* best_own = nullptr;  // the fastest own variant (neither vendor nor auto)
  const Row* cublas = nullptr;    // the cublas row
  const Row* vendor = nullptr;    // the fastest vendor row
  const Row* fastest = nullptr;   // the fastest row but auto's
  const Row* autorow = nullptr;   // the auto row (usable or not)
  const Row* ran = nullptr;       // the forced row of the variant auto ran, else the auto row
                                  // (only when the auto row is usable)
};

// A row the bars may use: correct, no error, finite ms, not skipped.
bool usable_gemm_row(const Row& r);

GemmPicks pick_gemm_rows(const std::vector<const Row*>& rows);

// What the bars of one table ask for.
struct GemmBarSpec {
  std::string label;      // "gemm f64 4096x4096x4096"
  double own_min = kNaN;  // floor of best own / cublas and best own / best vendor; NaN: the
                          // table has no own variant, so no such bars
  bool auto_bar = false;  // every variant and auto ran: the "auto ran the fastest" bar
  bool tuned = false;     // auto followed a tuning cache (its bar asks for 0.98, not 0.97)
};

// Appends the table's bars: "<label>: best own / cublas", "<label>: best own / best vendor"
// (when spec.own_min is set) and "<label>: auto ran the fastest" (when spec.auto_bar).
void append_gemm_bars(const GemmBarSpec& spec, const std::vector<const Row*>& rows,
                      std::vector<Bar>* bars);

}  // namespace bench
