// The multi-GPU tests' world: one process driving every GPU it is given (a context, a stream and
// a communicator rank per device, from gpuopt_comm_create_local), per-rank threads with a
// watchdog that aborts the communicators instead of hanging the test, and exact small-integer
// data in every collective dtype.
#pragma once
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "gpuopt.h"

namespace multi {

inline std::string message() {
  size_t len = 0;
  gpuopt_last_error_message(nullptr, 0, &len);
  std::string s(len + 1, '\0');
  gpuopt_last_error_message(&s[0], s.size(), nullptr);
  s.resize(len);
  return s;
}

#define MG_OK(call)                                                                   \
  do {                                                                                \
    gpuopt_status_t mg_st_ = (call);                                                  \
    ASSERT_EQ(mg_st_, GPUOPT_SUCCESS)                                                 \
        << #call << ": " << gpuopt_status_name(mg_st_) << ": " << ::multi::message(); \
  } while (0)

// NVLink multicast stays off on the shared GPU machines (docs/multi-gpu.md): before NCCL starts.
inline void keep_multicast_off() { setenv("NCCL_NVLS_ENABLE", "0", 1); }

// Why the multi-GPU tests cannot run here ("" when they can): fewer than 2 devices or no NCCL.
inline std::string why_not(int need = 2) {
  keep_multicast_off();
  int n = 0;
  if (gpuopt_device_count(&n) != GPUOPT_SUCCESS || n < need)
    return "needs " + std::to_string(need) + " CUDA devices, this machine has " + std::to_string(n);
  int v = 0;
  if (gpuopt_comm_nccl_version(&v) != GPUOPT_SUCCESS) return "NCCL is not available: " + message();
  return "";
}

struct Rank {
  gpuopt_context_t ctx = nullptr;
  gpuopt_stream_t stream = nullptr;
  gpuopt_comm_t comm = nullptr;
};

class World {
 public:
  // Contexts and streams on devices 0 .. n-1 and one communicator over them.
  void create(int n) {
    ranks.resize(static_cast<size_t>(n));
    std::vector<gpuopt_context_t> ctxs;
    for (int i = 0; i < n; ++i) {
      MG_OK(gpuopt_context_create(i, &ranks[i].ctx));
      MG_OK(gpuopt_stream_create(ranks[i].ctx, &ranks[i].stream));
      ctxs.push_back(ranks[i].ctx);
    }
    std::vector<gpuopt_comm_t> comms(static_cast<size_t>(n));
    MG_OK(gpuopt_comm_create_local(ctxs.data(), n, comms.data()));
    for (int i = 0; i < n; ++i) ranks[i].comm = comms[i];
  }
  // Communicators destroyed last rank first when reverse, else first rank first.
  void destroy(bool reverse = false) {
    const int n = size();
    for (int j = 0; j < n; ++j) {
      Rank& r = ranks[static_cast<size_t>(reverse ? n - 1 - j : j)];
      if (r.comm) {
        EXPECT_EQ(gpuopt_comm_destroy(r.comm), GPUOPT_SUCCESS) << message();
      }
      r.comm = nullptr;
    }
    for (Rank& r : ranks) {
      if (r.stream) {
        EXPECT_EQ(gpuopt_stream_destroy(r.stream), GPUOPT_SUCCESS) << message();
      }
      if (r.ctx) {
        EXPECT_EQ(gpuopt_context_destroy(r.ctx), GPUOPT_SUCCESS) << message();
      }
    }
    ranks.clear();
  }
  int size() const { return static_cast<int>(ranks.size()); }

  // Runs body(rank) on one thread per rank. A rank still running after `limit` is stuck: every
  // communicator is aborted (which releases NCCL's kernels), the threads are joined and the
  // answer is false.
  bool each(const std::function<void(int)>& body,
            std::chrono::seconds limit = std::chrono::seconds(120)) {
    std::vector<std::future<void>> done;
    for (int r = 0; r < size(); ++r) done.push_back(std::async(std::launch::async, body, r));
    const auto until = std::chrono::steady_clock::now() + limit;
    bool ok = true;
    for (auto& f : done)
      if (f.wait_until(until) != std::future_status::ready) ok = false;
    if (!ok) {
      for (Rank& r : ranks) {
        gpuopt_comm_abort(r.comm);
        r.comm = nullptr;
      }
    }
    for (auto& f : done) f.wait();
    return ok;
  }

  std::vector<Rank> ranks;
};

// Small integers, exact in every dtype and in sums over a few ranks.
inline double value(int rank, int64_t i) {
  return static_cast<double>((i * 7 + rank * 13) % 31 - 15);
}

inline size_t dtype_bytes(gpuopt_dtype_t t) {
  switch (t) {
    case GPUOPT_DTYPE_F64:
    case GPUOPT_DTYPE_I64:
    case GPUOPT_DTYPE_U64:
      return 8;
    case GPUOPT_DTYPE_F16:
    case GPUOPT_DTYPE_BF16:
      return 2;
    default:
      return 4;
  }
}

// Encodes / decodes a small integer in dtype t (exact for |v| <= 256).
inline void encode(gpuopt_dtype_t t, double v, void* out) {
  const float f = static_cast<float>(v);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  switch (t) {
    case GPUOPT_DTYPE_F32:
      std::memcpy(out, &f, 4);
      break;
    case GPUOPT_DTYPE_F64:
      std::memcpy(out, &v, 8);
      break;
    case GPUOPT_DTYPE_BF16: {
      const uint16_t h = static_cast<uint16_t>(b >> 16);
      std::memcpy(out, &h, 2);
      break;
    }
    case GPUOPT_DTYPE_F16: {
      uint16_t h = 0;
      if (f != 0.0f) {
        const uint32_t e = ((b >> 23) & 0xff) - 127 + 15;
        h = static_cast<uint16_t>(((b >> 16) & 0x8000) | (e << 10) | ((b >> 13) & 0x3ff));
      }
      std::memcpy(out, &h, 2);
      break;
    }
    case GPUOPT_DTYPE_I32:
    case GPUOPT_DTYPE_U32: {
      const int32_t x = static_cast<int32_t>(v);
      std::memcpy(out, &x, 4);
      break;
    }
    default: {
      const int64_t x = static_cast<int64_t>(v);
      std::memcpy(out, &x, 8);
    }
  }
}

inline double decode(gpuopt_dtype_t t, const void* in) {
  switch (t) {
    case GPUOPT_DTYPE_F32: {
      float f;
      std::memcpy(&f, in, 4);
      return f;
    }
    case GPUOPT_DTYPE_F64: {
      double d;
      std::memcpy(&d, in, 8);
      return d;
    }
    case GPUOPT_DTYPE_BF16: {
      uint16_t h;
      std::memcpy(&h, in, 2);
      const uint32_t b = static_cast<uint32_t>(h) << 16;
      float f;
      std::memcpy(&f, &b, 4);
      return f;
    }
    case GPUOPT_DTYPE_F16: {
      uint16_t h;
      std::memcpy(&h, in, 2);
      if ((h & 0x7fff) == 0) return 0.0;
      const uint32_t b = (static_cast<uint32_t>(h & 0x8000) << 16) |
                         ((((h >> 10) & 0x1f) - 15 + 127) << 23) |
                         (static_cast<uint32_t>(h & 0x3ff) << 13);
      float f;
      std::memcpy(&f, &b, 4);
      return f;
    }
    case GPUOPT_DTYPE_I32:
    case GPUOPT_DTYPE_U32: {
      int32_t x;
      std::memcpy(&x, in, 4);
      return x;
    }
    default: {
      int64_t x;
      std::memcpy(&x, in, 8);
      return static_cast<double>(x);
    }
  }
}

}  // namespace multi
