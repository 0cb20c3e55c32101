#include "runtime/deviceless.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "runtime/context.hpp"
#include "runtime/device.hpp"
#include "runtime/error.hpp"

namespace gpuopt {
namespace {

struct Range {
  std::uintptr_t end;
  int device;
  unsigned long long id;  // the fake driver buffer ID: process-unique, never reused
};

constexpr std::uintptr_t kFakeBase = std::uintptr_t{1} << 45;  // fake device addresses: 32 TiB up

struct State {
  std::atomic<bool> on{false};
  std::mutex mu;
  std::vector<gpuopt_device_info_t> devices;
  std::map<std::uintptr_t, Range> ranges;  // begin -> (end, device)
  std::uintptr_t next = kFakeBase;
  unsigned long long next_id = 1;
  std::atomic<std::uint64_t> queries{0};  // fake driver queries (deviceless_driver_queries)
};

State& state() {
  static State* s = new State;  // never destroyed: handles may outlive static destruction
  return *s;
}

constexpr std::size_t kMaxFakeBytes = std::size_t{1} << 40;

gpuopt_device_info_t fake_device(const char* name, int cc, int sms, std::size_t smem_optin) {
  gpuopt_device_info_t d;
  std::memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  std::snprintf(d.name, sizeof d.name, "%s", name);
  const DeviceDesc desc = synthetic_device(cc, sms);
  d.cc_major = cc / 10;
  d.cc_minor = cc % 10;
  d.sm_count = sms;
  d.max_threads_per_sm = desc.max_threads_per_sm;
  d.total_memory = std::size_t{80} << 30;
  d.l2_cache_bytes = desc.l2_bytes;
  d.shared_memory_per_block_optin = smem_optin;
  d.shared_memory_per_sm = smem_optin + 1024;
  d.supports_clusters = cc >= 90;
  d.supports_tma = cc >= 90;
  d.supports_compression = 0;
  d.supports_mapped_memory = 1;
  return d;
}

}  // namespace

bool deviceless_active() { return state().on.load(std::memory_order_relaxed); }

void deviceless_enable(const gpuopt_device_info_t* devices, int count) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.devices.assign(devices, devices + (count > 0 ? count : 0));
  for (std::size_t i = 0; i < s.devices.size(); ++i) s.devices[i].device = static_cast<int>(i);
  s.ranges.clear();
  s.next = kFakeBase;
  s.on.store(true);
}

void deviceless_disable() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.on.store(false);
  s.devices.clear();
  s.ranges.clear();
}

gpuopt_device_info_t deviceless_h200() { return fake_device("fake H200", 90, 132, 232448); }
gpuopt_device_info_t deviceless_a100() { return fake_device("fake A100", 80, 108, 166912); }

gpuopt_status_t deviceless_device_info(const char* fn, int device, gpuopt_device_info_t* info) {
  State& s = state();
  gpuopt_device_info_t d;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.devices.empty())
      return fail(GPUOPT_ERROR_NO_DEVICE, fn, "device-less mode with no fake device");
    if (device < 0 || static_cast<std::size_t>(device) >= s.devices.size())
      return fail(GPUOPT_ERROR_INVALID_ARGUMENT, fn, "device is %d; expected 0 <= device < %zu",
                  device, s.devices.size());
    d = s.devices[static_cast<std::size_t>(device)];
  }
  return copy_sized_struct(fn, "info", &d, sizeof d, info);
}

gpuopt_status_t deviceless_allocate(const char* fn, int device, std::size_t bytes, void** out) {
  if (bytes > kMaxFakeBytes)
    return fail(GPUOPT_ERROR_OUT_OF_MEMORY, fn,
                "device-less mode: %zu bytes exceed the fake device's memory", bytes);
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.ranges.empty()) s.next = kFakeBase;  // long fuzz runs never exhaust the address space
  const std::uintptr_t begin = s.next;
  s.next += (bytes + 4096 + 255) / 256 * 256;  // a gap after each allocation
  s.ranges[begin] = Range{begin + bytes, device, s.next_id++};
  *out = reinterpret_cast<void*>(begin);
  return GPUOPT_SUCCESS;
}

void deviceless_free(const void* p) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.ranges.erase(reinterpret_cast<std::uintptr_t>(p));
}

unsigned long long deviceless_buffer_id(const void* p) {
  State& s = state();
  s.queries.fetch_add(1, std::memory_order_relaxed);
  const auto b = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.ranges.upper_bound(b);
  if (it == s.ranges.begin()) return 0;
  --it;
  return b < it->second.end ? it->second.id : 0;
}

std::uint64_t deviceless_driver_queries() {
  return state().queries.load(std::memory_order_relaxed);
}

gpuopt_status_t deviceless_check_range(const char* fn, const char* arg, int device, const void* p,
                                       std::size_t bytes, DevicelessAllocation* found) {
  State& s = state();
  s.queries.fetch_add(1, std::memory_order_relaxed);
  const auto b = reinterpret_cast<std::uintptr_t>(p);
  std::uintptr_t base = 0;
  Range r{0, 0, 0};
  {
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.ranges.upper_bound(b);
    if (it == s.ranges.begin()) return not_device_accessible(fn, arg, p);
    --it;
    if (b >= it->second.end && !(b == it->first && it->second.end == it->first))
      return not_device_accessible(fn, arg, p);
    base = it->first;
    r = it->second;
  }
  if (r.device != device)
    return fail(GPUOPT_ERROR_WRONG_DEVICE, fn,
                "%s (%p) is memory of device %d; the context is on device %d", arg, p, r.device,
                device);
  *found = DevicelessAllocation{base, r.end, r.id};
  return check_extent(fn, arg, p, bytes, base, r.end - base);
}

gpuopt_status_t deviceless_stop(const char* fn, const char* what) {
  return fail(GPUOPT_ERROR_NO_DEVICE, fn,
              "device-less mode (test seam): validation passed; %s was not called", what);
}

}  // namespace gpuopt
