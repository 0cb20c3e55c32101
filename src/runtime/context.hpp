// The context: one device, its description, the per-op forced and last-chosen variants, the
// ranges of compressible memory it handed out (variants prefer block-tiled access there), its
// allocator, its pool of stream resources, its cache of validated pointer ranges, its
// stream-ordered allocation state and its tuning cache.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "allocator.hpp"
#include "device.hpp"
#include "gpuopt.h"
#include "ordered_memory.hpp"
#include "range_cache.hpp"
#include "registry.hpp"
#include "stream_resources.hpp"
#include "tune_cache.hpp"

struct gpuopt_context_s {
  int device = 0;
  // The device's primary context (a CUcontext; nullptr without the driver entries): make_current
  // answers from one cuCtxGetCurrent when it is current. Set at creation, never changed.
  void* primary = nullptr;
  gpuopt_device_info_t info{};
  gpuopt::DeviceDesc desc{};
  std::array<std::atomic<int>, gpuopt::kOpCount> forced{};  // packed choice; -1: auto
  std::array<std::atomic<int>, gpuopt::kOpCount> last{};    // -1: none yet
  std::atomic<int> live_objects{0};                         // streams, buffers, graphs

  std::mutex compressible_mu;
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> compressible_ranges;  // [begin, end)
  std::atomic<int> compressible_count{0};

  gpuopt::Allocator allocator;  // gpuopt_context_set_allocator (set while no object lives)
  gpuopt::ResourcePool pool;    // idle stream resources (stream_resources.hpp)
  gpuopt::RangeCache ranges;    // validated pointer ranges (range_cache.hpp)
  std::atomic<int> pointer_checks{GPUOPT_POINTER_CHECKS_FULL};  // gpuopt_pointer_checks_t
  gpuopt::OrderedMemory ordered;  // stream-ordered device buffers (ordered_memory.hpp)
  gpuopt::TuneCache tune;         // tuning cache (tune_cache.hpp; gpuopt_context_set_tune_cache)
};

namespace gpuopt {

using Context = gpuopt_context_s;

// Validates a context handle argument.
gpuopt_status_t check_context(const char* fn, gpuopt_context_t ctx, const char* arg = "ctx");

// Makes the context's device current for the calling thread (cheap when it already is: one
// cuCtxGetCurrent compared with ctx.primary; else cudaGetDevice, and cudaSetDevice when the
// device differs).
gpuopt_status_t make_current(const char* fn, const Context& ctx);

// The primary context (CUcontext) of `device`, or nullptr when the driver cannot name it. The
// handle is only compared, never used to launch: the runtime holds the context itself.
void* primary_context_of(int device);

// True when [p, p + bytes) lies inside a compressible buffer of this context that the driver
// really compressed.
bool in_compressible_range(Context& ctx, const void* p, std::size_t bytes);
void add_compressible_range(Context& ctx, const void* p, std::size_t bytes);
void remove_compressible_range(Context& ctx, const void* p);

// Records [p, p + bytes) as a gpuopt buffer of the context (a range-cache entry trusted with no
// driver query) / forgets it before the buffer's memory is freed.
void remember_owned_range(Context& ctx, const void* p, std::size_t bytes);
void forget_range(Context& ctx, const void* p);

// GPUOPT_POINTER_CHECKS=full|cached from the environment (secure_getenv) into ctx.pointer_checks;
// any other value is logged and leaves the default (api_pointer_checks.cpp).
void apply_env_pointer_checks(Context& ctx);

// The caller's allocations one API call has verified (full pointer checks: a full query or a
// buffer-ID re-read in this call): a further operand of the same call inside one of them, such as
// tensors a framework carved from one pool segment, is answered without another driver query. It
// lives on the stack of one call and is never kept across calls, so the promise of full checks
// (memory freed or reallocated since an earlier call is refused) is unchanged: nothing can be
// freed between two operand checks of one call that would not race the call's launch as well.
class CallVerified {
 public:
  bool holds(std::uintptr_t base, unsigned long long id) const;
  // Remembers [base, ...) under id; past kMax allocations the call just queries again.
  void add(std::uintptr_t base, unsigned long long id);

 private:
  static constexpr int kMax = 4;
  std::uintptr_t base_[kMax] = {};
  unsigned long long id_[kMax] = {};
  int count_ = 0;
};

// Validates that [p, p + bytes) is memory the context's device can access: device memory of this
// device (cudaMalloc, VMM, pools), managed memory, or mapped host memory. Pageable host pointers,
// other devices' memory and ranges running past their allocation are answered with a status and
// a message naming fn and arg. Answers from the context's range cache where it can
// (range_cache.hpp says why that is safe, and what GPUOPT_POINTER_CHECKS_CACHED trusts). An op
// that checks several operands passes one CallVerified for all of them (see above).
gpuopt_status_t check_device_range(const char* fn, const char* arg, Context& ctx, const void* p,
                                   std::size_t bytes, CallVerified* verified = nullptr);

// An operand of an op: not NULL (INVALID_ARGUMENT), aligned to `align` bytes (MISALIGNED), and a
// device-accessible range of `bytes` (check_device_range), each answer naming fn and arg.
gpuopt_status_t check_device_operand(const char* fn, const char* arg, Context& ctx, const void* p,
                                     std::size_t align, std::size_t bytes,
                                     CallVerified* verified = nullptr);

// A caller workspace (the ops with a *_workspace_size query): at least `need` bytes
// (INVALID_ARGUMENT naming workspace_bytes and the query), and when need > 0 a 256-byte-aligned
// device range (check_device_operand on "workspace").
gpuopt_status_t check_workspace(const char* fn, const char* query, Context& ctx, void* workspace,
                                std::size_t workspace_bytes, std::size_t need,
                                CallVerified* verified = nullptr);

// INVALID_ARGUMENT naming both when [a, a + a_bytes) and [b, b + b_bytes) overlap (NULL or empty
// ranges never do).
gpuopt_status_t check_disjoint(const char* fn, const char* a_name, const void* a,
                               std::size_t a_bytes, const char* b_name, const void* b,
                               std::size_t b_bytes);

// The two verdicts check_device_range shares with the device-less allocator table: p is no
// device-accessible memory; [p, p + bytes) runs past its allocation [base, base + size).
gpuopt_status_t not_device_accessible(const char* fn, const char* arg, const void* p);
gpuopt_status_t check_extent(const char* fn, const char* arg, const void* p, std::size_t bytes,
                             std::uintptr_t base, std::size_t size);

}  // namespace gpuopt
