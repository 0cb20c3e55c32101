#include "torch_peer.hpp"

#include <cmath>
#include <exception>

#include "json_read.hpp"

namespace bench {
namespace {

const TorchCase* find_case(const TorchReport& report, const std::string& id) {
  for (const TorchCase& c : report.cases) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

bool timed(const Row& r) { return r.error.empty() && r.correct && std::isfinite(r.ms); }

}  // namespace

std::string torch_case_id(const Row& g) {
  return g.dtype + ":" + std::to_string(g.m) + ":" + std::to_string(g.n) + ":" +
         std::to_string(g.k) + ":" + std::to_string(g.batch < 1 ? 1 : g.batch) + ":" + g.a_type +
         ":" + g.c_type + ":" + g.compute;
}

TorchReport parse_torch_report(const std::string& json) {
  TorchReport out;
  try {
    const JsonValue doc = parse_json(json);
    if (doc.kind != JsonValue::Kind::object) {
      out.error = "the torch helper printed no JSON object";
      return out;
    }
    out.error = doc.string_or("error", "");
    if (!out.error.empty()) return out;
    out.torch = doc.string_or("torch", "?");
    out.cuda = doc.string_or("cuda", "?");
    out.device = doc.string_or("device", "?");
    out.gpuopt = doc.string_or("gpuopt", "");
    out.gpuopt_library = doc.string_or("gpuopt_library", "");
    out.gpuopt_error = doc.string_or("gpuopt_error", "");
    const JsonValue* cases = doc.get("cases");
    if (!cases || cases->kind != JsonValue::Kind::array) {
      out.error = "the torch helper's JSON has no \"cases\" array";
      return out;
    }
    for (const JsonValue& c : cases->items) {
      TorchCase t;
      t.id = c.string_or("case", "");
      t.error = c.string_or("error", "");
      t.ms = c.number_or("ms", kNaN);
      t.ms_min = c.number_or("ms_min", kNaN);
      t.ms_max = c.number_or("ms_max", kNaN);
      t.repeats = static_cast<int>(c.number_or("repeats", 0));
      t.inner = static_cast<int>(c.number_or("inner", 0));
      t.note = c.string_or("note", "");
      t.method = c.string_or("method", "standalone");
      t.gpuopt_ms = c.number_or("gpuopt_ms", kNaN);
      t.gpuopt_ms_min = c.number_or("gpuopt_ms_min", kNaN);
      t.gpuopt_ms_max = c.number_or("gpuopt_ms_max", kNaN);
      t.gpuopt_rel_err = c.number_or("gpuopt_rel_err", kNaN);
      t.gpuopt_variant = c.string_or("gpuopt_variant", "");
      t.gpuopt_error = c.string_or("gpuopt_error", "");
      const JsonValue* wrong = c.get("gpuopt_wrong");
      t.gpuopt_wrong = wrong && wrong->kind == JsonValue::Kind::boolean && wrong->boolean;
      if (t.error.empty() && !(std::isfinite(t.ms) && t.ms > 0))
        t.error = "the torch helper reported no time";
      if (t.error.empty() && t.method == "interleaved" &&
          !(std::isfinite(t.gpuopt_ms) && t.gpuopt_ms > 0))
        t.error = "the torch helper reported an interleaved case without gpuopt's time";
      if (t.error.empty() && t.method != "interleaved" && t.method != "standalone")
        t.error = "the torch helper reported an unknown method \"" + t.method + "\"";
      out.cases.push_back(t);
    }
  } catch (const std::exception& e) {
    out.error = std::string("unreadable torch helper output: ") + e.what();
  }
  return out;
}

Row torch_row(const Row& base, const TorchReport& report) {
  Row r = base;
  r.variant = kTorchVariant;
  r.is_vendor = false;
  r.is_peer = true;
  if (!report.error.empty()) {
    r.error = "torch.matmul: " + report.error;
    return r;
  }
  const TorchCase* c = find_case(report, torch_case_id(base));
  if (!c) {
    r.error = "torch.matmul: the helper did not report case " + torch_case_id(base);
    return r;
  }
  if (!c->error.empty()) {
    r.error = "torch.matmul: " + c->error;
    return r;
  }
  r.ms = c->ms;
  r.ms_min = c->ms_min;
  r.ms_max = c->ms_max;
  r.repeats = c->repeats;
  r.inner = c->inner;
  r.correct = true;  // timed; the result is torch's own (not compared)
  r.peer_method = c->method;
  r.peer_auto_variant = c->gpuopt_variant;
  r.peer_auto_rel_err = c->gpuopt_rel_err;
  r.peer_auto_wrong = c->gpuopt_wrong;
  std::string how;
  if (c->method == "interleaved") {
    r.peer_auto_ms = c->gpuopt_ms;
    how = "timed interleaved with gpuopt auto (" + c->gpuopt_variant + ", " +
          fmt("%.4f", c->gpuopt_ms) + " ms, " + fmt("%.4f", c->gpuopt_ms_min) + "-" +
          fmt("%.4f", c->gpuopt_ms_max) + ", max rel diff " + fmt("%.2g", c->gpuopt_rel_err) +
          ") in the helper's process, gpuopt " + report.gpuopt +
          (report.gpuopt_library.empty() ? "" : " (" + report.gpuopt_library + ")");
  } else {
    r.peer_auto_error = !c->gpuopt_error.empty()       ? c->gpuopt_error
                        : !report.gpuopt_error.empty() ? report.gpuopt_error
                                                       : "the helper did not time gpuopt";
    how = "timed alone (" + r.peer_auto_error + ")";
  }
  r.note = "torch " + report.torch + " (CUDA " + report.cuda + "), not checked by the bench; " +
           how + (c->note.empty() ? "" : "; " + c->note);
  return r;
}

void compute_torch_bars(Results& r) {
  for (const Row& peer : r.rows) {
    if (!peer.is_peer || peer.op != "gemm" || peer.variant != kTorchVariant) continue;
    const Row* autorow = nullptr;
    for (const Row& row : r.rows) {
      if (row.variant == "auto" && row.group_key() == peer.group_key()) autorow = &row;
    }
    if (!autorow) continue;
    Bar b;
    b.name = "gemm " + peer.dtype + " " + peer.shape + ": torch.matmul ms / auto ms";
    b.min = 1.0;
    b.target = ">= 1.00";
    const bool paired = peer.peer_method == "interleaved" && std::isfinite(peer.peer_auto_ms) &&
                        peer.peer_auto_ms > 0;
    const std::string rows_note = timed(*autorow) ? "auto row (" + autorow->ran_variant + ") " +
                                                        fmt("%.4f", autorow->ms) + " ms"
                                                  : "the auto row failed";
    if (!timed(peer)) {
      b.note = "torch.matmul not timed: " + peer.error;
    } else if (peer.peer_auto_wrong) {
      b.note = "the helper's in-process gpuopt auto was wrong: " + peer.peer_auto_error;
    } else if (paired) {
      b.value = peer.ms / peer.peer_auto_ms;
      b.note = "interleaved in one process: torch.matmul " + fmt("%.4f", peer.ms) +
               " ms, gpuopt auto (" + peer.peer_auto_variant + ") " +
               fmt("%.4f", peer.peer_auto_ms) + " ms; " + rows_note +
               (timed(*autorow) ? " (torch / it " + fmt("%.3f", peer.ms / autorow->ms) + ")" : "");
      if (timed(*autorow) && peer.peer_auto_variant != autorow->ran_variant)
        b.note += "; the in-process auto ran " + peer.peer_auto_variant + ", the auto row " +
                  autorow->ran_variant;
    } else if (timed(*autorow)) {
      b.value = peer.ms / autorow->ms;
      b.note = "separate processes: torch.matmul " + fmt("%.4f", peer.ms) + " ms, auto (" +
               autorow->ran_variant + ") " + fmt("%.4f", autorow->ms) + " ms" +
               (peer.peer_auto_error.empty() ? "" : " (" + peer.peer_auto_error + ")");
    } else {
      b.note = rows_note;
    }
    judge(&b);
    r.bars.push_back(b);
  }
}

}  // namespace bench
