#include "runtime/handles.hpp"

#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace gpuopt {
namespace {

struct Registry {
  std::shared_mutex mu;
  std::unordered_map<const void*, HandleKind> live;
};

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
}

bool handle_is_live(const void* p, HandleKind kind) {
  if (!p) return false;
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mu);
  auto it = r.live.find(p);
  return it != r.live.end() && it->second == kind;
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
