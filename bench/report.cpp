#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace bench {
namespace {

std::string num(const char* f, double v) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof(buf), f, v);
  return buf;
}

std::string clip(const std::string& s, size_t width) {
  return s.size() <= width ? s : s.substr(0, width - 3) + "...";
}

std::string note_of(const Row& r) {
  std::string n;
  auto add = [&](const std::string& s) { n += (n.empty() ? "" : "; ") + s; };
  if (!r.ran_variant.empty() && (r.variant == "auto" || r.calls > 1)) add("ran " + r.ran_variant);
  if (r.memory == "compressible") add(r.compressed == 1 ? "compressed" : "NOT compressed");
  if (!r.mismatch.empty()) add(r.mismatch);
  if (!r.error.empty()) add(r.error);
  if (!r.note.empty()) add(r.note);
  return n;
}

const char* verdict(const Row& r) {
  if (r.skipped) return "skip";
  if (!r.error.empty()) return "ERROR";
  return r.correct ? "yes" : "NO";
}

// Bandwidth-bound rows show GB/s and the share of the copy roof; compute-bound rows (flops > 0,
// gemm) show TFLOP/s, and the vendor ratio is their main figure.
void print_ladder(std::FILE* out, const Results& res, const std::vector<const Row*>& rows) {
  const Row& f = *rows.front();
  const bool compute = f.flops > 0;
  std::string vendor = "-";
  for (const Row* r : rows) {
    if (!r->vendor.empty()) vendor = r->vendor + " " + num("%.4f", r->vendor_ms) + " ms";
  }
  if (compute) {
    std::fprintf(out, "\n%s %s %s  (%s in, %s out, compute %s; vendor %s)\n", f.op.c_str(),
                 f.dtype.c_str(), f.shape.c_str(), f.a_type.c_str(), f.c_type.c_str(),
                 f.compute.c_str(), vendor.c_str());
  } else {
    std::fprintf(out, "\n%s %s %s  memory=%s data=%s  (copy roof %s GB/s, vendor %s)\n",
                 f.op.c_str(), f.dtype.c_str(), f.shape.c_str(), f.memory.c_str(), f.data.c_str(),
                 num("%.0f", res.roofs.copy_gbs).c_str(), vendor.c_str());
  }
  int width = 18;
  for (const Row* r : rows) width = std::max(width, static_cast<int>(r->variant.size()));
  std::fprintf(out, "  %-*s %10s %9s %7s %9s %7s %9s  %s\n", width, "variant", "ms",
               compute ? "TFLOP/s" : "GB/s", "roof", "vs vendor", "correct", "rel_err", "note");
  for (const Row* r : rows) {
    std::fprintf(out, "  %-*s %10s %9s %7s %9s %7s %9s  %s\n", width, r->variant.c_str(),
                 num("%.4f", r->ms).c_str(),
                 compute ? num("%.1f", r->tflops).c_str() : num("%.0f", r->gbs).c_str(),
                 num("%.1f%%", 100.0 * r->share_of_roof).c_str(),
                 num("%.2fx", r->ratio_to_vendor).c_str(), verdict(*r),
                 num("%.1e", r->rel_err).c_str(), clip(note_of(*r), 110).c_str());
  }
}

void print_launch_rows(std::FILE* out, const std::vector<const Row*>& rows) {
  const Row& f = *rows.front();
  const char* how = f.op == "latency" ? "back to back from an idle stream, against the vendor"
                                      : "issued one by one vs one graph replay";
  std::fprintf(out, "\n%s %s %s: %d calls per sample, %s\n", f.op.c_str(), f.dtype.c_str(),
               f.shape.c_str(), f.calls, how);
  std::fprintf(out, "  %-18s %10s %12s %9s %7s %9s  %s\n", "variant", "ms", "us per call",
               "speedup", "correct", "rel_err", "note");
  for (const Row* r : rows) {
    std::fprintf(out, "  %-18s %10s %12s %9s %7s %9s  %s\n", r->variant.c_str(),
                 num("%.4f", r->ms).c_str(), num("%.3f", r->ms * 1000.0 / r->calls).c_str(),
                 num("%.2fx", r->speedup).c_str(), verdict(*r), num("%.1e", r->rel_err).c_str(),
                 clip(note_of(*r), 110).c_str());
  }
}

}  // namespace

void print_report(std::FILE* out, const Results& res) {
  const DeviceSummary& d = res.device;
  std::fprintf(out, "gpuopt-bench %s (git %s) on %s, cc %s, %d SMs, %.0f GB/s theoretical\n",
               res.gpuopt_version.c_str(), res.git.c_str(), d.name.c_str(), d.cc.c_str(),
               d.sm_count, d.theoretical_bandwidth_gbs);
  if (res.roofs.copy_error.empty()) {
    std::fprintf(out,
                 "copy roof: %.0f GB/s (device-to-device copy of 2 x %.2f GiB, read + write)\n",
                 res.roofs.copy_gbs, res.roofs.copy_bytes / (1u << 30));
  } else {
    std::fprintf(out, "copy roof: NOT MEASURED: %s\n", res.roofs.copy_error.c_str());
  }

  // Groups in order of first appearance.
  std::vector<std::string> keys;
  std::vector<std::vector<const Row*>> groups;
  for (const Row& r : res.rows) {
    size_t i = 0;
    while (i < keys.size() && keys[i] != r.group_key()) ++i;
    if (i == keys.size()) {
      keys.push_back(r.group_key());
      groups.emplace_back();
    }
    groups[i].push_back(&r);
  }
  for (const auto& g : groups) {
    if (g.front()->op == "axpy_x1000" || g.front()->op == "latency") {
      print_launch_rows(out, g);
    } else {
      print_ladder(out, res, g);
    }
  }

  if (!res.tuning.tuned.empty()) {
    std::fprintf(out, "\ntuned (gpuopt_tune, written to %s)\n", res.tuning.file.c_str());
    for (const TunedProblem& t : res.tuning.tuned)
      std::fprintf(out, "  %-48s %s\n", t.problem.c_str(), tuned_summary(t).c_str());
  }

  if (!res.bars.empty()) {
    std::fprintf(out, "\nbars\n  %-72s %8s %14s %5s  %s\n", "bar", "value", "target", "pass",
                 "note");
    for (const Bar& b : res.bars) {
      std::fprintf(out, "  %-72s %8s %14s %5s  %s\n", b.name.c_str(), num("%.3f", b.value).c_str(),
                   b.target.c_str(), b.pass ? "PASS" : "FAIL", b.note.c_str());
    }
  }
  std::fflush(out);
}

}  // namespace bench
