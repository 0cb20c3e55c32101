// Settings of gpuopt_blas, read once from the environment (secure_getenv).
#pragma once

#include <string>
#include <vector>

namespace gpuopt_blas {

enum class Force { kAuto, kGpu, kCpu };

struct Config {
  std::string cpu_lib;         // GPUOPT_BLAS_CPU_LIB: absolute path of the CPU BLAS, "" = search
  Force force = Force::kAuto;  // GPUOPT_BLAS_FORCE=gpu|cpu
  bool devices_set = false;    // GPUOPT_BLAS_DEVICES given
  std::vector<int> devices;  // GPUOPT_BLAS_DEVICES=0,1,... (ordinals); empty with devices_set: none
  bool log = false;          // GPUOPT_BLAS_LOG=1: one line per level-3 call on stderr
  int streams = 0;  // GPUOPT_BLAS_STREAMS=1..4: pipeline workers per GPU; 0: the pipeline's default
  // GPUOPT_BLAS_OOC_BLOCK=nb (testing): symm, syrk, syr2k, trmm and trsm on host arrays take the
  // blocked out-of-core path (gpu_blocked.hpp) with blocks of nb even when they fit the GPU; 0: no.
  long ooc_block = 0;
  // GPUOPT_BLAS_OOC_FAIL_STEP=s (testing): step s of every blocked call fails as by a CUDA error
  // (a gemm step's first tile, or a diagonal step before its copy out); 0: none.
  long ooc_fail_step = 0;
  std::string problems;  // what could not be parsed (reported in the log lines)
};

/** The settings (parsed on first use, thread-safe). */
const Config& config();

/** Largest GPUOPT_BLAS_STREAMS accepted (each worker holds 640 MiB of device and pinned memory). */
constexpr int kMaxStreams = 4;

/** Parses a GPUOPT_BLAS_STREAMS value: one digit 1..kMaxStreams; false (and @p out untouched) when
 *  malformed. */
bool parse_streams(const char* text, int* out);

/** Largest GPUOPT_BLAS_OOC_BLOCK and GPUOPT_BLAS_OOC_FAIL_STEP accepted. */
constexpr long kMaxOocBlock = 8192;
constexpr long kMaxOocFailStep = 1000000;

/** Parses a decimal 1..@p max (GPUOPT_BLAS_OOC_BLOCK, GPUOPT_BLAS_OOC_FAIL_STEP); false (and
 *  @p out untouched) when malformed. */
bool parse_positive(const char* text, long max, long* out);

/** Parses a GPUOPT_BLAS_DEVICES value ("0,1,3"); false (and @p out untouched) when malformed. */
bool parse_device_list(const char* text, std::vector<int>* out);

}  // namespace gpuopt_blas
