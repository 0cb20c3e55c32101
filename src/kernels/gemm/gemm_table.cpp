// The gemm variant table and its dispatch rule (see gemm.hpp).
#include "kernels/gemm/gemm.hpp"

namespace gpuopt {
namespace {

constexpr unsigned kAllTypes = dtype_bit(GPUOPT_DTYPE_F64) | dtype_bit(GPUOPT_DTYPE_F32) |
                               dtype_bit(GPUOPT_DTYPE_BF16) | dtype_bit(GPUOPT_DTYPE_F16);

const char* naive_can(const GemmProblem& p, const DeviceDesc&) {
  if (p.n > 65535LL * 16) return "n exceeds the naive grid (65535 blocks of 16 columns)";
  return nullptr;
}
int naive_pref(const GemmProblem&, const DeviceDesc&) { return 0; }
int vendor_pref(const GemmProblem&, const DeviceDesc&) { return 50; }

const Variant<GemmProblem> kTable[] = {
    {{"naive", "one thread per element of C, operands from global memory", 0, 0, false,
      kAllTypes},
     naive_can, naive_pref, gemm_launch_naive},
    {{"cublas", "cublasGemmEx_64 / cublasGemmStridedBatchedEx_64 (vendor)", 0, 0, true,
      kAllTypes},
     nullptr, vendor_pref, gemm_launch_cublas},
};

}  // namespace

const Variant<GemmProblem>* gemm_variants(int* count) {
  *count = static_cast<int>(sizeof kTable / sizeof kTable[0]);
  return kTable;
}

}  // namespace gpuopt
