#include "runtime/context.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>

#include "runtime/deviceless.hpp"
#include "runtime/driver.hpp"
#include "runtime/error.hpp"
#include "runtime/handles.hpp"

namespace gpuopt {

gpuopt_status_t check_context(const char* fn, gpuopt_context_t ctx, const char* arg) {
  return check_handle(fn, ctx, HandleKind::context, arg);
}

gpuopt_status_t make_current(const char* fn, const Context& ctx) {
  if (deviceless_active()) return GPUOPT_SUCCESS;
  // The per-call case: the calling thread's current context is the device's primary context, so
  // the runtime's current device is ctx.device (the runtime follows the driver's current
  // context). One thread-local read in the driver instead of cudaGetDevice (docs/notes/latency.md).
  if (ctx.primary) {
    const auto get_current = driver_api().cuCtxGetCurrent;
    CUcontext now = nullptr;
    if (get_current && get_current(&now) == CUDA_SUCCESS && now == ctx.primary)
      return GPUOPT_SUCCESS;
  }
  int cur = -1;
  if (cudaGetDevice(&cur) != cudaSuccess || cur != ctx.device)
    GPUOPT_TRY_CUDA(cudaSetDevice(ctx.device), fn, "cudaSetDevice");
  return GPUOPT_SUCCESS;
}

void* primary_context_of(int device) {
  const DriverApi& d = driver_api();
  if (!d.cuDeviceGet || !d.cuDevicePrimaryCtxRetain || !d.cuDevicePrimaryCtxRelease) return nullptr;
  CUdevice dev = 0;
  CUcontext primary = nullptr;
  if (d.cuDeviceGet(&dev, device) != CUDA_SUCCESS ||
      d.cuDevicePrimaryCtxRetain(&primary, dev) != CUDA_SUCCESS)
    return nullptr;
  d.cuDevicePrimaryCtxRelease(dev);  // the runtime keeps its own reference
  return primary;
}

bool in_compressible_range(Context& ctx, const void* p, std::size_t bytes) {
  if (ctx.compressible_count.load(std::memory_order_acquire) == 0) return false;
  auto b = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard<std::mutex> lock(ctx.compressible_mu);
  for (const auto& r : ctx.compressible_ranges)
    if (b >= r.first && b + bytes <= r.second) return true;
  return false;
}

void add_compressible_range(Context& ctx, const void* p, std::size_t bytes) {
  auto b = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard<std::mutex> lock(ctx.compressible_mu);
  ctx.compressible_ranges.emplace_back(b, b + bytes);
  ctx.compressible_count.store(static_cast<int>(ctx.compressible_ranges.size()),
                               std::memory_order_release);
}

void remove_compressible_range(Context& ctx, const void* p) {
  auto b = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard<std::mutex> lock(ctx.compressible_mu);
  auto& v = ctx.compressible_ranges;
  v.erase(std::remove_if(v.begin(), v.end(), [b](const auto& r) { return r.first == b; }), v.end());
  ctx.compressible_count.store(static_cast<int>(v.size()), std::memory_order_release);
}

void remember_owned_range(Context& ctx, const void* p, std::size_t bytes) {
  if (!p || !bytes) return;
  RangeCache::Entry e;
  e.base = reinterpret_cast<std::uintptr_t>(p);
  e.end = e.base + bytes;
  e.owned = true;
  ctx.ranges.insert(e);
}

void forget_range(Context& ctx, const void* p) {
  if (p) ctx.ranges.erase(reinterpret_cast<std::uintptr_t>(p));
}

namespace {

// The driver's buffer ID of the allocation holding p (0: unknown).
unsigned long long buffer_id(const DriverApi& drv, const void* p) {
  if (deviceless_active()) return deviceless_buffer_id(p);
  unsigned long long id = 0;
  if (!drv.cuPointerGetAttribute ||
      drv.cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID,
                                reinterpret_cast<CUdeviceptr>(p)) != CUDA_SUCCESS)
    return 0;
  return id;
}

// Caches a foreign allocation [base, end) the full query accepted, under its buffer ID.
void remember_foreign_range(Context& ctx, std::uintptr_t base, std::uintptr_t end,
                            unsigned long long id) {
  if (!id || end <= base) return;
  RangeCache::Entry e;
  e.base = base;
  e.end = end;
  e.id = id;
  ctx.ranges.insert(e);
}

// Notes an allocation this call verified (when the op keeps a CallVerified).
void note_verified(CallVerified* verified, std::uintptr_t base, unsigned long long id) {
  if (verified && id) verified->add(base, id);
}

// A cached answer for [p, p + bytes): true when the cache vouches for it. A foreign entry is
// re-read by buffer ID in full mode (a stale one is dropped), unless this call verified its
// allocation already, and trusted in cached mode; a failing extent is left to the full query
// (the cache never makes an error).
bool cached_ok(Context& ctx, const DriverApi& drv, const void* p, std::size_t bytes,
               CallVerified* verified) {
  const auto b = reinterpret_cast<std::uintptr_t>(p);
  RangeCache::Entry e;
  if (!ctx.ranges.find(b, &e)) return false;
  if (!e.owned &&
      ctx.pointer_checks.load(std::memory_order_relaxed) != GPUOPT_POINTER_CHECKS_CACHED &&
      !(verified && verified->holds(e.base, e.id))) {
    if (buffer_id(drv, p) != e.id) {
      ctx.ranges.erase(e.base);
      return false;
    }
    note_verified(verified, e.base, e.id);
  }
  return bytes <= e.end - b;
}

}  // namespace

bool CallVerified::holds(std::uintptr_t base, unsigned long long id) const {
  for (int i = 0; i < count_; ++i)
    if (base_[i] == base && id_[i] == id) return true;
  return false;
}

void CallVerified::add(std::uintptr_t base, unsigned long long id) {
  if (count_ == kMax || holds(base, id)) return;
  base_[count_] = base;
  id_[count_] = id;
  ++count_;
}

gpuopt_status_t check_device_range(const char* fn, const char* arg, Context& ctx, const void* p,
                                   std::size_t bytes, CallVerified* verified) {
  const DriverApi& drv = driver_api();
  if (cached_ok(ctx, drv, p, bytes, verified)) return GPUOPT_SUCCESS;
  if (deviceless_active()) {
    DevicelessAllocation a;
    const gpuopt_status_t st = deviceless_check_range(fn, arg, ctx.device, p, bytes, &a);
    remember_foreign_range(ctx, a.base, a.end, a.id);
    if (st == GPUOPT_SUCCESS) note_verified(verified, a.base, a.id);
    return st;
  }
  cudaPointerAttributes attr{};
  cudaError_t err = cudaPointerGetAttributes(&attr, p);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "%s (%p) is not a CUDA-accessible pointer: %s",
                arg, p, cudaGetErrorString(err));
  }
  switch (attr.type) {
    case cudaMemoryTypeUnregistered:
      return not_device_accessible(fn, arg, p);
    case cudaMemoryTypeHost:
      if (!attr.devicePointer)
        return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                    "%s (%p) is pinned host memory that is not mapped into the device", arg, p);
      return GPUOPT_SUCCESS;  // the driver gives no extent for host allocations
    case cudaMemoryTypeDevice:
      if (attr.device != ctx.device)
        return fail(GPUOPT_ERROR_WRONG_DEVICE, fn,
                    "%s (%p) is memory of device %d; the context is on device %d", arg, p,
                    attr.device, ctx.device);
      break;
    case cudaMemoryTypeManaged:
      break;
  }
  if (!drv.cuMemGetAddressRange) return GPUOPT_SUCCESS;
  CUdeviceptr base = 0;
  size_t size = 0;
  CUresult r = drv.cuMemGetAddressRange(&base, &size, reinterpret_cast<CUdeviceptr>(p));
  if (r != CUDA_SUCCESS) return GPUOPT_SUCCESS;  // extent unknown (e.g. some VMM mappings)
  // Device or managed memory with a known extent: cached under its buffer ID (range_cache.hpp).
  const unsigned long long id = buffer_id(drv, p);
  remember_foreign_range(ctx, static_cast<std::uintptr_t>(base),
                         static_cast<std::uintptr_t>(base) + size, id);
  const gpuopt_status_t st =
      check_extent(fn, arg, p, bytes, static_cast<std::uintptr_t>(base), size);
  if (st == GPUOPT_SUCCESS) note_verified(verified, static_cast<std::uintptr_t>(base), id);
  return st;
}

gpuopt_status_t not_device_accessible(const char* fn, const char* arg, const void* p) {
  return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
              "%s (%p) is not device-accessible: it is pageable host memory or no allocation "
              "at all; pass device, managed or mapped pinned memory",
              arg, p);
}

gpuopt_status_t check_extent(const char* fn, const char* arg, const void* p, std::size_t bytes,
                             std::uintptr_t base, std::size_t size) {
  auto begin = reinterpret_cast<std::uintptr_t>(p);
  std::uintptr_t end_alloc = base + size;
  if (bytes > end_alloc - begin)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "%s (%p) needs %zu bytes but its allocation ends %zu bytes after it", arg, p, bytes,
                static_cast<size_t>(end_alloc - begin));
  return GPUOPT_SUCCESS;
}

gpuopt_status_t check_device_operand(const char* fn, const char* arg, Context& ctx, const void* p,
                                     std::size_t align, std::size_t bytes, CallVerified* verified) {
  if (!p) return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "%s is NULL", arg);
  if (align > 1 && reinterpret_cast<std::uintptr_t>(p) % align)
    return fail(GPUOPT_ERROR_MISALIGNED, fn, "%s (%p) is not aligned to its %zu-byte elements", arg,
                p, align);
  return check_device_range(fn, arg, ctx, p, bytes, verified);
}

gpuopt_status_t check_workspace(const char* fn, const char* query, Context& ctx, void* workspace,
                                std::size_t workspace_bytes, std::size_t need,
                                CallVerified* verified) {
  if (workspace_bytes < need)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "workspace_bytes is %zu; this problem needs %zu (%s)", workspace_bytes, need,
                query);
  if (need == 0) return GPUOPT_SUCCESS;
  return check_device_operand(fn, "workspace", ctx, workspace, 256, need, verified);
}

gpuopt_status_t check_disjoint(const char* fn, const char* a_name, const void* a,
                               std::size_t a_bytes, const char* b_name, const void* b,
                               std::size_t b_bytes) {
  if (!a || !b || !a_bytes || !b_bytes) return GPUOPT_SUCCESS;
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  if (x < y + b_bytes && y < x + a_bytes)
    return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn,
                "%s and %s overlap; outputs must not overlap the inputs, each other or the "
                "workspace",
                a_name, b_name);
  return GPUOPT_SUCCESS;
}

}  // namespace gpuopt
