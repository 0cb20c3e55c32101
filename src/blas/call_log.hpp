// GPUOPT_BLAS_LOG=1: one line per level-3 call on stderr (routine, shape, where, why).
#pragma once

#include <string>

namespace gpuopt_blas {

/** True when GPUOPT_BLAS_LOG asks for the lines (callers skip formatting them otherwise). */
bool logging();

/** Writes "gpuopt_blas: <routine> <shape> [gpu|cpu] <why>" when logging is on. */
void log_call(const char* routine, const std::string& shape, bool gpu, const std::string& why);

}  // namespace gpuopt_blas
