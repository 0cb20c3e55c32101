// Launch overhead: the same 1000 small axpy calls, issued from the host one by one versus
// replayed from one captured graph. Inputs are exact multiples of 1/256 and alpha = 0.5, so the
// result after 1000 updates is exact in f32 and checked element by element.
#include "suite_graph.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>

#include "check.hpp"
#include "data.hpp"
#include "suite_axpy.hpp"
#include "verify.hpp"

namespace bench {
namespace {

constexpr double kAlpha = 0.5;

// An owned executable graph.
class Graph {
 public:
  Graph() = default;
  ~Graph() {
    if (g_) {
      gpuopt_status_t s = gpuopt_graph_destroy(g_);
      if (s != GPUOPT_SUCCESS) {
        std::fprintf(stderr, "[bench] warning: gpuopt_graph_destroy failed: %s\n",
                     gpuopt_describe(s).c_str());
      }
    }
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  gpuopt_graph_t* out() { return &g_; }
  gpuopt_graph_t get() const { return g_; }

 private:
  gpuopt_graph_t g_ = nullptr;
};

struct Setup {
  BenchEnv& env;
  const DeviceBuffer& x;
  const DeviceBuffer& y;
};

void issue_calls(const Setup& s) {
  for (int i = 0; i < kGraphCalls; ++i) {
    GPUOPT_CHECK(gpuopt_axpy(s.env.ctx, s.env.stream, GPUOPT_DTYPE_F32, kGraphN, kAlpha,
                             s.x.device_ptr(), 1, s.y.device_ptr(), 1));
  }
}

// Fresh exact inputs, run(), then the full comparison with y0 + 1000 * 0.5 * x.
void check(const Setup& s, const std::function<void()>& run, Row* r) {
  const std::uint64_t seed = s.env.next_seed();
  fill_device(s.x.device_ptr(), GPUOPT_DTYPE_F32, kGraphN, DataKind::kExact, seed, kStreamX, 0,
              s.env.cu);
  fill_device(s.y.device_ptr(), GPUOPT_DTYPE_F32, kGraphN, DataKind::kExact, seed, kStreamY, 0,
              s.env.cu);
  run();
  const void* out = s.env.copy_back(s.y, 0, kGraphN * sizeof(float));
  AxpyCheck c;
  c.dtype = GPUOPT_DTYPE_F32;
  c.n = kGraphN;
  c.alpha = kAlpha;
  c.calls = kGraphCalls;
  c.kind = DataKind::kExact;
  c.seed = seed;
  VerifyResult vr = verify_axpy(c, out);
  r->rel_err = vr.rel_err;
  r->bad_elements = vr.bad;
  r->correct = vr.correct;
  if (vr.bad > 0) {
    char buf[256];
    std::snprintf(buf, sizeof(buf),
                  "%lld of %lld elements wrong, first at %lld: got %.9g, want %.9g",
                  static_cast<long long>(vr.bad), static_cast<long long>(kGraphN),
                  static_cast<long long>(vr.first_bad), vr.first_got, vr.first_want);
    r->mismatch = buf;
  }
  const char* ran = nullptr;
  GPUOPT_CHECK(gpuopt_last_variant(s.env.ctx, GPUOPT_OP_AXPY, &ran));
  r->ran_variant = ran ? ran : "";
}

TimerConfig batch_timer(const BenchEnv& env) {
  TimerConfig t = env.timer;
  t.inner = 1;         // one sample = one batch of 1000 calls, or one replay
  t.sync_each = true;  // from an idle stream: issue and completion, host loop included
  t.warmup = std::max(t.warmup, 2);
  return t;
}

void fill_timing(const Timing& t, Row* r) {
  r->ms = t.median_ms;
  r->ms_min = t.min_ms;
  r->ms_max = t.max_ms;
  r->repeats = t.repeats;
  r->inner = t.inner;
}

void measure_stream(const Setup& s, Row* r) {
  check(
      s, [&] { issue_calls(s); }, r);
  fill_timing(time_on_stream(
                  s.env.cu, [&](long) { issue_calls(s); }, batch_timer(s.env)),
              r);
}

void measure_graph(const Setup& s, Row* r) {
  Graph graph;
  // Capture. If a call fails inside, still end the capture so the stream is usable again.
  GPUOPT_CHECK(gpuopt_graph_begin(s.env.ctx, s.env.stream));
  std::string capture_error;
  try {
    issue_calls(s);
  } catch (const BenchError& e) {
    capture_error = e.what();
  }
  gpuopt_status_t end = gpuopt_graph_end(s.env.stream, graph.out());
  if (!capture_error.empty())
    throw BenchError(GPUOPT_ERROR_INTERNAL, "during capture: " + capture_error);
  GPUOPT_CHECK(end);
  if (graph.get() == nullptr) throw BenchError(GPUOPT_ERROR_INTERNAL, "gpuopt_graph_end gave NULL");

  check(
      s, [&] { GPUOPT_CHECK(gpuopt_graph_launch(graph.get(), s.env.stream)); }, r);
  fill_timing(
      time_on_stream(
          s.env.cu, [&](long) { GPUOPT_CHECK(gpuopt_graph_launch(graph.get(), s.env.stream)); },
          batch_timer(s.env)),
      r);
}

}  // namespace

int graph_row_count(const Options& opt) {
  return opt.wants_op("axpy_x1000") && opt.wants_dtype(GPUOPT_DTYPE_F32) ? 2 : 0;
}

std::string graph_variant(const Options& opt) {
  if (opt.variants.size() == 1 && opt.variants[0] != "auto") return opt.variants[0];
  return "";
}

void run_graph_suite(BenchEnv& env, std::vector<Row>* rows) {
  if (graph_row_count(env.opt) == 0) return;
  const std::string forced = graph_variant(env.opt);
  std::unique_ptr<DeviceBuffer> x, y;
  std::string setup_error;
  if (!env.broken()) {
    try {
      x = std::make_unique<DeviceBuffer>(env.ctx, kGraphN * sizeof(float), GPUOPT_MEMORY_DEVICE);
      y = std::make_unique<DeviceBuffer>(env.ctx, kGraphN * sizeof(float), GPUOPT_MEMORY_DEVICE);
      GPUOPT_CHECK(gpuopt_context_set_variant(env.ctx, GPUOPT_OP_AXPY,
                                              forced.empty() ? nullptr : forced.c_str()));
    } catch (const BenchError& e) {
      setup_error = e.what();
      env.note_error();
    }
  }
  for (const char* mode : {"stream", "graph"}) {
    const std::string m = mode;
    env.progress.start("axpy_x1000 f32 n=4096 " + m + (forced.empty() ? "" : " (" + forced + ")"));
    Row r;
    r.op = "axpy_x1000";
    r.dtype = "f32";
    r.shape = "n=" + std::to_string(kGraphN);
    r.n = kGraphN;
    r.variant = m;
    r.memory = "device";
    r.data = data_kind_name(DataKind::kExact);
    r.compressed = 0;
    r.calls = kGraphCalls;
    r.bytes = 3.0 * kGraphN * sizeof(float) * kGraphCalls;
    r.roof_applies = false;  // launch-bound: the data lives in L2
    if (env.broken()) {
      r.error = "not run: the device is in a sticky error state (" + env.broken_reason() + ")";
    } else if (!setup_error.empty()) {
      r.error = "setup failed: " + setup_error;
    } else {
      try {
        Setup s{env, *x, *y};
        if (m == "stream") {
          measure_stream(s, &r);
        } else {
          measure_graph(s, &r);
        }
      } catch (const BenchError& e) {
        r.error = e.what();
        r.correct = false;
        env.note_error();
      }
    }
    env.progress.finish(progress_summary(r));
    rows->push_back(r);
  }
  env.restore_auto(GPUOPT_OP_AXPY);
}

}  // namespace bench
