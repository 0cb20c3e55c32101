// libFuzzer entry point: each input builds a fresh device-less world (two fake devices, their
// contexts, streams and buffers, and handles destroyed on purpose), then runs up to 32 calls the
// input chooses, each with arguments the input chooses. A crash, a sanitizer report, a status
// outside gpuopt_status_t, a failure without a message naming its entry point, or a world that
// does not tear down cleanly aborts the run.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_calls.hpp"
#include "gpuopt.h"
#include "runtime/deviceless.hpp"

namespace {

[[noreturn]] void violation(const char* what, const char* fn, gpuopt_status_t st,
                            const std::string& msg) {
  std::fprintf(stderr, "gpuopt_fuzz: %s: %s answered %d, message \"%s\"\n", what, fn,
               static_cast<int>(st), msg.c_str());
  std::abort();
}

std::string message() {
  char buf[2048];
  std::size_t len = 0;
  if (gpuopt_last_error_message(buf, sizeof buf, &len) != GPUOPT_SUCCESS) return "";
  return buf;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const gpuopt_device_info_t devices[] = {gpuopt::deviceless_h200(), gpuopt::deviceless_a100()};
  gpuopt::deviceless_enable(devices, 2);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  fuzz::World w;
  if (!fuzz::world_open(w))
    violation("world setup failed", "world_open", GPUOPT_SUCCESS, message());
  const auto& calls = fuzz::calls();
  for (int i = 0; i < 32 && !in.empty(); ++i) {
    const fuzz::Call& c = calls[in.pick(static_cast<unsigned>(calls.size()))];
    const gpuopt_status_t st = c.run(w, in);
    if (std::string(gpuopt_status_name(st)) == "GPUOPT_STATUS_UNKNOWN")
      violation("status outside gpuopt_status_t", c.fn, st, "");
    if (st == GPUOPT_SUCCESS) continue;
    const std::string m = message();
    if (m.compare(0, std::string(c.fn).size(), c.fn) != 0 || m.find(": ") == std::string::npos)
      violation("failure message does not name the entry point", c.fn, st, m);
  }
  if (!fuzz::world_close(w))
    violation("world teardown failed", "world_close", GPUOPT_SUCCESS, message());
  return 0;
}
