// CUDA-event timing: warm-up calls, then timed samples on one stream, median per call.
#pragma once
#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

namespace bench {

struct TimerConfig {
  int warmup = 3;              // untimed calls first (module load, handles, caches, clocks)
  int repeats = 20;            // timed samples; the result is their median
  double min_sample_ms = 0.5;  // auto mode: a sample times enough calls to last this long
  int inner = 0;               // calls per sample; 0 = choose from min_sample_ms (at most 4096)
  bool sync_each = false;      // true: the stream is drained before each sample's start event, so
                               // a sample is "issue and complete" from an idle stream (host loop
                               // included); false: samples run back to back, no gaps
};

struct Timing {
  double median_ms = 0.0;  // per call
  double min_ms = 0.0;     // per call, fastest sample
  double max_ms = 0.0;     // per call, slowest sample
  int repeats = 0;
  int inner = 0;                   // calls per sample
  std::vector<double> samples_ms;  // per call, in the order measured
};

// Times enqueue(i), which enqueues call number i (0, 1, 2, ... over warm-up and samples) on s and
// throws on failure. Every CUDA call is checked (BenchError); the stream is synchronized before
// returning.
Timing time_on_stream(cudaStream_t s, const std::function<void(long)>& enqueue,
                      const TimerConfig& cfg);

// Times n configurations of one operation in alternation, so that all see the same clocks and
// heat (over seconds a GPU's clocks drift by several percent, more than near-equal variants
// differ): `rounds` rounds; round r runs configurations r mod n, r + 1 mod n, ... (none always
// first), each as select(i) then time_on_stream(s, enqueue, cfg). Returns each configuration's
// per-round medians, [i][round]. select and enqueue throw on failure.
std::vector<std::vector<double>> time_interleaved(cudaStream_t s, int n, int rounds,
                                                  const std::function<void(int)>& select,
                                                  const std::function<void(long)>& enqueue,
                                                  const TimerConfig& cfg);

// Median of values (NaN when empty).
double median(std::vector<double> values);

}  // namespace bench
