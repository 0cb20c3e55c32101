// gpuopt_fault_trap: a user kernel that traps on a gpuopt stream. The next
// gpuopt_stream_synchronize must answer GPUOPT_ERROR_CUDA with the CUDA error's name and text,
// and later calls must answer errors, not crash. A device-side trap poisons the CUDA context of
// the whole process, so this runs as its own executable (ctest "gpu.fault_trap", exit 77 without
// a device).
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "gpuopt.h"

namespace {

__global__ void trap_kernel(int* flag) {
  if (threadIdx.x == 0) *flag = 1;
  __trap();
}

std::string message() {
  char buf[1024] = {};
  gpuopt_last_error_message(buf, sizeof buf, nullptr);
  return buf;
}

int failures = 0;

void expect(bool ok, const char* what) {
  std::printf("[%s] %s\n", ok ? "  OK  " : " FAIL ", what);
  if (!ok) ++failures;
}

}  // namespace

int main() {
  gpuopt_context_t ctx = nullptr;
  if (gpuopt_context_create(0, &ctx) == GPUOPT_ERROR_NO_DEVICE) {
    std::printf("no CUDA device: %s\n", message().c_str());
    return 77;
  }
  gpuopt_stream_t stream = nullptr;
  void* native = nullptr;
  int* flag = nullptr;
  if (!ctx || gpuopt_stream_create(ctx, &stream) != GPUOPT_SUCCESS ||
      gpuopt_stream_native(stream, &native) != GPUOPT_SUCCESS ||
      cudaMalloc(&flag, sizeof(int)) != cudaSuccess) {
    std::printf("setup failed: %s\n", message().c_str());
    return 1;
  }
  trap_kernel<<<1, 32, 0, static_cast<cudaStream_t>(native)>>>(flag);
  const gpuopt_status_t st = gpuopt_stream_synchronize(stream);
  const std::string m = message();
  std::printf("gpuopt_stream_synchronize -> %s: %s\n", gpuopt_status_name(st), m.c_str());
  expect(st == GPUOPT_ERROR_CUDA, "the trap is reported as GPUOPT_ERROR_CUDA");
  expect(m.find("gpuopt_stream_synchronize") == 0, "the message names the entry point");
  expect(m.find("cudaError") != std::string::npos, "the message carries the CUDA error name");
  // The context is poisoned for good: every later call answers an error, none crashes.
  const gpuopt_status_t again =
      gpuopt_axpy(ctx, stream, GPUOPT_DTYPE_F32, 1, 1.0, flag, 1, flag, 1);
  std::printf("gpuopt_axpy afterwards -> %s: %s\n", gpuopt_status_name(again), message().c_str());
  expect(again != GPUOPT_SUCCESS || gpuopt_stream_synchronize(stream) != GPUOPT_SUCCESS,
         "later work on the poisoned context answers an error");
  gpuopt_stream_destroy(stream);
  gpuopt_context_destroy(ctx);
  std::printf("[  FAULT   ] kernel trap on a gpuopt stream: %s\n",
              failures ? "NOT reported as specified" : "reported with the CUDA error text");
  return failures ? 1 : 0;
}
