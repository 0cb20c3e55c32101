// FuzzInput: turns libFuzzer's bytes into the arguments of gpuopt calls. Sizes are drawn mostly
// from edge values (0, 1, odd, powers of two and their neighbours, the int64 limits) so that
// validation is passed often enough to reach the checks behind it; the rest are raw bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

namespace fuzz {

class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) : p_(data), end_(data + size) {}

  bool empty() const { return p_ >= end_; }

  std::uint8_t byte() { return p_ < end_ ? *p_++ : 0; }

  template <class T>
  T raw() {
    T v{};
    unsigned char buf[sizeof(T)] = {};
    for (auto& b : buf) b = byte();
    std::memcpy(&v, buf, sizeof v);
    return v;
  }

  bool flip() { return byte() & 1; }

  // One of n choices (0 <= result < n).
  unsigned pick(unsigned n) { return n ? byte() % n : 0; }

  // A size, an extent or a stride: mostly an edge value, sometimes raw.
  std::int64_t i64() {
    static const std::int64_t kEdges[] = {
        0,
        1,
        2,
        3,
        4,
        7,
        8,
        15,
        16,
        17,
        31,
        32,
        33,
        63,
        64,
        65,
        100,
        127,
        128,
        255,
        256,
        257,
        1000,
        1023,
        1024,
        4096,
        65535,
        65536,
        1 << 20,
        (1 << 20) + 3,
        -1,
        -2,
        std::numeric_limits<std::int32_t>::max(),
        std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1,
        std::numeric_limits<std::int64_t>::max(),
        std::numeric_limits<std::int64_t>::max() / 2 + 1,
        std::numeric_limits<std::int64_t>::min()};
    const unsigned n = sizeof kEdges / sizeof kEdges[0];
    const unsigned k = byte();
    if (k < 3 * n) return kEdges[k % n];
    return raw<std::int64_t>();
  }

  std::size_t size() { return static_cast<std::size_t>(i64()); }

  int small_int() {  // an enum value or a count: valid ones and just-invalid ones, sometimes raw
    const unsigned k = byte();
    if (k < 240) return static_cast<int>(k % 20) - 2;
    return raw<int>();
  }

  double real() {
    static const double kValues[] = {0.0, 1.0, -1.0, 0.5, 2.0, 1e300, -0.0};
    const unsigned k = byte();
    if (k < 7 * 30) return kValues[k % 7];
    return raw<double>();  // NaN and infinities included
  }

 private:
  const std::uint8_t* p_;
  const std::uint8_t* end_;
};

}  // namespace fuzz
