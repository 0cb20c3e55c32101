#include "timer.hpp"

#include <algorithm>
#include <limits>

#include "call_count.hpp"
#include "check.hpp"

namespace bench {
namespace {

// An owned cudaEvent_t (timing enabled), destroyed on every path.
class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreate(&e_)); }
  ~Event() {
    if (e_) cudaEventDestroy(e_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : e_(o.e_) { o.e_ = nullptr; }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

double elapsed_ms(const Event& a, const Event& b) {
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, a.get(), b.get()));
  return static_cast<double>(ms);
}

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  size_t m = values.size() / 2;
  return values.size() % 2 ? values[m] : 0.5 * (values[m - 1] + values[m]);
}

Timing time_on_stream(cudaStream_t s, const std::function<void(long)>& enqueue,
                      const TimerConfig& cfg) {
  const int repeats = std::max(1, cfg.repeats);
  long call = 0;
  for (int i = 0; i < cfg.warmup; ++i) enqueue(call++);
  CUDA_CHECK(cudaStreamSynchronize(s));

  int inner = cfg.inner;
  if (inner <= 0) {
    // One probe call from an idle stream: includes launch latency, so it errs on fewer calls.
    Event a, b;
    CUDA_CHECK(cudaEventRecord(a.get(), s));
    enqueue(call++);
    CUDA_CHECK(cudaEventRecord(b.get(), s));
    CUDA_CHECK(cudaEventSynchronize(b.get()));
    inner = calls_lasting(cfg.min_sample_ms, elapsed_ms(a, b), 4096);
  }

  Timing out;
  out.repeats = repeats;
  out.inner = inner;
  std::vector<Event> start(repeats), stop(repeats);
  for (int r = 0; r < repeats; ++r) {
    if (cfg.sync_each) CUDA_CHECK(cudaStreamSynchronize(s));
    // Back to back, a sample's start is the previous sample's stop point in the stream.
    CUDA_CHECK(cudaEventRecord(start[r].get(), s));
    for (int j = 0; j < inner; ++j) enqueue(call++);
    CUDA_CHECK(cudaEventRecord(stop[r].get(), s));
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaGetLastError());

  for (int r = 0; r < repeats; ++r) out.samples_ms.push_back(elapsed_ms(start[r], stop[r]) / inner);
  out.median_ms = median(out.samples_ms);
  out.min_ms = *std::min_element(out.samples_ms.begin(), out.samples_ms.end());
  out.max_ms = *std::max_element(out.samples_ms.begin(), out.samples_ms.end());
  return out;
}

std::vector<std::vector<double>> time_interleaved(cudaStream_t s, int n, int rounds,
                                                  const std::function<void(int)>& select,
                                                  const std::function<void(long)>& enqueue,
                                                  const TimerConfig& cfg) {
  std::vector<std::vector<double>> ms(static_cast<std::size_t>(std::max(n, 0)));
  for (int round = 0; round < rounds; ++round) {
    for (int j = 0; j < n; ++j) {
      const int i = (round + j) % n;
      select(i);
      ms[static_cast<std::size_t>(i)].push_back(time_on_stream(s, enqueue, cfg).median_ms);
    }
  }
  return ms;
}

}  // namespace bench
