// What every collective-style entry point shares: the communicator and stream checks, and the
// checked mode's agreement (a fingerprint all-reduce before anything real is enqueued).
#pragma once
#include <cstdint>
#include <initializer_list>

#include "runtime/comm.hpp"
#include "runtime/stream.hpp"

namespace gpuopt {

// comm is a live communicator and stream a live stream of its context.
gpuopt_status_t check_comm_stream(const char* fn, gpuopt_comm_t comm, gpuopt_stream_t stream);

// A fingerprint of the arguments every rank must pass alike (FNV-1a of the values), 62 bits.
std::uint64_t fingerprint(std::initializer_list<std::int64_t> values);

// The checked mode. When comm is not checked (or this thread is inside a group, where nothing
// launches before the group ends) it answers `local`, the result of this rank's own checks.
// When it is: every rank contributes `fp` (or a poison value when `local` failed) to a 16-byte
// MAX all-reduce on stream and waits for it; a failed check anywhere, or ranks whose
// fingerprints differ, make every rank answer INVALID_ARGUMENT (this rank's own message when its
// check failed). Illegal during capture.
gpuopt_status_t comm_agree(const char* fn, Comm& comm, Stream& stream, std::uint64_t fp,
                           gpuopt_status_t local);

// Enqueues nothing for an NCCL result of success; else GPUOPT_ERROR_COMM naming what.
gpuopt_status_t nccl_result(const char* fn, const Comm& comm, NcclResult r, const char* what);

}  // namespace gpuopt
