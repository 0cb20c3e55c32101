// The transpose entry point's host-side checks (unit-tested without a device): the descriptor,
// the operands' extents and their overlap.
#pragma once
#include <cstddef>

#include "gpuopt.h"
#include "kernels/transpose/transpose.hpp"

namespace gpuopt {

// Validates *desc (struct_size, dtype, sizes, leading dimensions, extents that fit the address
// space) and fills *out (pointers left NULL). fn names the entry point in the messages.
gpuopt_status_t transpose_read_desc(const char* fn, const gpuopt_transpose_desc_t* desc,
                                    TransposeProblem* out);

// Bytes from A (resp. B) to one past the last element of the problem: ((cols - 1) * lda + rows)
// and ((rows - 1) * ldb + cols) elements; 0 for an empty problem. Valid after transpose_read_desc.
std::size_t transpose_a_span(const TransposeProblem& p);
std::size_t transpose_b_span(const TransposeProblem& p);

// INVALID_ARGUMENT naming A and B when [A, A + a_span) and [B, B + b_span) intersect.
gpuopt_status_t transpose_check_overlap(const char* fn, const TransposeProblem& p);

}  // namespace gpuopt
