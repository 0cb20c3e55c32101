#include "runtime/handles.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace gpuopt {
namespace {

struct Registry {
  std::shared_mutex mu;
  std::unordered_map<const void*, HandleKind> live;
  // Bumped by every unregister: a thread's memo of live handles (below) is only trusted while it
  // has not changed. Registering makes no live handle dead, so it leaves the generation alone.
  std::atomic<std::uint64_t> generation{1};
};

// Per thread, the last handles found live, with the generation they were found in. An op checks
// its context and stream on every call: with the memo that costs one atomic load and a compare
// instead of a shared lock and a hash lookup. A handle destroyed since (by any thread) has bumped
// the generation, so the memo is never trusted past a destroy; a new handle at a destroyed one's
// address is found through the registry again.
struct Memo {
  static constexpr int kSlots = 4;
  const void* p[kSlots] = {};
  HandleKind kind[kSlots] = {};
  std::uint64_t generation = 0;  // of every slot; 0: empty
  int next = 0;
};
thread_local Memo memo;

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: handles may be freed at exit
  return *r;
}

}  // namespace

const char* handle_kind_name(HandleKind kind) {
  switch (kind) {
    case HandleKind::context:
      return "gpuopt_context_t";
    case HandleKind::stream:
      return "gpuopt_stream_t";
    case HandleKind::buffer:
      return "gpuopt_buffer_t";
    case HandleKind::graph:
      return "gpuopt_graph_t";
    case HandleKind::comm:
      return "gpuopt_comm_t";
    case HandleKind::grid:
      return "gpuopt_grid_t";
  }
  return "handle";
}

void handle_register(const void* p, HandleKind kind) {
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mu);
  r.live[p] = kind;
}

void handle_unregister(const void* p) {
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mu);
  r.live.erase(p);
  r.generation.fetch_add(1, std::memory_order_acq_rel);
}

bool handle_is_live(const void* p, HandleKind kind) {
  if (!p) return false;
  Registry& r = registry();
  const std::uint64_t g = r.generation.load(std::memory_order_acquire);
  Memo& m = memo;
  if (m.generation == g) {
    for (int i = 0; i < Memo::kSlots; ++i)
      if (m.p[i] == p && m.kind[i] == kind) return true;
  } else {
    m = Memo{};
    m.generation = g;
  }
  bool live = false;
  {
    std::shared_lock<std::shared_mutex> lock(r.mu);
    auto it = r.live.find(p);
    live = it != r.live.end() && it->second == kind;
  }
  // Remembered under g, read before the lookup: a destroy in between has already moved the
  // generation on, so the slot is never trusted for it.
  if (live) {
    m.p[m.next] = p;
    m.kind[m.next] = kind;
    m.next = (m.next + 1) % Memo::kSlots;
  }
  return live;
}

}  // namespace gpuopt

#include "runtime/error.hpp"

namespace gpuopt {
gpuopt_status_t check_handle(const char* fn, const void* p, HandleKind kind, const char* arg) {
  if (!p)
    return fail(GPUOPT_ERROR_INVALID_HANDLE, fn, "%s is NULL; expected a live %s", arg,
                handle_kind_name(kind));
  if (!handle_is_live(p, kind))
    return fail(GPUOPT_ERROR_INVALID_HANDLE, fn,
                "%s (%p) is not a live %s: destroyed, never created, or another kind of handle",
                arg, p, handle_kind_name(kind));
  return GPUOPT_SUCCESS;
}
}  // namespace gpuopt
