// Derived columns (GB/s, share of roof, vendor ratio), the bars, and the exit code.
#include "results.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace bench {
namespace {

bool finite(double v) { return std::isfinite(v); }

const Row* find_row(const Results& r, const std::string& op, const std::string& dtype,
                    std::int64_t n, const std::string& memory, const std::string& data,
                    const std::string& variant) {
  for (const Row& row : r.rows) {
    if (row.op == op && row.dtype == dtype && row.n == n && row.memory == memory &&
        row.data == data && row.variant == variant) {
      return &row;
    }
  }
  return nullptr;
}

// A usable figure of a row: measured, no error, correct.
double good_gbs(const Row* row) {
  if (row == nullptr || !row->error.empty() || !row->correct) return kNaN;
  return row->gbs;
}

std::string size_name(std::int64_t n) {
  for (int k = 0; k < 63; ++k) {
    if ((std::int64_t{1} << k) == n) return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

}  // namespace

std::string tuned_summary(const TunedProblem& t) {
  char buf[240];
  std::snprintf(buf, sizeof buf, "fastest %s%s%s, %.4f ms (%d timed, %d refused)",
                t.variant.c_str(), t.config.empty() ? "" : ":", t.config.c_str(), t.ms, t.timed,
                t.refused);
  return buf;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), f, v);
  return buf;
}

void judge(Bar* b) {
  b->pass = finite(b->value) && (!finite(b->min) || b->value >= b->min) &&
            (!finite(b->max) || b->value <= b->max);
}

bool Options::wants_dtype(gpuopt_dtype_t t) const {
  return std::find(dtypes.begin(), dtypes.end(), t) != dtypes.end();
}

bool Options::wants_gemm_type(const std::string& t) const {
  return std::find(gemm_types.begin(), gemm_types.end(), t) != gemm_types.end();
}

bool Options::wants_variant(const std::string& name) const {
  if (variants.empty()) return true;
  return std::find(variants.begin(), variants.end(), name) != variants.end();
}

std::string Row::group_key() const {
  return op + "|" + dtype + "|" + shape + "|" + memory + "|" + data;
}

void finish_rows(Results& r) {
  const double roof = r.roofs.copy_gbs;
  std::map<std::string, const Row*> vendor_of;
  for (const Row& row : r.rows) {
    if (row.is_vendor && row.error.empty() && row.correct && finite(row.ms)) {
      const Row*& v = vendor_of[row.group_key()];
      if (!v || row.ms < v->ms) v = &row;
    }
  }
  for (Row& row : r.rows) {
    if (finite(row.ms) && row.ms > 0) {
      if (row.bytes > 0) row.gbs = row.bytes / (row.ms * 1e-3) / 1e9;
      if (row.flops > 0) row.tflops = row.flops / (row.ms * 1e-3) / 1e12;
    }
    if (row.roof_applies && finite(row.gbs) && finite(roof) && roof > 0) {
      row.share_of_roof = row.gbs / roof;
    }
    auto it = vendor_of.find(row.group_key());
    if (it != vendor_of.end()) {
      row.vendor = it->second->variant;
      row.vendor_ms = it->second->ms;
      if (finite(row.ms) && row.ms > 0) row.ratio_to_vendor = row.vendor_ms / row.ms;
    }
    if (row.op == "axpy_x1000" && row.variant == "graph") {
      const Row* stream = nullptr;
      for (const Row& o : r.rows) {
        if (o.op == row.op && o.variant == "stream") stream = &o;
      }
      if (stream && finite(stream->ms) && finite(row.ms) && row.ms > 0) {
        row.speedup = stream->ms / row.ms;
      }
    }
  }
}

void compute_bars(Results& r, const Options& opt) {
  r.bars.clear();
  const std::int64_t n =
      opt.sizes.empty() ? 0 : *std::max_element(opt.sizes.begin(), opt.sizes.end());
  const std::string sz = size_name(n);
  const bool f32 = opt.wants_dtype(GPUOPT_DTYPE_F32);

  // (1) vec4_gridstride against the copy roof.
  if (opt.wants_op("axpy") && f32 && opt.wants_variant("vec4_gridstride")) {
    Bar b;
    b.name = "axpy f32 n=" + sz + " vec4_gridstride GB/s / copy roof";
    b.value = good_gbs(find_row(r, "axpy", "f32", n, "device", "random", "vec4_gridstride")) /
              r.roofs.copy_gbs;
    b.target = ">= 0.90";
    b.min = 0.90;
    judge(&b);
    b.note = "copy roof " + fmt("%.0f", r.roofs.copy_gbs) + " GB/s";
    r.bars.push_back(b);
  }
  // (2) graph replay against one-by-one issue.
  if (opt.wants_op("axpy_x1000") && f32) {
    const Row* s = nullptr;
    const Row* g = nullptr;
    for (const Row& row : r.rows) {
      if (row.op != "axpy_x1000" || !row.error.empty() || !row.correct) continue;
      if (row.variant == "stream") s = &row;
      if (row.variant == "graph") g = &row;
    }
    Bar b;
    b.name = "1000 axpy n=4096: stream time / graph time";
    b.value = s && g ? s->ms / g->ms : kNaN;
    b.target = ">= 3.0";
    b.min = 3.0;
    judge(&b);
    if (s && g) {
      b.note = fmt("%.2f", s->ms * 1000.0 / s->calls) + " vs " +
               fmt("%.2f", g->ms * 1000.0 / g->calls) + " us per call";
    }
    r.bars.push_back(b);
  }
  // (3) compressible memory, through auto dispatch.
  if (opt.wants_op("axpy") && f32 && opt.wants_variant("auto")) {
    const Row* cp = find_row(r, "axpy", "f32", n, "compressible", "patterned", "auto");
    const Row* dp = find_row(r, "axpy", "f32", n, "device", "patterned", "auto");
    const Row* cr = find_row(r, "axpy", "f32", n, "compressible", "random", "auto");
    const Row* dr = find_row(r, "axpy", "f32", n, "device", "random", "auto");
    const int compressed = cp ? cp->compressed : -1;
    const std::string state = compressed == 1   ? "buffers compressed"
                              : compressed == 0 ? "driver gave UNCOMPRESSED buffers"
                                                : "compression unknown";
    Bar p;
    p.name = "axpy f32 n=" + sz + " auto, patterned data: compressible / device GB/s";
    p.value = good_gbs(cp) / good_gbs(dp);
    p.target = ">= 1.5";
    p.min = 1.5;
    judge(&p);
    p.note = state + (cp && !cp->ran_variant.empty() ? ", auto ran " + cp->ran_variant : "");
    r.bars.push_back(p);
    Bar q;
    q.name = "axpy f32 n=" + sz + " auto, random data: compressible / device GB/s";
    q.value = good_gbs(cr) / good_gbs(dr);
    q.target = "0.95 .. 1.05";
    q.min = 0.95;
    q.max = 1.05;
    judge(&q);
    q.note = state + (cr && !cr->ran_variant.empty() ? ", auto ran " + cr->ran_variant : "");
    r.bars.push_back(q);
    Bar c;
    c.name = "compressible buffers really compressed (gpuopt_buffer_is_compressed)";
    c.value = compressed < 0 ? kNaN : compressed;
    c.target = "== 1";
    c.min = 1.0;
    judge(&c);
    c.note = r.device.supports_compression ? "device reports generic compression support"
                                           : "device reports NO generic compression support";
    r.bars.push_back(c);
  }
}

int exit_code(const Results& r, const Options& opt) {
  bool failed = !r.roofs.copy_error.empty();
  for (const Row& row : r.rows) failed = failed || row.failed();
  if (failed) return 1;
  if (opt.require_bars) {
    for (const Bar& b : r.bars) {
      if (!b.pass) return 3;
    }
  }
  return 0;
}

}  // namespace bench
