// Where a level-3 call runs. The shim answers the calls it can without the GPU half (small ones,
// GPUOPT_BLAS_FORCE=cpu), so they never load CUDA; the others are asked of the GPU half's model.
#pragma once

#include <stddef.h>

#include "gpu_half.hpp"

namespace gpuopt_blas {

/** The route of a call of @p flops flops on these operands (@p elem: 4 or 8). When it goes to the
 *  GPU, @p table is the loaded GPU half that runs it. */
gpu::Route route(double flops, const gpu::Operand* ops, int nops, size_t elem,
                 const gpu::Table** table);

}  // namespace gpuopt_blas
