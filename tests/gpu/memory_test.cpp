// Memory the caller controls and the per-call costs it removes: a context's allocator
// (gpuopt_context_set_allocator) serves every workspace and device buffer, and gets all of it
// back; wrapping a stream allocates nothing (its resources come from the context's pool at its
// first op); the pointer-range cache never answers for memory the caller freed or reallocated.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "axpy_harness.hpp"
#include "gpu_fixture.hpp"

namespace {

using gput::AxpyHarness;
using gput::AxpyLayout;

// Counts what passes through it; backed by cudaMalloc / cudaFree.
struct CountingAllocator {
  std::mutex mu;
  int allocations = 0;
  int frees = 0;
  std::map<void*, size_t> live;
  bool wrong_free = false;    // a free of something not live, or with another size
  bool stream_given = false;  // a deallocate with a stream (gpuopt promises NULL, work done)

  static void* allocate(size_t bytes, void*, void* user) {
    auto* self = static_cast<CountingAllocator*>(user);
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) return nullptr;
    std::lock_guard<std::mutex> lock(self->mu);
    ++self->allocations;
    self->live[p] = bytes;
    return p;
  }
  static void deallocate(void* p, size_t bytes, void* stream, void* user) {
    auto* self = static_cast<CountingAllocator*>(user);
    {
      std::lock_guard<std::mutex> lock(self->mu);
      ++self->frees;
      if (stream) self->stream_given = true;
      auto it = self->live.find(p);
      if (it == self->live.end() || it->second != bytes)
        self->wrong_free = true;
      else
        self->live.erase(it);
    }
    cudaFree(p);
  }
  gpuopt_allocator_t desc() {
    gpuopt_allocator_t a{};
    a.struct_size = sizeof a;
    a.allocate = &CountingAllocator::allocate;
    a.deallocate = &CountingAllocator::deallocate;
    a.user = this;
    return a;
  }
  int count() {
    std::lock_guard<std::mutex> lock(mu);
    return allocations;
  }
  int freed() {
    std::lock_guard<std::mutex> lock(mu);
    return frees;
  }
};

// Holds a CUDA stream at a host function until open() (or 20 s, so a broken test cannot hang):
// the work queued behind it stays pending, which makes "returned without waiting" testable.
class StreamGate {
 public:
  explicit StreamGate(cudaStream_t s) {
    EXPECT_CUDA_OK(cudaLaunchHostFunc(s, &StreamGate::wait, this));
  }
  ~StreamGate() { open(); }
  void open() { open_.store(true); }

 private:
  static void wait(void* self) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    auto* g = static_cast<StreamGate*>(self);
    while (!g->open_.load() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  std::atomic<bool> open_{false};
};

cudaStream_t native(gpuopt_stream_t s) {
  void* p = nullptr;
  EXPECT_GPUOPT_OK(gpuopt_stream_native(s, &p));
  return static_cast<cudaStream_t>(p);
}

// Runs call on another thread and answers its status if it returns within 10 s while `gate`
// holds the stream; otherwise opens the gate (so it can return) and fails the test.
gpuopt_status_t returns_while_held(StreamGate& gate, const std::function<gpuopt_status_t()>& call) {
  auto f = std::async(std::launch::async, call);
  if (f.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    gate.open();
    ADD_FAILURE() << "the call waited for the held stream (a device or stream synchronization)";
  }
  return f.get();
}

// n floats of `value` in a new buffer of ctx.
gpuopt_buffer_t filled_buffer(gpuopt_context_t ctx, gpuopt_stream_t s, size_t n, float value) {
  gpuopt_buffer_t b = nullptr;
  EXPECT_GPUOPT_OK(gpuopt_buffer_create(ctx, n * sizeof(float), GPUOPT_MEMORY_DEVICE, &b));
  const std::vector<float> h(n, value);
  EXPECT_GPUOPT_OK(gpuopt_buffer_copy_from_host(b, s, 0, h.data(), n * sizeof(float)));
  EXPECT_GPUOPT_OK(gpuopt_stream_synchronize(s));
  return b;
}

// True when the device gives gpuopt's device buffers stream-ordered frees (memory pools).
bool has_memory_pools() {
  int pools = 0;
  return cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0) == cudaSuccess &&
         pools != 0;
}

void* device_pointer(gpuopt_buffer_t b) {
  void* p = nullptr;
  EXPECT_GPUOPT_OK(gpuopt_buffer_device_pointer(b, &p));
  return p;
}

// A first op on s (y += 0 x: values unchanged), so that the stream holds its cuBLAS handle and
// workspaces before a test holds it: taking them may allocate, which must not happen behind a
// held stream.
void warm_up(gpuopt_context_t ctx, gpuopt_stream_t s, gpuopt_buffer_t x, gpuopt_buffer_t y) {
  size_t bytes = 0;
  EXPECT_GPUOPT_OK(gpuopt_buffer_size(x, &bytes));
  EXPECT_GPUOPT_OK(gpuopt_axpy(ctx, s, GPUOPT_DTYPE_F32, static_cast<std::int64_t>(bytes / 4), 0.0,
                               device_pointer(x), 1, device_pointer(y), 1));
  EXPECT_GPUOPT_OK(gpuopt_stream_synchronize(s));
}

// True when every one of the n floats of b is `want`.
bool all_equal(gpuopt_buffer_t b, gpuopt_stream_t s, size_t n, float want) {
  std::vector<float> h(n, -1.0f);
  EXPECT_GPUOPT_OK(gpuopt_buffer_copy_to_host(b, s, 0, h.data(), n * sizeof(float)));
  EXPECT_GPUOPT_OK(gpuopt_stream_synchronize(s));
  for (float v : h)
    if (v != want) return false;
  return true;
}

class Memory : public gput::GpuTest {
 protected:
  // A second context on the device whose memory comes from counter_.
  void SetUp() override {
    gput::GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_GPUOPT_OK(gpuopt_context_create(0, &counted_));
    const gpuopt_allocator_t a = counter_.desc();
    ASSERT_GPUOPT_OK(gpuopt_context_set_allocator(counted_, &a));
  }
  void TearDown() override {
    if (wrapped_) {
      EXPECT_GPUOPT_OK(gpuopt_stream_destroy(wrapped_));
    }
    if (cs_) {
      EXPECT_CUDA_OK(cudaStreamDestroy(cs_));
    }
    if (counted_) {
      EXPECT_GPUOPT_OK(gpuopt_context_destroy(counted_));
      EXPECT_EQ(counter_.allocations, counter_.frees) << "unbalanced at context destroy";
      EXPECT_TRUE(counter_.live.empty()) << counter_.live.size() << " allocation(s) never freed";
      EXPECT_FALSE(counter_.wrong_free) << "a deallocate of memory not live, or another size";
    }
    gput::GpuTest::TearDown();
  }

  // A correct f32 sum (reduce: uses the op workspace) of n ones on s.
  void expect_sum_on(gpuopt_context_t ctx, gpuopt_stream_t s, std::int64_t n = 1 << 20) {
    gput::DeviceArray<float> in(static_cast<size_t>(n));
    gput::DeviceArray<float> out(1);
    std::vector<float> ones(static_cast<size_t>(n), 1.0f);
    ASSERT_CUDA_OK(cudaMemcpy(in.data(), ones.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    gpuopt_reduce_desc_t d{};
    d.struct_size = sizeof d;
    d.op = GPUOPT_REDUCE_SUM;
    d.in_type = GPUOPT_DTYPE_F32;
    d.n = n;
    ASSERT_GPUOPT_OK(gpuopt_reduce(ctx, s, &d, in.data(), out.data()));
    ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(s));
    float got = 0;
    ASSERT_CUDA_OK(cudaMemcpy(&got, out.data(), sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, static_cast<float>(n));
  }

  // Once x left ctx_'s range cache: ctx_ answers an axpy of n from x into y as the driver does,
  // which is what a context that never cached x (counted_, on a stream made here) answers.
  void expect_driver_judges(const void* x, void* y, std::int64_t n, const char* why) {
    gpuopt_stream_t fresh = nullptr;
    ASSERT_GPUOPT_OK(gpuopt_stream_create(counted_, &fresh));
    const gpuopt_status_t driver_says =
        gpuopt_axpy(counted_, fresh, GPUOPT_DTYPE_F32, n, 2.0, x, 1, y, 1);
    EXPECT_STATUS(driver_says, gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, n, 2.0, x, 1, y, 1))
        << why;
    ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(fresh));
    ASSERT_GPUOPT_OK(gpuopt_stream_destroy(fresh));
  }

  // A caller's CUDA stream (cs_) wrapped on counted_ (wrapped_); both go in TearDown.
  void wrap_fresh_stream() {
    ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&cs_, cudaStreamNonBlocking));
    ASSERT_GPUOPT_OK(gpuopt_stream_wrap(counted_, cs_, &wrapped_));
  }

  CountingAllocator counter_;
  gpuopt_context_t counted_ = nullptr;
  cudaStream_t cs_ = nullptr;
  gpuopt_stream_t wrapped_ = nullptr;
};

TEST_F(Memory, CountingAllocatorSeesEveryAllocationAndFree) {
  gpuopt_stream_t a = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_stream_create(counted_, &a));
  EXPECT_EQ(counter_.count(), 0) << "creating a stream allocates nothing";
  gput::expect_axpy_still_works(counted_, a, rng_);
  const int per_stream = counter_.count();
  EXPECT_EQ(per_stream, 2) << "the first op takes the cuBLAS and the op workspace";
  expect_sum_on(counted_, a);
  EXPECT_EQ(counter_.count(), per_stream) << "later ops allocate nothing";

  gpuopt_buffer_t b = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_buffer_create(counted_, 1 << 20, GPUOPT_MEMORY_DEVICE, &b));
  EXPECT_EQ(counter_.count(), per_stream + 1) << "a device buffer comes from the allocator";
  gpuopt_stream_t second = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_stream_create(counted_, &second));
  expect_sum_on(counted_, second);  // a is still alive: a second set is made
  EXPECT_EQ(counter_.count(), 2 * per_stream + 1);

  EXPECT_GPUOPT_OK(gpuopt_buffer_destroy(b));
  EXPECT_EQ(counter_.frees, 1) << "the buffer goes back at once";
  EXPECT_GPUOPT_OK(gpuopt_stream_destroy(a));
  EXPECT_GPUOPT_OK(gpuopt_stream_destroy(second));
  EXPECT_EQ(counter_.frees, 1) << "stream resources stay pooled until the context goes";
  // TearDown destroys the context and checks that everything came back.
}

TEST_F(Memory, WrapAllocatesNothingAndReusesThePool) {
  wrap_fresh_stream();
  cudaStream_t cs = cs_;
  EXPECT_EQ(counter_.count(), 0) << "wrapping allocates nothing";
  gput::expect_axpy_still_works(counted_, wrapped_, rng_);
  const int warm = counter_.count();
  ASSERT_GPUOPT_OK(gpuopt_stream_destroy(wrapped_));
  wrapped_ = nullptr;
  gpuopt_stream_t s = nullptr;

  // Wrap per call, as a framework integration does: no allocation once the pool is warm.
  for (int i = 0; i < 20; ++i) {
    ASSERT_GPUOPT_OK(gpuopt_stream_wrap(counted_, cs, &s));
    expect_sum_on(counted_, s, 4096 + i);
    ASSERT_GPUOPT_OK(gpuopt_stream_destroy(s));
  }
  EXPECT_EQ(counter_.count(), warm) << "wrapped streams took the pooled resources";
}

TEST_F(Memory, PooledResourcesOrderAfterTheirPreviousStream) {
  // Stream a's work is still queued when it gives its set back; b takes the same set and must
  // not overlap it (b waits for a's event): both results are right.
  gpuopt_stream_t a = nullptr, b = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_stream_create(counted_, &a));
  ASSERT_GPUOPT_OK(gpuopt_stream_create(counted_, &b));
  gput::DeviceArray<float> in(1 << 22), out_a(1), out_b(1);
  std::vector<float> ones(1 << 22, 1.0f);
  ASSERT_CUDA_OK(
      cudaMemcpy(in.data(), ones.data(), ones.size() * sizeof(float), cudaMemcpyHostToDevice));
  gpuopt_reduce_desc_t d{};
  d.struct_size = sizeof d;
  d.op = GPUOPT_REDUCE_SUM;
  d.in_type = GPUOPT_DTYPE_F32;
  d.n = 1 << 22;
  for (int i = 0; i < 8; ++i)
    ASSERT_GPUOPT_OK(gpuopt_reduce(counted_, a, &d, in.data(), out_a.data()));
  ASSERT_GPUOPT_OK(gpuopt_stream_destroy(a));  // no wait: the set goes back behind an event
  ASSERT_GPUOPT_OK(gpuopt_reduce(counted_, b, &d, in.data(), out_b.data()));
  ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(b));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  float ga = 0, gb = 0;
  ASSERT_CUDA_OK(cudaMemcpy(&ga, out_a.data(), sizeof ga, cudaMemcpyDeviceToHost));
  ASSERT_CUDA_OK(cudaMemcpy(&gb, out_b.data(), sizeof gb, cudaMemcpyDeviceToHost));
  EXPECT_EQ(ga, static_cast<float>(1 << 22));
  EXPECT_EQ(gb, static_cast<float>(1 << 22));
  EXPECT_EQ(counter_.count(), 2) << "b reused a's set";
  ASSERT_GPUOPT_OK(gpuopt_stream_destroy(b));
}

TEST_F(Memory, GraphBeginSetsUpAFreshWrappedStream) {
  wrap_fresh_stream();
  gpuopt_stream_t s = wrapped_;
  AxpyLayout l;
  l.n = 4099;
  AxpyHarness<float> h(l, rng_.alpha(), rng_);
  ASSERT_GPUOPT_OK(gpuopt_graph_begin(counted_, s));
  EXPECT_EQ(counter_.count(), 2) << "the resources were taken before the capture began";
  EXPECT_GPUOPT_OK(h.run(counted_, s));
  gpuopt_graph_t g = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_graph_end(s, &g));
  ASSERT_GPUOPT_OK(gpuopt_graph_launch(g, s));
  ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(s));
  EXPECT_TRUE(h.check_result());
  EXPECT_GPUOPT_OK(gpuopt_graph_destroy(g));
}

TEST_F(Memory, OwnersCaptureOfAFreshStreamIsRefusedAndKept) {
  wrap_fresh_stream();
  gpuopt_stream_t s = wrapped_;
  cudaStream_t cs = cs_;
  AxpyLayout l;
  l.n = 4099;
  AxpyHarness<float> h(l, rng_.alpha(), rng_);
  ASSERT_CUDA_OK(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal));
  EXPECT_STATUS(GPUOPT_ERROR_CAPTURE_ILLEGAL, h.run(counted_, s));
  EXPECT_TRUE(gput::MessageNames("gpuopt_axpy"));
  cudaGraph_t graph = nullptr;
  // The owner's capture survived the refusal.
  EXPECT_CUDA_OK(cudaStreamEndCapture(cs, &graph));
  if (graph) cudaGraphDestroy(graph);
  EXPECT_EQ(counter_.count(), 0);
  // After the capture the first op sets the stream up; a later capture by the owner works.
  gput::expect_axpy_still_works(counted_, s, rng_);
  AxpyHarness<float> h2(l, rng_.alpha(), rng_);
  ASSERT_CUDA_OK(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal));
  EXPECT_GPUOPT_OK(h2.run(counted_, s));
  graph = nullptr;
  ASSERT_CUDA_OK(cudaStreamEndCapture(cs, &graph));
  cudaGraphExec_t exec = nullptr;
  ASSERT_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  ASSERT_CUDA_OK(cudaGraphLaunch(exec, cs));
  ASSERT_CUDA_OK(cudaStreamSynchronize(cs));
  EXPECT_TRUE(h2.check_result());
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

TEST_F(Memory, AllocatorReturningNullIsOutOfMemory) {
  gpuopt_context_t c = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_context_create(0, &c));
  gpuopt_allocator_t a{};
  a.struct_size = sizeof a;
  a.allocate = [](size_t, void*, void*) -> void* { return nullptr; };
  a.deallocate = [](void*, size_t, void*, void*) {};
  ASSERT_GPUOPT_OK(gpuopt_context_set_allocator(c, &a));
  gpuopt_buffer_t b = nullptr;
  EXPECT_STATUS(GPUOPT_ERROR_OUT_OF_MEMORY,
                gpuopt_buffer_create(c, 4096, GPUOPT_MEMORY_DEVICE, &b));
  gpuopt_stream_t s = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_stream_create(c, &s));
  AxpyLayout l;
  l.n = 1000;
  AxpyHarness<float> h(l, rng_.alpha(), rng_);
  EXPECT_STATUS(GPUOPT_ERROR_OUT_OF_MEMORY, h.run(c, s));
  // Back to gpuopt's own allocation: the context works again.
  ASSERT_GPUOPT_OK(gpuopt_stream_destroy(s));
  ASSERT_GPUOPT_OK(gpuopt_context_set_allocator(c, nullptr));
  ASSERT_GPUOPT_OK(gpuopt_stream_create(c, &s));
  gput::expect_axpy_still_works(c, s, rng_);
  EXPECT_GPUOPT_OK(gpuopt_stream_destroy(s));
  EXPECT_GPUOPT_OK(gpuopt_context_destroy(c));
}

// The range cache: a pointer the caller freed gets the driver's answer again, not the cached
// one, and memory reallocated at the same address with another size is judged by its new extent.
TEST_F(Memory, RangeCacheNeverAnswersForFreedOrReallocatedMemory) {
  const std::int64_t small = 1024, large = 1 << 20;
  float* x = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&x), small * sizeof(float)));
  ASSERT_CUDA_OK(cudaMemset(x, 0, small * sizeof(float)));
  float* y = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&y), large * sizeof(float)));
  ASSERT_CUDA_OK(cudaMemset(y, 0, large * sizeof(float)));
  ASSERT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, small, 1.0, x, 1, y, 1));
  ASSERT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, small, 1.0, x, 1, y, 1))
      << "cached";
  // Far past x's allocation (beyond any rounding of its extent): still refused when cached.
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, large, 1.0, x, 1, y, 1));
  sync();
  ASSERT_CUDA_OK(cudaFree(x));
  // The cached answer must be the driver's: a context that never saw x (counted_, whose stream
  // is made here) asks the driver.
  gpuopt_stream_t fresh = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_stream_create(counted_, &fresh));
  const gpuopt_status_t driver_says =
      gpuopt_axpy(counted_, fresh, GPUOPT_DTYPE_F32, small, 1.0, x, 1, y, 1);
  EXPECT_STATUS(driver_says, gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, small, 1.0, x, 1, y, 1))
      << "a freed pointer is not answered from the cache";
  // Reallocate larger: if the address comes back, the new extent applies.
  float* x2 = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&x2), large * sizeof(float)));
  ASSERT_CUDA_OK(cudaMemset(x2, 0, large * sizeof(float)));
  EXPECT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, large, 1.0, x2, 1, y, 1))
      << (x2 == x ? "same address, new extent" : "another address");
  ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(fresh));
  ASSERT_GPUOPT_OK(gpuopt_stream_destroy(fresh));
  sync();
  ASSERT_CUDA_OK(cudaFree(x2));
  ASSERT_CUDA_OK(cudaFree(y));
}

// Operands carved from one allocation (a framework's pool segment): one call reads the
// allocation's buffer ID once for both (CallVerified), the results are right, and once the
// allocation is freed between two calls the driver judges it again: the call before vouches for
// nothing.
TEST_F(Memory, OperandsInOneAllocationAreRightAndFreedMemoryIsJudgedAgain) {
  const std::int64_t n = 4096;
  const size_t count = static_cast<size_t>(n), bytes = count * sizeof(float);
  float* pool = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&pool), 2 * bytes));
  std::vector<float> init(2 * count, 0.0f);  // x, then y = 0
  for (size_t i = 0; i < count; ++i) init[i] = static_cast<float>(i % 7) - 3.0f;
  ASSERT_CUDA_OK(cudaMemcpy(pool, init.data(), 2 * bytes, cudaMemcpyHostToDevice));
  float* const x = pool;
  float* const y = pool + n;
  for (int i = 0; i < 3; ++i)
    ASSERT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, n, 2.0, x, 1, y, 1));
  sync();
  std::vector<float> got(count);
  ASSERT_CUDA_OK(cudaMemcpy(got.data(), y, bytes, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < count; ++i) ASSERT_EQ(got[i], 6.0f * init[i]) << "element " << i;
  ASSERT_CUDA_OK(cudaFree(pool));
  expect_driver_judges(x, y, n, "a freed pool is judged by the driver, not by the call before");
  gput::expect_axpy_still_works(ctx_, stream_, rng_);
}

// Cached pointer checks (gpuopt_context_set_pointer_checks): repeated axpy calls on the caller's
// cudaMalloc memory give correct results, and a range past the cached allocation is still refused.
TEST_F(Memory, CachedPointerChecksRunAxpyRepeatedlyWithCorrectResults) {
  const std::int64_t n = 4096;
  const size_t count = static_cast<size_t>(n), bytes = count * sizeof(float);
  const int calls = 10;
  ASSERT_GPUOPT_OK(gpuopt_context_set_pointer_checks(ctx_, GPUOPT_POINTER_CHECKS_CACHED));
  gput::DeviceArray<float> x(count), y(count);
  const std::vector<float> ones(count, 1.0f), twos(count, 2.0f);
  ASSERT_CUDA_OK(cudaMemcpy(x.data(), ones.data(), bytes, cudaMemcpyHostToDevice));
  ASSERT_CUDA_OK(cudaMemcpy(y.data(), twos.data(), bytes, cudaMemcpyHostToDevice));
  for (int i = 0; i < calls; ++i)
    ASSERT_GPUOPT_OK(
        gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, n, 2.0, x.data(), 1, y.data(), 1));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, n << 10,
                                                           2.0, x.data(), 1, y.data(), 1))
      << "far past the cached allocation";
  sync();
  std::vector<float> got(count);
  ASSERT_CUDA_OK(cudaMemcpy(got.data(), y.data(), bytes, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < count; ++i) ASSERT_EQ(got[i], 2.0f + 2.0f * calls) << "element " << i;
  ASSERT_GPUOPT_OK(gpuopt_context_set_pointer_checks(ctx_, GPUOPT_POINTER_CHECKS_FULL));
}

// Cached mode does not see the caller's cudaFree; gpuopt_context_forget_pointers brings back the
// full check: the freed pointer is judged by the driver, and memory reallocated (perhaps at the
// same address) with a smaller size is judged by its new extent, not the cached one.
TEST_F(Memory, CachedPointerChecksForgetRestoresDetectionOfFreedAndReallocatedMemory) {
  const std::int64_t small = 1024, large = 1 << 20;
  ASSERT_GPUOPT_OK(gpuopt_context_set_pointer_checks(ctx_, GPUOPT_POINTER_CHECKS_CACHED));
  float* x = nullptr;
  float* y = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&x), large * sizeof(float)));
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&y), large * sizeof(float)));
  ASSERT_CUDA_OK(cudaMemset(x, 0, large * sizeof(float)));
  ASSERT_CUDA_OK(cudaMemset(y, 0, large * sizeof(float)));
  ASSERT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, large, 1.0, x, 1, y, 1));
  sync();
  ASSERT_CUDA_OK(cudaFree(x));
  // No gpuopt call may use x before the forget: cached mode would trust it (the caller's bug).
  ASSERT_GPUOPT_OK(gpuopt_context_forget_pointers(ctx_));
  gpuopt_pointer_checks_t mode = GPUOPT_POINTER_CHECKS_FULL;
  ASSERT_GPUOPT_OK(gpuopt_context_pointer_checks(ctx_, &mode));
  EXPECT_EQ(mode, GPUOPT_POINTER_CHECKS_CACHED) << "forgetting keeps the mode";
  expect_driver_judges(x, y, small, "a freed pointer after the forget");
  float* x2 = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&x2), small * sizeof(float)));
  ASSERT_CUDA_OK(cudaMemset(x2, 0, small * sizeof(float)));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, large, 1.0, x2, 1, y, 1))
      << (x2 == x ? "same address, smaller extent" : "another address");
  EXPECT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, small, 1.0, x2, 1, y, 1));
  sync();
  ASSERT_CUDA_OK(cudaFree(x2));
  ASSERT_CUDA_OK(cudaFree(y));
  ASSERT_GPUOPT_OK(gpuopt_context_set_pointer_checks(ctx_, GPUOPT_POINTER_CHECKS_FULL));
}

TEST_F(Memory, GpuoptBuffersAreValidatedFromTheCacheUntilDestroyed) {
  gpuopt_buffer_t bx = nullptr, by = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_buffer_create(ctx_, 4096 * sizeof(float), GPUOPT_MEMORY_DEVICE, &bx));
  ASSERT_GPUOPT_OK(gpuopt_buffer_create(ctx_, 4096 * sizeof(float), GPUOPT_MEMORY_DEVICE, &by));
  void *x = nullptr, *y = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_buffer_device_pointer(bx, &x));
  ASSERT_GPUOPT_OK(gpuopt_buffer_device_pointer(by, &y));
  ASSERT_CUDA_OK(cudaMemset(x, 0, 4096 * sizeof(float)));
  ASSERT_CUDA_OK(cudaMemset(y, 0, 4096 * sizeof(float)));
  EXPECT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, 4096, 2.0, x, 1, y, 1));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, 100, 2.0, x, 1, y, 20000))
      << "8 MB past a 16 KB buffer";
  sync();
  ASSERT_GPUOPT_OK(gpuopt_buffer_destroy(bx));
  expect_driver_judges(x, y, 4096, "a destroyed buffer's range left the cache");
  sync();
  ASSERT_GPUOPT_OK(gpuopt_buffer_destroy(by));
}

// A wrapped range is trusted like a gpuopt buffer while the wrap lives (its extent still
// checked), and judged by the driver again once the wrap is destroyed.
TEST_F(Memory, WrappedMemoryIsValidatedFromTheCacheUntilTheWrapIsDestroyed) {
  constexpr std::int64_t n = 4096;
  float *x = nullptr, *y = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&x), n * sizeof(float)));
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&y), n * sizeof(float)));
  ASSERT_CUDA_OK(cudaMemset(x, 0, n * sizeof(float)));
  ASSERT_CUDA_OK(cudaMemset(y, 0, n * sizeof(float)));
  gpuopt_buffer_t wx = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_buffer_wrap(ctx_, x, n / 2 * sizeof(float), &wx));
  EXPECT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, n / 2, 1.0, x, 1, y, 1));
  EXPECT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, n, 1.0, x, 1, y, 1))
      << "past the wrap but inside the allocation: the driver decides, and accepts";
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, 100, 1.0, x, 1, y, 1000))
      << "past the allocation";
  sync();
  ASSERT_GPUOPT_OK(gpuopt_buffer_destroy(wx));
  ASSERT_CUDA_OK(cudaFree(x));
  expect_driver_judges(x, y, n / 2, "a destroyed wrap's range left the cache");
  sync();
  ASSERT_CUDA_OK(cudaFree(y));
}

// gpuopt_buffer_destroy_async frees in the stream's order: it returns while work that still
// reads the buffer is queued on that stream (no device synchronization), and that work reads the
// memory intact.
TEST_F(Memory, DestroyAsyncReturnsBeforeTheStreamsWorkRuns) {
  if (!has_memory_pools()) GTEST_SKIP() << "no memory pools: destroy_async frees synchronously";
  constexpr size_t n = 1 << 20;
  gpuopt_buffer_t x = filled_buffer(ctx_, stream_, n, 1.0f);
  gpuopt_buffer_t y = filled_buffer(ctx_, stream_, n, 0.0f);
  warm_up(ctx_, stream_, x, y);
  {
    StreamGate gate(native(stream_));
    ASSERT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, n, 2.0, device_pointer(x), 1,
                                 device_pointer(y), 1));
    EXPECT_GPUOPT_OK(
        returns_while_held(gate, [&] { return gpuopt_buffer_destroy_async(x, stream_); }));
    EXPECT_EQ(cudaStreamQuery(native(stream_)), cudaErrorNotReady) << "the stream was still held";
    gate.open();
  }
  sync();
  EXPECT_TRUE(all_equal(y, stream_, n, 2.0f)) << "the axpy queued before the free read x intact";
  EXPECT_GPUOPT_OK(gpuopt_buffer_destroy(y));
}

// A buffer still read by a kernel on another stream: the caller orders that stream's work before
// the free (an event), as with cudaFreeAsync; the free returns at once, and memory allocated and
// written meanwhile never lands on the buffer while it is read.
TEST_F(Memory, DestroyAsyncAfterAnEventOfAnotherStreamIsSafe) {
  if (!has_memory_pools()) GTEST_SKIP() << "no memory pools: destroy_async frees synchronously";
  constexpr size_t n = 1 << 20;
  gpuopt_stream_t other = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_stream_create(ctx_, &other));
  gpuopt_buffer_t x = filled_buffer(ctx_, stream_, n, 1.0f);
  gpuopt_buffer_t y = filled_buffer(ctx_, stream_, n, 0.0f);
  gpuopt_buffer_t z = nullptr;
  cudaEvent_t read = nullptr;
  ASSERT_CUDA_OK(cudaEventCreateWithFlags(&read, cudaEventDisableTiming));
  warm_up(ctx_, stream_, x, y);
  {
    StreamGate gate(native(stream_));
    ASSERT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, n, 3.0, device_pointer(x), 1,
                                 device_pointer(y), 1));
    ASSERT_CUDA_OK(cudaEventRecord(read, native(stream_)));
    ASSERT_CUDA_OK(cudaStreamWaitEvent(native(other), read, 0));
    EXPECT_GPUOPT_OK(
        returns_while_held(gate, [&] { return gpuopt_buffer_destroy_async(x, other); }));
    // New memory of the same size, written on a third (the legacy) stream right away.
    EXPECT_GPUOPT_OK(gpuopt_buffer_create(ctx_, n * sizeof(float), GPUOPT_MEMORY_DEVICE, &z));
    EXPECT_CUDA_OK(cudaMemset(device_pointer(z), 0xff, n * sizeof(float)));
    EXPECT_EQ(cudaStreamQuery(native(stream_)), cudaErrorNotReady) << "the stream was still held";
    gate.open();
  }
  sync();
  ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(other));
  EXPECT_TRUE(all_equal(y, stream_, n, 3.0f)) << "x was read intact after its free was enqueued";
  EXPECT_CUDA_OK(cudaEventDestroy(read));
  EXPECT_GPUOPT_OK(gpuopt_buffer_destroy(z));
  EXPECT_GPUOPT_OK(gpuopt_buffer_destroy(y));
  EXPECT_GPUOPT_OK(gpuopt_stream_destroy(other));
}

// With the caller's allocator the free is deferred, not waited for: deallocate runs (with a NULL
// stream: nothing uses the block any more) once the stream's work is done, at the context's next
// buffer call; every allocation is still seen freed exactly once (TearDown).
TEST_F(Memory, DestroyAsyncDefersTheAllocatorsFreeUntilTheStreamIsDone) {
  constexpr size_t n = 1 << 16;
  gpuopt_stream_t s = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_stream_create(counted_, &s));
  gpuopt_buffer_t x = filled_buffer(counted_, s, n, 1.0f);
  gpuopt_buffer_t y = filled_buffer(counted_, s, n, 0.0f);
  warm_up(counted_, s, x, y);
  const int before = counter_.freed();
  {
    StreamGate gate(native(s));
    ASSERT_GPUOPT_OK(gpuopt_axpy(counted_, s, GPUOPT_DTYPE_F32, n, 1.0, device_pointer(x), 1,
                                 device_pointer(y), 1));
    EXPECT_GPUOPT_OK(returns_while_held(gate, [&] { return gpuopt_buffer_destroy_async(x, s); }));
    EXPECT_EQ(counter_.freed(), before) << "not given back while the stream may still read it";
    gate.open();
  }
  ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(s));
  EXPECT_TRUE(all_equal(y, s, n, 1.0f));
  gpuopt_buffer_t again = nullptr;  // a buffer call reaps what is done
  ASSERT_GPUOPT_OK(gpuopt_buffer_create(counted_, 256, GPUOPT_MEMORY_DEVICE, &again));
  EXPECT_EQ(counter_.freed(), before + 1) << "given back at the next buffer call";
  EXPECT_FALSE(counter_.stream_given);
  // Still pending at context destroy: waited for there (TearDown checks the balance).
  EXPECT_GPUOPT_OK(gpuopt_buffer_destroy_async(again, s));
  EXPECT_GPUOPT_OK(gpuopt_buffer_destroy(y));
  EXPECT_GPUOPT_OK(gpuopt_stream_destroy(s));
}

// Not on a stream being captured: the free would have to become a graph node. Refused with the
// buffer intact, and the capture goes on.
TEST_F(Memory, DestroyAsyncIsRefusedDuringCapture) {
  constexpr size_t n = 1024;
  gpuopt_buffer_t x = filled_buffer(ctx_, stream_, n, 1.0f);
  gpuopt_buffer_t y = filled_buffer(ctx_, stream_, n, 0.0f);
  ASSERT_GPUOPT_OK(gpuopt_graph_begin(ctx_, stream_));
  EXPECT_GPUOPT_OK(gpuopt_axpy(ctx_, stream_, GPUOPT_DTYPE_F32, n, 1.0, device_pointer(x), 1,
                               device_pointer(y), 1));
  EXPECT_STATUS(GPUOPT_ERROR_CAPTURE_ILLEGAL, gpuopt_buffer_destroy_async(x, stream_));
  gpuopt_graph_t g = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_graph_end(stream_, &g));
  EXPECT_GPUOPT_OK(gpuopt_graph_destroy(g));
  size_t bytes = 0;
  EXPECT_GPUOPT_OK(gpuopt_buffer_size(x, &bytes));
  EXPECT_GPUOPT_OK(gpuopt_buffer_destroy_async(x, stream_));
  EXPECT_GPUOPT_OK(gpuopt_buffer_destroy_async(y, stream_));
  sync();
}

}  // namespace
