// What this build holds of f64_tensorcore, for its dispatch rule (gemm_table.cpp).
#pragma once

namespace gpuopt {

// Whether this build runs f64_tensorcore's warp-specialized kernel on cc 9.0 (its sm_90a SASS was
// built; f64_tensorcore_sm90a.cu). Without it cc 9.0 runs the one-role kernel, which the dispatch
// rule's measurements do not cover.
bool gemm_f64_tensorcore_ws_built();

}  // namespace gpuopt
