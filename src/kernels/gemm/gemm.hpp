// GEMM (C = alpha * op(A) op(B) + beta * C, column-major): the problem and its variant table.
//
// Dispatch rule: among the variants whose dtype, architecture and can_implement accept the
// problem, the highest preference wins. Preferences follow the measured ladder
// (docs/notes/gemm.md): the own rungs rank from the textbook rung up to the arch-specific tensor
// core rungs, and the vendor rungs (cublas, then cublaslt) rank above any own rung that measured
// slower than the vendor in the bench.
#pragma once
#include <cstdint>

#include "runtime/registry.hpp"

namespace gpuopt {

struct GemmProblem {
  gpuopt_transpose_t trans_a = GPUOPT_TRANS_N;
  gpuopt_transpose_t trans_b = GPUOPT_TRANS_N;
  std::int64_t m = 0, n = 0, k = 0;
  double alpha = 1.0, beta = 0.0;
  gpuopt_dtype_t a_type = GPUOPT_DTYPE_F32;  // A and B
  gpuopt_dtype_t c_type = GPUOPT_DTYPE_F32;
  gpuopt_compute_t compute = GPUOPT_COMPUTE_F32;  // resolved: never DEFAULT
  const void* A = nullptr;
  const void* B = nullptr;
  void* C = nullptr;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  std::int64_t batch = 1;  // >= 1
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;
};

// Common can_implement pieces: nullptr when fine, else the reason.
const char* gemm_need_types(const GemmProblem& p, gpuopt_dtype_t ab, gpuopt_dtype_t c,
                            gpuopt_compute_t compute);
const char* gemm_need_alignment(const GemmProblem& p, std::size_t bytes);

gpuopt_status_t gemm_launch_naive(const GemmProblem& p, const ExecEnv& env);
gpuopt_status_t gemm_launch_cublas(const GemmProblem& p, const ExecEnv& env);
// cublaslt (cublaslt_vendor.cpp): cublasLtMatmul with a cached heuristic plan per problem class.
// Its run-time configurations: the heuristic's algorithm of rank i, kCublasLtAlgos at most
// (cublaslt_plan.hpp). Its own rule: the heuristic's first (algo0), except in the classes where
// gemm_cublaslt_rule_tile names a tile shape: there the first ranked algorithm of that tile.
inline constexpr const char* kCublasLtConfigs[] = {"algo0", "algo1", "algo2", "algo3",
                                                   "algo4", "algo5", "algo6", "algo7"};
// The cuBLASLt tile (cublasLtMatmulTile_t) the cublaslt rung's own rule prefers for p on dev, or
// 0 (CUBLASLT_MATMUL_TILE_UNDEFINED): the heuristic's first choice. Also the gemm table's reason
// to rank cublaslt first.
int gemm_cublaslt_rule_tile(const GemmProblem& p, const DeviceDesc& dev);
const char* gemm_can_cublaslt(const GemmProblem& p, const DeviceDesc& dev);
gpuopt_status_t gemm_launch_cublaslt(const GemmProblem& p, const ExecEnv& env);
// SIMT exact f32/f64 rungs (smem_tiled.cu, smem_coalesced_padded.cu, register_blocked.cu,
// warptiled_cpasync.cu); can_implement: simt_can.cpp and warptiled_cpasync.cu.
const char* gemm_can_simt_exact(const GemmProblem& p, const DeviceDesc& dev);
const char* gemm_can_warptiled_cpasync(const GemmProblem& p, const DeviceDesc& dev);
gpuopt_status_t gemm_launch_smem_tiled(const GemmProblem& p, const ExecEnv& env);
gpuopt_status_t gemm_launch_smem_coalesced_padded(const GemmProblem& p, const ExecEnv& env);
gpuopt_status_t gemm_launch_register_blocked(const GemmProblem& p, const ExecEnv& env);
gpuopt_status_t gemm_launch_warptiled_cpasync(const GemmProblem& p, const ExecEnv& env);
// sm90_tma_wgmma (sm_90a; bf16/f16/tf32): its plan step (the check; the TMA descriptors the
// launcher then finds in ExecEnv::plan) and launcher.
// Its run-time configurations (docs/tuning.md; sm90::Config): schedule (cooperative m64n256 or
// ping-pong m64n128, 16-bit only) x cluster (1 or 2 CTAs sharing the Q tile by multicast).
inline constexpr const char* kSm90TmaWgmmaConfigs[] = {"coop_c1", "coop_c2", "pingpong_c1",
                                                       "pingpong_c2"};
const char* gemm_plan_sm90_tma_wgmma(const GemmProblem& p, const DeviceDesc& dev, int config,
                                     PlanStorage* storage);
gpuopt_status_t gemm_launch_sm90_tma_wgmma(const GemmProblem& p, const ExecEnv& env);
// f64_tensorcore (mma.sync f64; f64_tensorcore.cu, f64_tensorcore_sm90.cu).
const char* gemm_can_f64_tensorcore(const GemmProblem& p, const DeviceDesc& dev);
gpuopt_status_t gemm_launch_f64_tensorcore(const GemmProblem& p, const ExecEnv& env);

// The table, in ladder order (textbook rung first, vendor last).
const Variant<GemmProblem>* gemm_variants(int* count);

}  // namespace gpuopt
