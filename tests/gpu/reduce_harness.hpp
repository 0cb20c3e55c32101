// One gpuopt_reduce problem on the device, checked against a CPU reference.
//
// The input lives in a host image of its exact bits (i32, i64, u32, f32, f64, bf16, f16) and is
// uploaded once; elements that belong to no segment (the gaps between rows) hold poison (NaN or
// an extreme integer), so a kernel that reads outside its segment is caught by the result check.
// The output array has one extra element past the results, poisoned like the results before the
// call: every result must be written and the extra one left alone.
// References: integers exact (i64 sums modulo 2^64); MIN/MAX/ARGMIN/ARGMAX exact (NaN first);
// floating sums in long double, accepted within (chain + 64) * eps(accumulator) * sum |x| plus the
// output rounding, chain = ceil(len / 256), a bound on the longest sequential chain of additions
// any variant (or CUB) makes over a segment of len elements; own f32 sums add 16 * 2^-24 * sum |x|
// for warp_shuffle_vec's f32 partial sums (at most 10 elements each, widened to f64).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_check.hpp"
#include "gpu_handles.hpp"
#include "gpuopt.h"

namespace gput {

// ---- element types on the host ---------------------------------------------------------------

inline std::size_t in_size(gpuopt_dtype_t t) {
  switch (t) {
    case GPUOPT_DTYPE_I64:
    case GPUOPT_DTYPE_F64:
    case GPUOPT_DTYPE_U64:
      return 8;
    case GPUOPT_DTYPE_BF16:
    case GPUOPT_DTYPE_F16:
      return 2;
    default:
      return 4;
  }
}
inline bool is_float_type(gpuopt_dtype_t t) {
  return t == GPUOPT_DTYPE_F32 || t == GPUOPT_DTYPE_F64 || t == GPUOPT_DTYPE_BF16 ||
         t == GPUOPT_DTYPE_F16;
}
inline bool is_arg(gpuopt_reduce_op_t op) {
  return op == GPUOPT_REDUCE_ARGMIN || op == GPUOPT_REDUCE_ARGMAX;
}
inline std::size_t out_size(gpuopt_reduce_op_t op, gpuopt_dtype_t t) {
  if (is_arg(op)) return 8;
  if (op == GPUOPT_REDUCE_SUM && (t == GPUOPT_DTYPE_I32 || t == GPUOPT_DTYPE_U32)) return 8;
  return in_size(t) == 2 ? 4 : in_size(t);
}
inline const char* op_str(gpuopt_reduce_op_t op) {
  static const char* const kNames[] = {"sum", "min", "max", "argmin", "argmax"};
  const int i = static_cast<int>(op);
  return i >= 0 && i < 5 ? kNames[i] : "?";
}

inline float bits_to_f32(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline std::uint32_t f32_to_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
// bfloat16 <-> float (round to nearest even; NaN stays NaN).
inline std::uint16_t f32_to_bf16(float f) {
  std::uint32_t b = f32_to_bits(f);
  if (std::isnan(f)) return static_cast<std::uint16_t>((b >> 16) | 0x40);
  b += 0x7fff + ((b >> 16) & 1);
  return static_cast<std::uint16_t>(b >> 16);
}
inline float bf16_to_f32(std::uint16_t h) {
  return bits_to_f32(static_cast<std::uint32_t>(h) << 16);
}
// binary16 <-> float (round to nearest even, subnormals included).
inline std::uint16_t f32_to_f16(float f) {
  const std::uint32_t b = f32_to_bits(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((b >> 16) & 0x8000);
  if (std::isnan(f)) return static_cast<std::uint16_t>(sign | 0x7e00);
  const float a = std::fabs(f);
  if (a >= 65520.0f) return static_cast<std::uint16_t>(sign | 0x7c00);
  if (a < 6.103515625e-05f) {  // subnormal: multiples of 2^-24
    const float q = std::nearbyint(a * 16777216.0f);
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(q));
  }
  int e = 0;
  const float m = std::frexp(a, &e);            // a = m * 2^e, m in [0.5, 1)
  float q = std::nearbyint(std::ldexp(m, 11));  // 11 significant bits
  if (q >= 2048.0f) {
    q /= 2;
    ++e;
  }
  const std::uint32_t exp = static_cast<std::uint32_t>(e - 1 + 15);
  return static_cast<std::uint16_t>(sign | (exp << 10) | (static_cast<std::uint32_t>(q) - 1024));
}
inline float f16_to_f32(std::uint16_t h) {
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  const int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0) return sign * std::ldexp(static_cast<float>(man), -24);
  if (exp == 31) {
    return man ? std::numeric_limits<float>::quiet_NaN()
               : sign * std::numeric_limits<float>::infinity();
  }
  return sign * std::ldexp(static_cast<float>(man + 1024), exp - 25);
}

// A cheap generator for large inputs (std distributions are too slow for 2^26 elements).
struct SplitMix {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * (2.0 / 9007199254740992.0) - 1.0; }
};

// An array of one element type as bytes, with typed access.
class HostArray {
 public:
  HostArray(gpuopt_dtype_t t, std::size_t n) : t_(t), es_(in_size(t)), bytes_(n * es_) {}
  gpuopt_dtype_t type() const { return t_; }
  std::size_t size() const { return bytes_.size() / es_; }
  std::size_t elem() const { return es_; }
  const unsigned char* data() const { return bytes_.data(); }

  // Element i as a long double (exact for every type).
  long double value(std::size_t i) const {
    const unsigned char* p = &bytes_[i * es_];
    switch (t_) {
      case GPUOPT_DTYPE_I32:
        return load<std::int32_t>(p);
      case GPUOPT_DTYPE_I64:
        return static_cast<long double>(load<std::int64_t>(p));
      case GPUOPT_DTYPE_U32:
        return load<std::uint32_t>(p);
      case GPUOPT_DTYPE_F32:
        return load<float>(p);
      case GPUOPT_DTYPE_F64:
        return load<double>(p);
      case GPUOPT_DTYPE_BF16:
        return bf16_to_f32(load<std::uint16_t>(p));
      case GPUOPT_DTYPE_F16:
        return f16_to_f32(load<std::uint16_t>(p));
      default:
        return 0;
    }
  }
  // Raw 64-bit integer of an integer element (sign-extended for signed types).
  std::uint64_t int_bits(std::size_t i) const {
    const unsigned char* p = &bytes_[i * es_];
    switch (t_) {
      case GPUOPT_DTYPE_I32:
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(load<std::int32_t>(p)));
      case GPUOPT_DTYPE_I64:
        return static_cast<std::uint64_t>(load<std::int64_t>(p));
      default:
        return load<std::uint32_t>(p);
    }
  }
  bool is_nan(std::size_t i) const { return is_float_type(t_) && std::isnan(value(i)); }

  // Sets element i to v rounded to the type (integers: v must fit).
  void set(std::size_t i, long double v) {
    unsigned char* p = &bytes_[i * es_];
    switch (t_) {
      case GPUOPT_DTYPE_I32:
        store(p, static_cast<std::int32_t>(v));
        break;
      case GPUOPT_DTYPE_I64:
        store(p, static_cast<std::int64_t>(v));
        break;
      case GPUOPT_DTYPE_U32:
        store(p, static_cast<std::uint32_t>(v));
        break;
      case GPUOPT_DTYPE_F32:
        store(p, static_cast<float>(v));
        break;
      case GPUOPT_DTYPE_F64:
        store(p, static_cast<double>(v));
        break;
      case GPUOPT_DTYPE_BF16:
        store(p, f32_to_bf16(static_cast<float>(v)));
        break;
      case GPUOPT_DTYPE_F16:
        store(p, f32_to_f16(static_cast<float>(v)));
        break;
      default:
        break;
    }
  }
  void set_int_bits(std::size_t i, std::uint64_t b) { std::memcpy(&bytes_[i * es_], &b, es_); }
  void set_nan(std::size_t i) { set(i, std::numeric_limits<long double>::quiet_NaN()); }

  // A random element: integers over their whole range, floats uniform in [-1, 1) (rounded).
  void randomize(std::size_t i, SplitMix& g) {
    if (is_float_type(t_)) {
      set(i, g.uniform());
    } else {
      set_int_bits(i, g.next());  // little-endian: the low bytes
    }
  }
  // Poison for elements outside every segment: NaN, or the value that most disturbs a result.
  void poison(std::size_t i, gpuopt_reduce_op_t op) {
    if (is_float_type(t_)) {
      set_nan(i);
    } else if (op == GPUOPT_REDUCE_MAX || op == GPUOPT_REDUCE_ARGMAX) {
      set_int_bits(i, t_ == GPUOPT_DTYPE_I32
                          ? 0x7fffffffull
                          : (t_ == GPUOPT_DTYPE_I64 ? 0x7fffffffffffffffull : 0xffffffffull));
    } else if (op == GPUOPT_REDUCE_MIN || op == GPUOPT_REDUCE_ARGMIN) {
      set_int_bits(i, t_ == GPUOPT_DTYPE_I64
                          ? 0x8000000000000000ull
                          : (t_ == GPUOPT_DTYPE_I32 ? 0xffffffff80000000ull : 0));
    } else {
      set_int_bits(i, 0x5a5a5a5a5a5a5a5aull);
    }
  }

 private:
  template <class X>
  static X load(const unsigned char* p) {
    X x;
    std::memcpy(&x, p, sizeof x);
    return x;
  }
  template <class X>
  static void store(unsigned char* p, X x) {
    std::memcpy(p, &x, sizeof x);
  }
  gpuopt_dtype_t t_;
  std::size_t es_;
  std::vector<unsigned char> bytes_;
};

// ---- the problem ------------------------------------------------------------------------------

enum class Layout { whole, rows, offsets };

struct ReduceSpec {
  gpuopt_reduce_op_t op = GPUOPT_REDUCE_SUM;
  gpuopt_dtype_t type = GPUOPT_DTYPE_F32;
  Layout layout = Layout::whole;
  std::int64_t n = 0;                 // whole/rows: elements per segment; offsets: total
  std::int64_t segments = 1;          // rows/offsets
  std::int64_t stride = 0;            // rows
  std::vector<std::int64_t> offsets;  // offsets layout: segments + 1 entries
  std::int64_t misalign = 0;          // elements by which `in` is shifted from a 256-byte boundary
};

inline std::string describe(const ReduceSpec& s) {
  std::ostringstream os;
  os << op_str(s.op) << " " << gpuopt_dtype_name(s.type) << " ";
  if (s.layout == Layout::whole) os << "n=" << s.n;
  if (s.layout == Layout::rows) os << s.segments << " rows x " << s.n << " stride " << s.stride;
  if (s.layout == Layout::offsets) os << s.segments << " offset segments over n=" << s.n;
  if (s.misalign) os << " misaligned by " << s.misalign;
  return os.str();
}

class ReduceCase {
 public:
  // Builds the host input (random, fresh from seed) and uploads input, offsets and poisoned out.
  ReduceCase(const ReduceSpec& spec, std::uint64_t seed) : s_(spec), in_(spec.type, extent(spec)) {
    SplitMix g{seed};
    std::vector<char> used(in_.size(), 0);
    for (std::int64_t seg = 0; seg < results(); ++seg) {
      const auto [b, e] = bounds(seg);
      for (std::int64_t i = b; i < e; ++i) used[static_cast<std::size_t>(i)] = 1;
    }
    for (std::size_t i = 0; i < in_.size(); ++i) {
      if (used[i]) {
        in_.randomize(i, g);
      } else {
        in_.poison(i, s_.op);
      }
    }
  }

  HostArray& host() { return in_; }
  const ReduceSpec& spec() const { return s_; }

  std::int64_t results() const { return s_.layout == Layout::whole ? 1 : s_.segments; }

  // [begin, end) of segment seg in the input.
  std::pair<std::int64_t, std::int64_t> bounds(std::int64_t seg) const {
    if (s_.layout == Layout::whole) return {0, s_.n};
    if (s_.layout == Layout::rows) return {seg * s_.stride, seg * s_.stride + s_.n};
    return {s_.offsets[static_cast<std::size_t>(seg)],
            s_.offsets[static_cast<std::size_t>(seg) + 1]};
  }

  // Uploads input and offsets and poisons the output (call after editing host()).
  void upload() {
    const std::size_t es = in_.elem();
    in_dev_.reset(new DeviceArray<unsigned char>(in_.size() * es + 256 + s_.misalign * es));
    ASSERT_TRUE(in_dev_->ok());
    if (in_.size()) {
      ASSERT_CUDA_OK(cudaMemcpy(in_dev_->data() + s_.misalign * es, in_.data(), in_.size() * es,
                                cudaMemcpyHostToDevice));
    }
    if (s_.layout == Layout::offsets) {
      off_dev_.reset(new DeviceArray<std::int64_t>(s_.offsets.size()));
      off_dev_->upload(s_.offsets);
    }
    const std::size_t os = out_size(s_.op, s_.type);
    out_dev_.reset(new DeviceArray<unsigned char>((results() + 1) * os));
    ASSERT_TRUE(out_dev_->ok());
    ASSERT_CUDA_OK(cudaMemset(out_dev_->data(), 0xA5, (results() + 1) * os));
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
  }

  // Poisons the results again (before running another variant on the same input).
  void reset_out() {
    const std::size_t os = out_size(s_.op, s_.type);
    ASSERT_CUDA_OK(cudaMemset(out_dev_->data(), 0xA5, (results() + 1) * os));
    ASSERT_CUDA_OK(cudaDeviceSynchronize());
  }

  // Host input changed after the references were computed (call upload() too).
  void invalidate_reference() { refs_.clear(); }

  const void* in_ptr() const {
    return in_dev_ ? in_dev_->data() + s_.misalign * in_.elem() : nullptr;
  }
  void* out_ptr() const { return out_dev_ ? out_dev_->data() : nullptr; }

  gpuopt_reduce_desc_t desc() const {
    gpuopt_reduce_desc_t d{};
    d.struct_size = sizeof d;
    d.op = s_.op;
    d.in_type = s_.type;
    d.n = s_.n;
    d.num_segments = s_.layout == Layout::whole ? 1 : s_.segments;
    d.segment_stride = s_.stride;
    d.offsets = off_dev_ ? reinterpret_cast<const int64_t*>(off_dev_->data()) : nullptr;
    d.mode = GPUOPT_REDUCE_DETERMINISTIC;
    return d;
  }

  gpuopt_status_t run(gpuopt_context_t ctx, gpuopt_stream_t stream) const {
    const gpuopt_reduce_desc_t d = desc();
    return gpuopt_reduce(ctx, stream, &d, in_ptr(), out_ptr());
  }

  // The raw output bytes (results + 1 elements); the caller synchronized the stream.
  std::vector<unsigned char> download() const {
    const std::size_t bytes = (results() + 1) * out_size(s_.op, s_.type);
    std::vector<unsigned char> got(bytes);
    EXPECT_CUDA_OK(cudaMemcpy(got.data(), out_dev_->data(), bytes, cudaMemcpyDeviceToHost));
    return got;
  }

  // Checks every result against the reference and the extra element untouched. cub_f32: the
  // variant accumulates f32 sums in f32 (CUB), which widens the bound.
  ::testing::AssertionResult check(bool cub_f32 = false) const {
    return compare(download(), cub_f32);
  }

  ::testing::AssertionResult compare(const std::vector<unsigned char>& got, bool cub_f32) const {
    const std::size_t os = out_size(s_.op, s_.type);
    std::ostringstream msg;
    std::int64_t bad = 0;
    for (std::int64_t seg = 0; seg < results(); ++seg) {
      std::string why;
      if (!check_one(seg, &got[static_cast<std::size_t>(seg) * os], cub_f32, &why) && bad++ < 5) {
        msg << "\n  result " << seg << ": " << why;
      }
    }
    const unsigned char* extra = &got[static_cast<std::size_t>(results()) * os];
    bool extra_ok = true;
    for (std::size_t i = 0; i < os; ++i) extra_ok = extra_ok && extra[i] == 0xA5;
    if (bad == 0 && extra_ok) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << describe(s_) << ": " << bad << " wrong results"
           << (extra_ok ? "" : "; the element past the results was overwritten") << msg.str();
  }

 private:
  static std::size_t extent(const ReduceSpec& s) {
    if (s.layout == Layout::rows)
      return s.segments > 0 ? static_cast<std::size_t>((s.segments - 1) * s.stride + s.n) : 0;
    return static_cast<std::size_t>(s.n);
  }

  template <class X>
  static X read(const unsigned char* p) {
    X x;
    std::memcpy(&x, p, sizeof x);
    return x;
  }

  // The reference of one segment, computed once per input.
  struct Ref {
    std::int64_t index = -1;  // ARGMIN/ARGMAX
    std::uint64_t bits = 0;   // integer results (two's complement)
    long double value = 0;    // floating results; for SUM the exact sum
    long double abs_sum = 0;  // SUM: sum |x|
    bool nan = false;         // the floating result must be NaN
  };

  Ref reference(std::int64_t b, std::int64_t e) const {
    Ref r;
    const gpuopt_dtype_t t = s_.type;
    if (is_arg(s_.op)) {
      r.index = ref_arg(b, e);
      return r;
    }
    if (!is_float_type(t)) {
      if (s_.op == GPUOPT_REDUCE_SUM) {
        for (std::int64_t i = b; i < e; ++i) r.bits += in_.int_bits(static_cast<std::size_t>(i));
      } else {
        r.bits = ref_minmax_int(b, e);
      }
      return r;
    }
    bool pos_inf = false, neg_inf = false;
    for (std::int64_t i = b; i < e; ++i) {
      const long double x = in_.value(static_cast<std::size_t>(i));
      if (std::isnan(x)) r.nan = true;
      if (std::isinf(x)) (x > 0 ? pos_inf : neg_inf) = true;
      if (s_.op == GPUOPT_REDUCE_SUM && !std::isnan(x)) {
        r.value += x;
        r.abs_sum += std::fabs(x);
      }
    }
    if (s_.op == GPUOPT_REDUCE_SUM) {
      if (pos_inf && neg_inf) r.nan = true;
    } else {
      r.value = ref_minmax_float(b, e);
    }
    return r;
  }

  void ensure_refs() const {
    if (!refs_.empty()) return;
    refs_.reserve(static_cast<std::size_t>(results()));
    for (std::int64_t seg = 0; seg < results(); ++seg) {
      const auto [b, e] = bounds(seg);
      refs_.push_back(reference(b, e));
    }
  }

  bool check_one(std::int64_t seg, const unsigned char* out, bool cub_f32, std::string* why) const {
    ensure_refs();
    const Ref& r = refs_[static_cast<std::size_t>(seg)];
    const auto [b, e] = bounds(seg);
    std::ostringstream os;
    const gpuopt_dtype_t t = s_.type;
    if (is_arg(s_.op)) {
      const std::int64_t got = read<std::int64_t>(out);
      if (got == r.index) return true;
      os << "index " << got << ", expected " << r.index;
      *why = os.str();
      return false;
    }
    if (!is_float_type(t)) {
      std::uint64_t got = 0;
      if (s_.op == GPUOPT_REDUCE_SUM || t == GPUOPT_DTYPE_I64) {
        got = read<std::uint64_t>(out);  // i64 / u64 results
      } else if (t == GPUOPT_DTYPE_I32) {
        got = static_cast<std::uint64_t>(static_cast<std::int64_t>(read<std::int32_t>(out)));
      } else {
        got = read<std::uint32_t>(out);
      }
      if (got == r.bits) return true;
      os << "got " << static_cast<std::int64_t>(got) << ", expected "
         << static_cast<std::int64_t>(r.bits);
      *why = os.str();
      return false;
    }
    // Floating results: f64 for f64 inputs, else f32.
    const bool f64_out = t == GPUOPT_DTYPE_F64;
    const long double got = f64_out ? read<double>(out) : read<float>(out);
    if (r.nan) {
      if (std::isnan(got)) return true;
      os << "got " << static_cast<double>(got) << ", expected NaN";
      *why = os.str();
      return false;
    }
    if (s_.op != GPUOPT_REDUCE_SUM || std::isinf(r.value)) {
      if (got == r.value && std::signbit(got) == std::signbit(r.value)) return true;
      os << "got " << static_cast<double>(got) << ", expected " << static_cast<double>(r.value);
      *why = os.str();
      return false;
    }
    const long double eps_acc =
        (t == GPUOPT_DTYPE_F64 || (t == GPUOPT_DTYPE_F32 && !cub_f32)) ? 0x1p-52L : 0x1p-23L;
    const long double eps_out = f64_out ? 0x1p-53L : 0x1p-24L;
    const long double chain = static_cast<long double>((e - b + 255) / 256 + 64);
    const long double partials = (t == GPUOPT_DTYPE_F32 && !cub_f32) ? 16 * 0x1p-24L : 0.0L;
    const long double tol =
        (chain * eps_acc + partials) * r.abs_sum + eps_out * std::fabs(r.value) + 1e-300L;
    if (std::isfinite(got) && std::fabs(got - r.value) <= tol) return true;
    os << "got " << static_cast<double>(got) << ", expected " << static_cast<double>(r.value)
       << " within " << static_cast<double>(tol);
    *why = os.str();
    return false;
  }

  std::int64_t ref_arg(std::int64_t b, std::int64_t e) const {
    if (b >= e) return -1;
    const bool max = s_.op == GPUOPT_REDUCE_ARGMAX;
    std::int64_t best = -1;
    long double bv = 0;
    for (std::int64_t i = b; i < e; ++i) {
      const std::size_t k = static_cast<std::size_t>(i);
      if (in_.is_nan(k)) return i - b;
      long double x;
      if (!is_float_type(s_.type)) {
        // exact compare through signed / unsigned 64-bit
        x = s_.type == GPUOPT_DTYPE_U32
                ? static_cast<long double>(in_.int_bits(k))
                : static_cast<long double>(static_cast<std::int64_t>(in_.int_bits(k)));
      } else {
        x = in_.value(k);
      }
      if (best < 0 || (max ? x > bv : x < bv)) {
        best = i;
        bv = x;
      }
    }
    return best - b;
  }

  std::uint64_t ref_minmax_int(std::int64_t b, std::int64_t e) const {
    const bool max = s_.op == GPUOPT_REDUCE_MAX;
    const gpuopt_dtype_t t = s_.type;
    if (t == GPUOPT_DTYPE_U32) {
      std::uint64_t r = max ? 0 : 0xffffffffull;
      for (std::int64_t i = b; i < e; ++i) {
        const std::uint64_t x = in_.int_bits(static_cast<std::size_t>(i));
        r = max ? (x > r ? x : r) : (x < r ? x : r);
      }
      return r;
    }
    std::int64_t r =
        t == GPUOPT_DTYPE_I32 ? (max ? INT32_MIN : INT32_MAX) : (max ? INT64_MIN : INT64_MAX);
    for (std::int64_t i = b; i < e; ++i) {
      const auto x = static_cast<std::int64_t>(in_.int_bits(static_cast<std::size_t>(i)));
      r = max ? (x > r ? x : r) : (x < r ? x : r);
    }
    return static_cast<std::uint64_t>(r);
  }

  // MIN/MAX of the widened values (-0 below +0); +-inf for empty segments.
  long double ref_minmax_float(std::int64_t b, std::int64_t e) const {
    const bool max = s_.op == GPUOPT_REDUCE_MAX;
    long double r = max ? -std::numeric_limits<long double>::infinity()
                        : std::numeric_limits<long double>::infinity();
    for (std::int64_t i = b; i < e; ++i) {
      const long double x = in_.value(static_cast<std::size_t>(i));
      if (x == r) {
        if (max ? !std::signbit(x) : std::signbit(x)) r = x;
      } else if (max ? x > r : x < r) {
        r = x;
      }
    }
    return r;
  }

  ReduceSpec s_;
  HostArray in_;
  std::unique_ptr<DeviceArray<unsigned char>> in_dev_;
  std::unique_ptr<DeviceArray<std::int64_t>> off_dev_;
  std::unique_ptr<DeviceArray<unsigned char>> out_dev_;
  mutable std::vector<Ref> refs_;
};

}  // namespace gput
