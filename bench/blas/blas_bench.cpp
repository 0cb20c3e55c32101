// gpuopt-blas-bench: dgemm_ on host arrays through whichever BLAS the process has, and the bars of
// the drop-in BLAS (docs/blas.md). Two commands; scripts/blas-bench.sh runs them in one go.
//
//   gpuopt-blas-bench measure --impl NAME [--lib PATH] --sizes 256,1024,... [--reps R]
//                             [--warmup 0|1]
//       Loads PATH (RTLD_GLOBAL) when given, takes dgemm_ from the process (an LD_PRELOAD'ed
//       library wins: NVBLAS, libgpuopt_blas.so), times C = A B + 0.5 C for each n (one warm-up
//       call unless --warmup 0, then the best of R runs: at least 20 for n <= 1024, one for
//       n >= 8192), checks 256 sampled entries of C against direct sums, and prints
//       one line per size: "RESULT impl=NAME n=N seconds=S ok=1".
//   gpuopt-blas-bench bars FILE... [--json OUT]
//       Reads the RESULT lines (impl names cpu, nvblas, gpuopt, gpuopt-ooc, gpuopt-1gpu,
//       gpuopt-2gpu; gpuopt-1gpu-wN / gpuopt-2gpu-wN: the n = 32768 rows with GPUOPT_BLAS_STREAMS=N
//       pipeline workers per GPU), prints the table, the workers comparison (not a bar: the bars
//       use the default setting) and the bars, writes them as JSON ("results", "bars" with
//       name/value/target/min/max/pass/note, as gpuopt-bench writes its bars).
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Dgemm = void (*)(const char*, const char*, const int*, const int*, const int*, const double*,
                       const double*, const int*, const double*, const int*, const double*, double*,
                       const int*, size_t, size_t);

double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double a_at(size_t i) { return std::sin(0.37 * static_cast<double>(i % 100003)) + 0.01; }
double b_at(size_t i) { return std::cos(0.11 * static_cast<double>(i % 99991)); }

// Fills big arrays with all cores (first touch), as a real program's data would be.
void parallel_fill(std::vector<double>& v, double (*f)(size_t)) {
  unsigned nt = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> t;
  size_t per = (v.size() + nt - 1) / nt;
  for (unsigned i = 0; i < nt; ++i)
    t.emplace_back([&, i] {
      size_t lo = i * per, hi = std::min(v.size(), lo + per);
      for (size_t j = lo; j < hi; ++j) v[j] = f ? f(j) : 1.0;
    });
  for (auto& th : t) th.join();
}

int measure(int argc, char** argv) {
  std::string impl = "unknown", lib;
  std::vector<long> sizes;
  int reps = 3;
  bool warmup = true;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--impl") {
      impl = next();
    } else if (a == "--lib") {
      lib = next();
    } else if (a == "--warmup") {
      warmup = atoi(next().c_str()) != 0;
    } else if (a == "--reps") {
      reps = std::max(1, atoi(next().c_str()));
    } else if (a == "--sizes") {
      std::stringstream ss(next());
      std::string tok;
      while (std::getline(ss, tok, ',')) sizes.push_back(atol(tok.c_str()));
    }
  }
  if (!lib.empty() && !dlopen(lib.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
    fprintf(stderr, "gpuopt-blas-bench: %s\n", dlerror());
    return 2;
  }
  auto dgemm = reinterpret_cast<Dgemm>(dlsym(RTLD_DEFAULT, "dgemm_"));
  if (!dgemm) {
    fprintf(stderr, "gpuopt-blas-bench: no dgemm_ in this process (give --lib)\n");
    return 2;
  }
  for (long nl : sizes) {
    const int n = static_cast<int>(nl);
    const size_t nn = static_cast<size_t>(n) * static_cast<size_t>(n);
    std::vector<double> A(nn), B(nn), C(nn);
    parallel_fill(A, a_at);
    parallel_fill(B, b_at);
    parallel_fill(C, nullptr);
    const double one = 1, half = 0.5;
    double best = 1e30;
    // Small sizes are noisy: more runs; the largest cost seconds a call: one.
    const int runs = nl <= 1024 ? std::max(reps, 20) : nl >= 8192 ? 1 : reps;
    for (int r = warmup ? 0 : 1; r <= runs; ++r) {  // r = 0: warm-up
      double t0 = now();
      dgemm("N", "N", &n, &n, &n, &one, A.data(), &n, B.data(), &n, &half, C.data(), &n, 1, 1);
      double dt = now() - t0;
      if (r > 0) best = std::min(best, dt);
    }
    // C was updated `calls` times: C = sum_r 0.5^r (A B) + 0.5^calls (it started at 1).
    const int calls = runs + (warmup ? 1 : 0);
    double scale = 0, p = 1;
    for (int r = 0; r < calls; ++r, p *= 0.5) scale += p;
    bool ok = true;
    for (int s = 0; s < 256 && ok; ++s) {
      size_t i = (static_cast<size_t>(s) * 7919u) % static_cast<size_t>(n);
      size_t j = (static_cast<size_t>(s) * 104729u) % static_cast<size_t>(n);
      long double sum = 0;
      for (size_t l = 0; l < static_cast<size_t>(n); ++l)
        sum += static_cast<long double>(A[i + l * n]) * B[l + j * n];
      double want = scale * static_cast<double>(sum) + p;
      ok = std::fabs(C[i + j * n] - want) <= 1e-11 * (std::fabs(want) + n);
    }
    printf("RESULT impl=%s n=%d seconds=%.6f ok=%d\n", impl.c_str(), n, best, ok ? 1 : 0);
    fflush(stdout);
  }
  return 0;
}

struct Bar {
  std::string name, target, note;
  double value, min;
  bool have;
};

// The RESULT seconds of @p impl at size @p n; -1 when not measured.
double seconds_of(const std::map<std::string, std::map<long, double>>& secs,
                  const std::string& impl, long n) {
  auto it = secs.find(impl);
  if (it == secs.end()) return -1.0;
  auto jt = it->second.find(n);
  return jt == it->second.end() ? -1.0 : jt->second;
}

// n = 32768 on one GPU and on two per number of pipeline workers per GPU (GPUOPT_BLAS_STREAMS:
// "default" = gpuopt-1gpu / gpuopt-2gpu, N = gpuopt-1gpu-wN / gpuopt-2gpu-wN): which setting is
// fastest on one GPU, on two, and the 2-GPU speedup against the default one-GPU time (the bar's
// denominator) and against one GPU with the same setting.
void workers_table(const std::map<std::string, std::map<long, double>>& secs) {
  const long n = 32768;
  auto get = [&](const std::string& impl) { return seconds_of(secs, impl, n); };
  std::vector<std::string> settings;
  for (int w = 1; w <= 9; ++w)
    if (get("gpuopt-1gpu-w" + std::to_string(w)) > 0 ||
        get("gpuopt-2gpu-w" + std::to_string(w)) > 0)
      settings.push_back(std::to_string(w));
  if (settings.empty()) return;
  settings.insert(settings.begin(), "default");
  const double base = get("gpuopt-1gpu");
  printf("\nworkers per GPU (GPUOPT_BLAS_STREAMS), dgemm host n=%ld:\n", n);
  printf("  %-8s %10s %10s %16s %16s\n", "workers", "1 GPU s", "2 GPUs s", "2 GPUs / 1 dflt",
         "2 GPUs / 1 same");
  for (const std::string& w : settings) {
    const std::string tail = w == "default" ? "" : "-w" + w;
    const double one = get("gpuopt-1gpu" + tail), two = get("gpuopt-2gpu" + tail);
    auto cell = [](double v) { return v > 0 ? std::to_string(v).substr(0, 6) : std::string("-"); };
    printf("  %-8s %10s %10s %16s %16s\n", w.c_str(), cell(one).c_str(), cell(two).c_str(),
           cell(two > 0 && base > 0 ? base / two : -1).c_str(),
           cell(two > 0 && one > 0 ? one / two : -1).c_str());
  }
}

int bars(int argc, char** argv) {
  std::map<std::string, std::map<long, double>> secs;
  std::string json;
  bool all_ok = true;
  for (int i = 0; i < argc; ++i) {
    if (!strcmp(argv[i], "--json") && i + 1 < argc) {
      json = argv[++i];
      continue;
    }
    std::ifstream f(argv[i]);
    std::string line;
    while (std::getline(f, line)) {
      char impl[64];
      long n;
      double s;
      int ok;
      if (sscanf(line.c_str(), "RESULT impl=%63s n=%ld seconds=%lf ok=%d", impl, &n, &s, &ok) ==
          4) {
        // The best of repeated measurements of one impl and size (the script alternates the
        // processes of the small sizes, whose timings move between processes).
        auto [it, fresh] = secs[impl].emplace(n, s);
        if (!fresh) it->second = std::min(it->second, s);
        if (!ok) {
          all_ok = false;
          printf("WRONG RESULT: %s\n", line.c_str());
        }
      }
    }
  }
  auto get = [&](const char* impl, long n) { return seconds_of(secs, impl, n); };
  auto tflops = [](long n, double s) { return 2.0 * n * n * static_cast<double>(n) / s * 1e-12; };
  printf("%-16s %8s %12s %10s\n", "impl", "n", "seconds", "TFLOP/s");
  for (auto& [impl, m] : secs)
    for (auto& [n, s] : m) printf("%-16s %8ld %12.4f %10.3f\n", impl.c_str(), n, s, tflops(n, s));
  workers_table(secs);
  std::vector<Bar> out;
  auto ratio_bar = [&](const std::string& name, double num, double den, double min,
                       const std::string& note) {
    Bar b{name, ">= " + std::to_string(min).substr(0, 4), note, 0, min, num > 0 && den > 0};
    if (b.have) b.value = num / den;
    out.push_back(b);
  };
  char note[256];
  for (long n : {8192L, 16384L}) {
    double nv = get("nvblas", n), go = get("gpuopt", n);
    snprintf(note, sizeof note, "nvblas %.3f s, gpuopt %.3f s (%.1f TFLOP/s)", nv, go,
             go > 0 ? tflops(n, go) : 0);
    ratio_bar("blas dgemm host n=" + std::to_string(n) + ": nvblas s / gpuopt s", nv, go,
              n == 8192 ? 2.0 : 1.5, note);
  }
  {
    double c = get("cpu", 256), g = get("gpuopt", 256);
    snprintf(note, sizeof note, "cpu %.1f us, gpuopt %.1f us", c * 1e6, g * 1e6);
    ratio_bar("blas dgemm host n=256: cpu s / gpuopt s", c, g, 0.95, note);
  }
  {
    // Out of core: the one size the gpuopt-ooc run measured, against the largest in-core size.
    double ooc_rate = -1, in_rate = -1;
    long ooc_n = 0, in_n = 0;
    if (secs.count("gpuopt-ooc"))
      for (auto& [n, s] : secs["gpuopt-ooc"]) {
        ooc_rate = tflops(n, s);
        ooc_n = n;
      }
    if (secs.count("gpuopt"))
      for (auto& [n, s] : secs["gpuopt"]) {
        in_rate = tflops(n, s);
        in_n = n;
      }
    snprintf(note, sizeof note, "n=%ld: %.2f TFLOP/s; in-core n=%ld: %.2f TFLOP/s", ooc_n, ooc_rate,
             in_n, in_rate);
    ratio_bar("blas dgemm host out-of-core: TFLOP/s / in-core TFLOP/s", ooc_rate, in_rate, 0.7,
              note);
  }
  {
    double one = get("gpuopt-1gpu", 32768), two = get("gpuopt-2gpu", 32768);
    snprintf(note, sizeof note, "1 GPU %.3f s (%.1f TFLOP/s), 2 GPUs %.3f s (%.1f TFLOP/s)", one,
             one > 0 ? tflops(32768, one) : 0, two, two > 0 ? tflops(32768, two) : 0);
    ratio_bar("blas dgemm host n=32768, 2 GPUs: TFLOP/s / one GPU", one, two, 1.8, note);
  }
  bool pass_all = all_ok;
  printf("\nbars:\n");
  for (const Bar& b : out) {
    bool pass = b.have && b.value >= b.min;
    if (b.have) pass_all = pass_all && pass;
    if (b.have)
      printf("  %-60s %8.3f %s %s  (%s)\n", b.name.c_str(), b.value, b.target.c_str(),
             pass ? "PASS" : "MISS", b.note.c_str());
    else
      printf("  %-60s not measured in this run\n", b.name.c_str());
  }
  if (!json.empty()) {
    FILE* f = fopen(json.c_str(), "w");
    if (!f) return 2;
    fprintf(f, "{\n  \"results\": [\n");
    bool first = true;
    for (auto& [impl, m] : secs)
      for (auto& [n, s] : m) {
        fprintf(f, "%s    {\"impl\": \"%s\", \"n\": %ld, \"seconds\": %.6f, \"tflops\": %.4f}",
                first ? "" : ",\n", impl.c_str(), n, s, tflops(n, s));
        first = false;
      }
    fprintf(f, "\n  ],\n  \"bars\": [\n");
    first = true;
    for (const Bar& b : out) {
      if (!b.have) continue;
      fprintf(f,
              "%s    {\"name\": \"%s\", \"value\": %.6f, \"target\": \"%s\", \"min\": %.2f, "
              "\"max\": null, \"pass\": %s, \"note\": \"%s\"}",
              first ? "" : ",\n", b.name.c_str(), b.value, b.target.c_str(), b.min,
              b.value >= b.min ? "true" : "false", b.note.c_str());
      first = false;
    }
    fprintf(f, "\n  ]\n}\n");
    fclose(f);
  }
  return all_ok ? (pass_all ? 0 : 3) : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && !strcmp(argv[1], "measure")) return measure(argc - 2, argv + 2);
  if (argc >= 2 && !strcmp(argv[1], "bars")) return bars(argc - 2, argv + 2);
  fprintf(stderr,
          "usage: gpuopt-blas-bench measure --impl NAME [--lib PATH] --sizes N,... [--reps R] "
          "[--warmup 0|1]\n"
          "       gpuopt-blas-bench bars FILE... [--json OUT]\n");
  return 2;
}
