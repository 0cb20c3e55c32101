#include "copy_pool.hpp"

#include <sched.h>
#include <string.h>

#include <algorithm>
#include <system_error>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpuopt_host_tiled {
namespace {

// memcpy whose 64-byte aligned middle is written with non-temporal stores: the destination (a
// pinned staging slot the DMA reads next, or C) is not read by this CPU soon, and writing around
// the caches saves the read for ownership of every line, a third of a cached copy's memory
// traffic. Ends with a store fence, so the data is visible before the copy is issued.
void stream_copy(char* d, const char* s, size_t n) {
#if defined(__SSE2__)
  if (n >= 256) {
    const size_t head = (64 - (reinterpret_cast<uintptr_t>(d) & 63)) & 63;  // whole lines
    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    const size_t body = n & ~static_cast<size_t>(63);
    for (size_t i = 0; i < body; i += 64) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
      const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), a);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
    }
    d += body;
    s += body;
    n -= body;
  }
#endif
  memcpy(d, s, n);
}

void store_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace

struct CopyPool::Job {
  const std::function<void(int64_t)>* fn;
  int64_t pieces;
  int64_t next = 0;  // the next piece to claim
  int64_t left;      // pieces not finished
};

CopyPool::CopyPool(int helpers) {
  for (int i = 0; i < helpers; ++i) {
    try {
      helpers_.emplace_back(&CopyPool::helper_loop, this);
    } catch (const std::system_error&) {
      break;  // fewer helpers: slower copies, same results
    }
  }
}

CopyPool::~CopyPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_.notify_all();
  for (std::thread& t : helpers_) t.join();
}

int CopyPool::cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

bool CopyPool::claim(Job* j, int64_t* piece) {
  if (j->next >= j->pieces) return false;
  *piece = j->next++;
  if (j->next == j->pieces) queue_.erase(std::find(queue_.begin(), queue_.end(), j));
  return true;
}

void CopyPool::helper_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Job* j = queue_.front();
    int64_t piece = 0;
    claim(j, &piece);  // a queued job always has a piece left
    lock.unlock();
    (*j->fn)(piece);
    lock.lock();
    // The caller returns once left is 0 (it waits under mu_): j is not touched after this.
    if (--j->left == 0) done_.notify_all();
  }
}

void CopyPool::run(int64_t pieces, const std::function<void(int64_t)>& fn) {
  if (pieces <= 0) return;
  if (pieces == 1 || helpers_.empty()) {
    for (int64_t p = 0; p < pieces; ++p) fn(p);
    return;
  }
  Job j{&fn, pieces, 0, pieces};
  std::unique_lock<std::mutex> lock(mu_);
  queue_.push_back(&j);
  work_.notify_all();
  int64_t piece = 0;
  while (claim(&j, &piece)) {
    lock.unlock();
    fn(piece);
    lock.lock();
    --j.left;
  }
  done_.wait(lock, [&j] { return j.left == 0; });
}

namespace {

// How many pieces of at least piece_bytes a job of total bytes is cut into on pool (at most one
// per thread, at most @p most).
int64_t pieces_of(CopyPool* pool, size_t piece_bytes, size_t total, int64_t most) {
  if (!pool) return 1;
  int64_t pieces = static_cast<int64_t>(total / std::max<size_t>(piece_bytes, 1));
  return std::max<int64_t>(1, std::min<int64_t>({pieces, pool->threads(), most}));
}

// Runs fn(j0, j1) over column ranges covering [0, cols) in @p pieces pieces.
void for_columns(CopyPool* pool, int64_t pieces, int64_t cols,
                 const std::function<void(int64_t, int64_t)>& fn) {
  const int64_t per = (cols + pieces - 1) / pieces;
  auto part = [&](int64_t p) {
    const int64_t lo = std::min(cols, p * per), hi = std::min(cols, lo + per);
    if (hi > lo) fn(lo, hi);
  };
  if (pieces == 1)
    part(0);
  else
    pool->run(pieces, part);
}

template <class T>
void add_scaled_columns(T* c, int64_t ldc, const T* d, int64_t ldd, int64_t rows, int64_t j0,
                        int64_t j1, T beta) {
  for (int64_t j = j0; j < j1; ++j) {
    T* cj = c + j * ldc;
    const T* dj = d + j * ldd;
    for (int64_t i = 0; i < rows; ++i) cj[i] = dj[i] + beta * cj[i];
  }
}

}  // namespace

void copy_2d(CopyPool* pool, size_t piece_bytes, void* dst, int64_t ldd, const void* src,
             int64_t lds, int64_t rows, int64_t cols, size_t elem) {
  if (rows <= 0 || cols <= 0) return;
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  const size_t col = static_cast<size_t>(rows) * elem;
  const size_t total = col * static_cast<size_t>(cols);
  const bool flat = (lds == rows || cols == 1) && (ldd == rows || cols == 1);
  if (flat) {
    // One range of total bytes, cut at 64-byte boundaries.
    const int64_t pieces = pieces_of(pool, piece_bytes, total, INT64_MAX);
    const size_t per = (total / static_cast<size_t>(pieces) + 63) & ~static_cast<size_t>(63);
    auto part = [&](int64_t p) {
      const size_t lo = std::min(total, per * static_cast<size_t>(p));
      const size_t hi = std::min(total, lo + per);
      if (hi > lo) stream_copy(d + lo, s + lo, hi - lo);
      store_fence();
    };
    if (pieces == 1)
      part(0);
    else
      pool->run(pieces, part);
    return;
  }
  const int64_t sstep = lds * static_cast<int64_t>(elem), dstep = ldd * static_cast<int64_t>(elem);
  for_columns(pool, pieces_of(pool, piece_bytes, total, cols), cols, [&](int64_t j0, int64_t j1) {
    for (int64_t j = j0; j < j1; ++j) stream_copy(d + j * dstep, s + j * sstep, col);
    store_fence();
  });
}

void add_scaled_2d(CopyPool* pool, size_t piece_bytes, void* c, int64_t ldc, const void* d,
                   int64_t ldd, int64_t rows, int64_t cols, size_t elem, double beta) {
  if (rows <= 0 || cols <= 0) return;
  const size_t total = static_cast<size_t>(rows) * elem * static_cast<size_t>(cols);
  for_columns(pool, pieces_of(pool, piece_bytes, total, cols), cols, [&](int64_t j0, int64_t j1) {
    if (elem == 8)
      add_scaled_columns(static_cast<double*>(c), ldc, static_cast<const double*>(d), ldd, rows, j0,
                         j1, beta);
    else
      add_scaled_columns(static_cast<float*>(c), ldc, static_cast<const float*>(d), ldd, rows, j0,
                         j1, static_cast<float>(beta));
  });
}

}  // namespace gpuopt_host_tiled
