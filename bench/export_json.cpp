#include "export_json.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "json.hpp"

namespace bench {
namespace {

void opt_str(JsonWriter& w, const char* key, const std::string& v) {
  w.key(key);
  if (v.empty()) {
    w.null();
  } else {
    w.str(v);
  }
}

void write_row(JsonWriter& w, const Row& r) {
  w.begin_object();
  w.key("op").str(r.op);
  w.key("dtype").str(r.dtype);
  w.key("shape").str(r.shape);
  w.key("variant").str(r.variant);
  w.key("ms").num(r.ms);
  opt_str(w, "vendor", r.vendor);
  w.key("vendor_ms").num(r.vendor_ms);
  w.key("ratio_to_vendor").num(r.ratio_to_vendor);
  if (std::isfinite(r.paired_ratio)) w.key("paired_ratio_to_vendor").num(r.paired_ratio);
  if (std::isfinite(r.paired_ratio_cublas))
    w.key("paired_ratio_to_cublas").num(r.paired_ratio_cublas);
  if (std::isfinite(r.paired_ratio_fastest)) {
    w.key("paired_fastest").str(r.paired_fastest);
    w.key("paired_ratio_to_fastest").num(r.paired_ratio_fastest);
  }
  if (!r.peer_method.empty()) {
    w.key("torch_method").str(r.peer_method);
    w.key("in_process_auto_ms").num(r.peer_auto_ms);
    opt_str(w, "in_process_auto_variant", r.peer_auto_variant);
    w.key("in_process_auto_rel_err").num(r.peer_auto_rel_err);
    opt_str(w, "in_process_auto_error", r.peer_auto_error);
  }
  w.key("tflops").num(r.tflops);
  w.key("gbs").num(r.gbs);
  w.key("share_of_roof").num(r.share_of_roof);
  w.key("correct").boolean(r.correct && r.error.empty() && !r.skipped);
  w.key("rel_err").num(r.rel_err);
  opt_str(w, "error", r.error);
  // Extra keys.
  w.key("n").integer(r.n);
  opt_str(w, "memory", r.memory);
  opt_str(w, "data", r.data);
  w.key("compressed");
  if (r.compressed < 0) {
    w.null();
  } else {
    w.boolean(r.compressed == 1);
  }
  opt_str(w, "ran_variant", r.ran_variant);
  w.key("is_vendor").boolean(r.is_vendor);
  w.key("is_peer").boolean(r.is_peer);
  w.key("skipped").boolean(r.skipped);
  opt_str(w, "mismatch", r.mismatch);
  w.key("bad_elements");
  if (r.bad_elements < 0) {
    w.null();
  } else {
    w.integer(r.bad_elements);
  }
  w.key("ms_min").num(r.ms_min);
  w.key("ms_max").num(r.ms_max);
  w.key("repeats").integer(r.repeats);
  w.key("calls_per_sample").integer(r.inner);
  w.key("calls").integer(r.calls);
  w.key("bytes").num(r.bytes);
  opt_str(w, "note", r.note);
  if (r.calls > 1) {
    w.key("us_per_call").num(r.ms * 1000.0 / r.calls);
    w.key("speedup_vs_stream").num(r.speedup);
  }
  if (r.op == "gemm") {
    w.key("m").integer(r.m);
    w.key("k").integer(r.k);
    w.key("batch").integer(r.batch);
    w.key("a_type").str(r.a_type);
    w.key("c_type").str(r.c_type);
    w.key("compute").str(r.compute);
    w.key("flops").num(r.flops);
  }
  w.end_object();
}

}  // namespace

std::string results_json(const Results& r, const Options& opt) {
  JsonWriter w;
  w.begin_object();
  const DeviceSummary& d = r.device;
  w.key("device").begin_object();
  w.key("index").integer(d.index);
  w.key("name").str(d.name);
  w.key("cc").str(d.cc);
  w.key("sm_count").integer(d.sm_count);
  w.key("memory").integer(static_cast<std::int64_t>(d.memory));
  w.key("l2").integer(static_cast<std::int64_t>(d.l2));
  w.key("theoretical_bandwidth_gbs").num(d.theoretical_bandwidth_gbs);
  w.key("driver_version").integer(d.driver_version);
  w.key("runtime_version").integer(d.runtime_version);
  w.key("supports_compression").boolean(d.supports_compression);
  w.end_object();
  w.key("gpuopt_version").str(r.gpuopt_version);
  w.key("git").str(r.git);
  w.key("timestamp").str(r.timestamp);
  w.key("command").str(opt.command_line);
  w.key("settings").begin_object();
  w.key("warmup").integer(opt.warmup);
  w.key("repeats").integer(opt.repeats);
  w.key("quick").boolean(opt.quick);
  w.end_object();
  w.key("tuning").begin_object();
  w.key("mode").str(r.tuning.mode.empty() ? "none" : r.tuning.mode);
  opt_str(w, "file", r.tuning.file);
  w.key("entries").integer(r.tuning.entries);
  w.key("errors").begin_array();
  for (const std::string& e : r.tuning.errors) w.str(e);
  w.end_array();
  w.key("tuned").begin_array();
  for (const TunedProblem& t : r.tuning.tuned) {
    w.begin_object();
    w.key("problem").str(t.problem);
    w.key("variant").str(t.variant);
    opt_str(w, "config", t.config);
    w.key("ms").num(t.ms);
    w.key("timed").integer(t.timed);
    w.key("refused").integer(t.refused);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  w.key("roofs").begin_object();
  w.key("copy_gbs").num(r.roofs.copy_gbs);
  w.key("copy_ms").num(r.roofs.copy_ms);
  w.key("copy_buffer_bytes").num(r.roofs.copy_bytes);
  opt_str(w, "copy_error", r.roofs.copy_error);
  w.end_object();
  w.key("results").begin_array();
  for (const Row& row : r.rows) write_row(w, row);
  w.end_array();
  w.key("bars").begin_array();
  for (const Bar& b : r.bars) {
    w.begin_object();
    w.key("name").str(b.name);
    w.key("value").num(b.value);
    w.key("target").str(b.target);
    w.key("min").num(b.min);
    w.key("max").num(b.max);
    w.key("pass").boolean(b.pass);
    opt_str(w, "note", b.note);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.text();
}

void write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot open " + tmp + ": " + std::strerror(errno));
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
  }
}

}  // namespace bench
