// The tuning-cache class of each op's problem (fields: runtime/tune_key.cpp, docs/tuning.md).
// Computed per call only while a tuning cache is attached or gpuopt_tune runs: integer work, no
// allocation.
#pragma once
#include "gpuopt.h"
#include "runtime/tune_key.hpp"

namespace gpuopt {

struct AxpyProblem;
struct GemmProblem;
struct ReduceProblem;
struct SegmentedSortProblem;
struct StencilProblem;
struct TransposeProblem;
struct GdnProblem;

// dtype is the one run_dispatched gets (the table's dtype mask key); the problems carry theirs.
TuneKey tune_key(const AxpyProblem& p, gpuopt_dtype_t dtype);
TuneKey tune_key(const GemmProblem& p, gpuopt_dtype_t dtype);
TuneKey tune_key(const ReduceProblem& p, gpuopt_dtype_t dtype);
TuneKey tune_key(const SegmentedSortProblem& p, gpuopt_dtype_t dtype);
TuneKey tune_key(const StencilProblem& p, gpuopt_dtype_t dtype);
TuneKey tune_key(const TransposeProblem& p, gpuopt_dtype_t dtype);
TuneKey tune_key(const GdnProblem& p, gpuopt_dtype_t dtype);

}  // namespace gpuopt
