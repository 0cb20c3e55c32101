// Registry of live handles: a stale, foreign or wrong-kind pointer is answered
// GPUOPT_ERROR_INVALID_HANDLE without ever being dereferenced.
#pragma once
#include <cstdint>

namespace gpuopt {

enum class HandleKind : std::uint8_t { context, stream, buffer, graph, comm, grid };

const char* handle_kind_name(HandleKind kind);

// Records p as a live handle of kind. Throws std::bad_alloc on host OOM.
void handle_register(const void* p, HandleKind kind);

// Forgets p; later lookups of it fail.
void handle_unregister(const void* p);

// True when p is a live handle of kind.
bool handle_is_live(const void* p, HandleKind kind);

}  // namespace gpuopt

#include "gpuopt.h"

namespace gpuopt {
// INVALID_HANDLE with "fn: arg is NULL / is not a live <kind> (destroyed, foreign or another
// kind of handle)" unless p is a live handle of kind.
gpuopt_status_t check_handle(const char* fn, const void* p, HandleKind kind, const char* arg);
}  // namespace gpuopt
