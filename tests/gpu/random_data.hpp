// Random test data: a fresh seed each run (std::random_device), reproducible by setting
// GPUOPT_TEST_SEED; the fixture prints the seed when a test fails.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

namespace gput {

class Rng {
 public:
  Rng() : Rng(fresh_seed()) {}
  explicit Rng(std::uint64_t seed) : seed_(seed), gen_(seed) {}

  std::uint64_t seed() const { return seed_; }

  // Uniform in [lo, hi).
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(gen_);
  }

  // Uniform integer in [lo, hi].
  std::int64_t integer(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(gen_);
  }

  // A nonzero alpha of either sign, magnitude in [0.5, 2).
  double alpha() { return (integer(0, 1) ? 1.0 : -1.0) * uniform(0.5, 2.0); }

  // A dyadic alpha (exact in f32 and f64): +-0.25, +-0.5, +-0.75 or +-1.25.
  double dyadic_alpha() {
    static const double kValues[] = {0.25, 0.5, 0.75, 1.25};
    return (integer(0, 1) ? 1.0 : -1.0) * kValues[integer(0, 3)];
  }

  // The seed of a new generator for another thread, derived from this one.
  std::uint64_t split() { return std::uniform_int_distribution<std::uint64_t>()(gen_); }

  // The seed for this run: GPUOPT_TEST_SEED when set, else from std::random_device.
  static std::uint64_t fresh_seed() {
    if (const char* s = std::getenv("GPUOPT_TEST_SEED")) return std::strtoull(s, nullptr, 0);
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }

  std::string describe() const { return "GPUOPT_TEST_SEED=" + std::to_string(seed_); }

 private:
  std::uint64_t seed_;
  std::mt19937_64 gen_;
};

}  // namespace gput
