// A context's cache of validated allocation ranges: an op's pointer checks (check_device_range)
// answer a hit without cudaPointerGetAttributes and cuMemGetAddressRange.
//
// What is cached, and why a hit cannot give a wrong answer:
//   - owned entries: gpuopt's own buffers of the context (device, mapped, compressible), added
//     at creation and erased by gpuopt_buffer_destroy before the memory is freed. Their range,
//     memory type and device are gpuopt's to know while the buffer lives: a hit needs no driver
//     call at all.
//   - foreign entries: device or managed allocations of the caller (cudaMalloc, a framework's
//     pool), with the process-unique buffer ID the driver gave the allocation
//     (CU_POINTER_ATTRIBUTE_BUFFER_ID, never reused within a process). A hit re-reads the ID of
//     the pointer (one cuPointerGetAttribute call instead of the two queries): memory freed by the
//     caller and reallocated, as anything, at the same address has another ID (or none), so the
//     stale entry is dropped and the full query runs. One call reads an allocation's ID once
//     for all of its operands inside it (CallVerified, context.hpp: tensors of one framework
//     pool segment), never once for several calls. Pageable and pinned host memory is never
//     cached (the full query rejects or accepts it each time).
//   - in GPUOPT_POINTER_CHECKS_CACHED mode (gpuopt_context_set_pointer_checks) a foreign hit is
//     trusted without re-reading the ID: no driver call, as cuBLAS checks nothing. The extent is
//     still checked against the cached range; what is lost is the detection of memory the caller
//     freed after it was cached (erase_foreign, gpuopt_context_forget_pointers, starts afresh).
//   - a hit whose extent check fails is not trusted either: the full query decides, so the
//     cache can never turn a valid call into an error. A pool that re-carves one driver
//     allocation keeps its ID; the cached extent is then that of the driver allocation, exactly
//     what the full query (cuMemGetAddressRange) answers.
// Bounded (kSlots entries, replaced round-robin). Threads of one context validate concurrently:
// lookups, on every operand of every call, take no lock (a sequence lock: a reader retries when
// a writer ran meanwhile); inserts and erases (misses, buffer create and destroy) are serialized
// by a mutex.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

namespace gpuopt {

class RangeCache {
 public:
  static constexpr int kSlots = 32;
  struct Entry {
    std::uintptr_t base = 0, end = 0;  // [base, end); end == 0: empty slot
    unsigned long long id = 0;         // driver buffer ID (foreign entries)
    bool owned = false;                // a gpuopt buffer of this context
  };

  // The entry whose range holds p, copied to *out.
  bool find(std::uintptr_t p, Entry* out) const;
  // Adds e, replacing an entry with the same base, else the next slot round-robin.
  void insert(const Entry& e);
  // Drops the entry starting at base (a gpuopt buffer being destroyed, a stale foreign range).
  void erase(std::uintptr_t base);
  // Drops every foreign entry (gpuopt_context_forget_pointers); owned entries stay.
  void erase_foreign();

 private:
  // An entry in atomics, so that a lookup racing a writer reads no torn value (it retries).
  struct Slot {
    std::atomic<std::uintptr_t> base{0}, end{0};
    std::atomic<unsigned long long> id{0};
    std::atomic<bool> owned{false};
  };
  void store(Slot& s, const Entry& e);  // under mu_, inside a write section

  std::mutex mu_;                      // writers
  std::atomic<std::uint64_t> seq_{0};  // odd while a writer changes slots
  std::array<Slot, kSlots> slots_{};
  int next_ = 0;
};

}  // namespace gpuopt
