// Device-less mode: a test-only seam that lets the fuzzer and host unit tests drive every entry
// point's validation on a machine without a GPU, with no CUDA call reached. Off unless
// deviceless_enable() is called; these functions are hidden (not in the exported ABI), so only
// code linked against gpuopt_internal can turn it on. See docs/design.md ("Device-less mode").
//
// While it is on:
//   - gpuopt_context_create(device) describes fake device `device` (the table given to enable)
//     and skips the CUDA initialisation; make_current() answers success without cudaSetDevice;
//   - gpuopt_stream_create / _wrap make a stream with no CUDA stream, cuBLAS handle or workspace;
//   - buffer allocation hands out address ranges of a fake allocator (no memory behind them),
//     (each with a fake driver buffer ID) and check_device_range() answers from the context's
//     range cache and that allocator's table, as it does from the cache and the driver;
//   - run_dispatched() chooses the variant and returns before the launch;
//   - every GPUOPT_TRY_CUDA site answers GPUOPT_ERROR_NO_DEVICE ("device-less mode") instead of
//     calling CUDA (copies, synchronisation, graph instantiation, ...).
#pragma once
#include <cstddef>
#include <cstdint>

#include "gpuopt.h"

namespace gpuopt {

// True while device-less mode is on (one relaxed atomic load).
bool deviceless_active();

// Turns device-less mode on with `count` fake devices (ordinal i described by devices[i]; only
// the fields gpuopt_device_info_t documents are used) and an empty allocator table.
void deviceless_enable(const gpuopt_device_info_t* devices, int count);
// Turns it off and forgets the fake allocations.
void deviceless_disable();

// A fake device modelled on an H200 (cc 9.0, 132 SMs) or an A100 (cc 8.0, 108 SMs).
gpuopt_device_info_t deviceless_h200();
gpuopt_device_info_t deviceless_a100();

// Fake device `device`, or INVALID_ARGUMENT / NO_DEVICE as the real query would answer.
gpuopt_status_t deviceless_device_info(const char* fn, int device, gpuopt_device_info_t* info);

// Fake allocator: reserves `bytes` (256-byte aligned) of device `device`'s fake address space.
// Answers OUT_OF_MEMORY past 1 TiB per allocation, like a device that cannot hold it.
gpuopt_status_t deviceless_allocate(const char* fn, int device, std::size_t bytes, void** out);
void deviceless_free(const void* p);

// The fake allocation a successful deviceless_check_range found: [base, end) and its buffer ID.
struct DevicelessAllocation {
  std::uintptr_t base = 0, end = 0;
  unsigned long long id = 0;
};

// check_device_range's full query against the fake allocator table (*found: the allocation,
// filled when the pointer is on the context's device).
gpuopt_status_t deviceless_check_range(const char* fn, const char* arg, int device, const void* p,
                                       std::size_t bytes, DevicelessAllocation* found);
// The buffer ID of the fake allocation holding p (0: none), as cuPointerGetAttribute(BUFFER_ID).
unsigned long long deviceless_buffer_id(const void* p);
// How many fake driver queries (full checks and buffer-ID reads) ran since the process started:
// what a test counts to tell a cached answer from a checked one.
std::uint64_t deviceless_driver_queries();

// The answer of a CUDA call site in device-less mode.
gpuopt_status_t deviceless_stop(const char* fn, const char* what);

}  // namespace gpuopt
