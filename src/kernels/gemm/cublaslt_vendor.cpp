// gemm cublaslt: cublasLtMatmul on the stream's cuBLAS handle (cuBLAS documents that a
// cublasHandle_t serves as a cublasLtHandle_t by a cast) with the stream's cuBLAS workspace (32 MiB
// on Hopper and later, 4 MiB before; PyTorch hands cuBLASLt 1 MiB by default) and the algorithm
// cuBLASLt's heuristic ranks first for the problem class, with the alignment of the operands as
// hints (as PyTorch's bgemm_internal_cublaslt). The heuristic runs once per class
// (cublaslt_plan.hpp). The run-time configuration algo<i> (ExecEnv::config; a tuning cache's or a
// forced one) runs the heuristic's algorithm of rank i instead: cuBLASLt leaves that search to its
// caller, gpuopt_tune makes it (docs/tuning.md); the compute types are the cublas rung's
// (cublas_types.hpp). Where the heuristic's first choice measured well behind another algorithm
// it ranks, the rule names that algorithm's tile (gemm_cublaslt_rule_tile). The second vendor
// rung: the bench's vendor figure is the faster of the two.
#include <cublasLt.h>

#include <climits>
#include <cstdint>
#include <memory>

#include "kernels/gemm/cublas_types.hpp"
#include "kernels/gemm/cublaslt_plan.hpp"
#include "kernels/gemm/gemm.hpp"
#include "runtime/blas_error.hpp"
#include "runtime/error.hpp"
#include "runtime/log.hpp"

namespace gpuopt {
namespace {

#define GPUOPT_LT_TRY(call)                             \
  do {                                                  \
    const cublasStatus_t lt_st_ = (call);               \
    if (lt_st_ != CUBLAS_STATUS_SUCCESS) return lt_st_; \
  } while (0)

template <class T>
cublasStatus_t set_layout(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t attr, T v) {
  return cublasLtMatrixLayoutSetAttribute(l, attr, &v, sizeof v);
}

// A column-major rows x cols matrix (leading dimension ld), batch of them `stride` apart.
cublasStatus_t make_layout(cudaDataType_t type, std::int64_t rows, std::int64_t cols,
                           std::int64_t ld, std::int64_t batch, std::int64_t stride,
                           cublasLtMatrixLayout_t* out) {
  GPUOPT_LT_TRY(cublasLtMatrixLayoutCreate(out, type, static_cast<std::uint64_t>(rows),
                                           static_cast<std::uint64_t>(cols), ld));
  if (batch > 1) {
    GPUOPT_LT_TRY(
        set_layout(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, static_cast<std::int32_t>(batch)));
    GPUOPT_LT_TRY(set_layout(*out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, stride));
  }
  return CUBLAS_STATUS_SUCCESS;
}

// Owns a matmul preference while the heuristic runs.
struct Preference {
  cublasLtMatmulPreference_t p = nullptr;
  ~Preference() {
    if (p) cublasLtMatmulPreferenceDestroy(p);
  }
  template <class T>
  cublasStatus_t set(cublasLtMatmulPreferenceAttributes_t attr, T v) {
    return cublasLtMatmulPreferenceSetAttribute(p, attr, &v, sizeof v);
  }
};

// The tile of a heuristic result, or -1 when cuBLASLt does not say.
int algo_tile(const cublasLtMatmulAlgo_t& algo) {
  int tile = -1;
  std::size_t written = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile,
                                           &written) != CUBLAS_STATUS_SUCCESS)
    return -1;
  return tile;
}

// Which of the heuristic's results a plan takes: `results` valid ones (state SUCCESS) of
// `returned`; rank >= 0: that rank (its first when it ranks fewer: *rank_missing); rank < 0 (the
// rule): the first of tile `tile`, else its first.
int pick_result(const cublasLtMatmulHeuristicResult_t* results, int returned, int rank, int tile,
                bool* rank_missing) {
  *rank_missing = false;
  if (rank >= 0) {
    // A result's fields are valid only where its state is SUCCESS (cuBLASLt's documentation).
    *rank_missing = returned <= rank || results[rank].state != CUBLAS_STATUS_SUCCESS;
    return *rank_missing ? 0 : rank;
  }
  for (int i = 0; i < returned; ++i) {
    if (results[i].state == CUBLAS_STATUS_SUCCESS && algo_tile(results[i].algo) == tile) return i;
  }
  return 0;
}

// Descriptors of p and the heuristic's algorithm of rank `rank` within workspace_bytes (its first
// when it ranks fewer: plan->rank_missing), or with rank < 0 the rule's: its first of tile
// `tile` among kCublasLtAlgos.
cublasStatus_t make_plan(cublasLtHandle_t lt, const GemmProblem& p, std::size_t workspace_bytes,
                         int rank, int tile, LtPlan* plan) {
  const GemmScalars scalars(p);
  GPUOPT_LT_TRY(cublasLtMatmulDescCreate(&plan->op, gemm_cublas_compute(p), scalars.scale_type()));
  const cublasOperation_t ta = gemm_cublas_op(p.trans_a), tb = gemm_cublas_op(p.trans_b);
  GPUOPT_LT_TRY(
      cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  GPUOPT_LT_TRY(
      cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  const cudaDataType_t ab = gemm_cuda_type(p.a_type), c = gemm_cuda_type(p.c_type);
  const bool na = p.trans_a == GPUOPT_TRANS_N, nb = p.trans_b == GPUOPT_TRANS_N;
  GPUOPT_LT_TRY(
      make_layout(ab, na ? p.m : p.k, na ? p.k : p.m, p.lda, p.batch, p.stride_a, &plan->a));
  GPUOPT_LT_TRY(
      make_layout(ab, nb ? p.k : p.n, nb ? p.n : p.k, p.ldb, p.batch, p.stride_b, &plan->b));
  GPUOPT_LT_TRY(make_layout(c, p.m, p.n, p.ldc, p.batch, p.stride_c, &plan->c));

  const std::size_t ea = dtype_size(p.a_type), ec = dtype_size(p.c_type);
  plan->align_a = lt_alignment(p.A, p.stride_a, ea, p.batch);
  plan->align_b = lt_alignment(p.B, p.stride_b, ea, p.batch);
  plan->align_c = lt_alignment(p.C, p.stride_c, ec, p.batch);
  Preference pref;
  GPUOPT_LT_TRY(cublasLtMatmulPreferenceCreate(&pref.p));
  GPUOPT_LT_TRY(pref.set(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                         static_cast<std::uint64_t>(workspace_bytes)));
  GPUOPT_LT_TRY(pref.set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, plan->align_a));
  GPUOPT_LT_TRY(pref.set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, plan->align_b));
  GPUOPT_LT_TRY(pref.set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, plan->align_c));
  GPUOPT_LT_TRY(pref.set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, plan->align_c));

  cublasLtMatmulHeuristicResult_t results[kCublasLtAlgos]{};
  int returned = 0;
  const int wanted = rank >= 0 ? rank + 1 : kCublasLtAlgos;  // rank < 0: the rule's tile
  const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(
      lt, plan->op, plan->a, plan->b, plan->c, plan->c, pref.p, wanted, results, &returned);
  if (st == CUBLAS_STATUS_NOT_SUPPORTED || (st == CUBLAS_STATUS_SUCCESS && returned == 0))
    return CUBLAS_STATUS_SUCCESS;  // no algorithm: has_algo stays false
  GPUOPT_LT_TRY(st);
  plan->returned = returned;
  const cublasLtMatmulHeuristicResult_t& result =
      results[pick_result(results, returned, rank, tile, &plan->rank_missing)];
  if (result.state != CUBLAS_STATUS_SUCCESS) return CUBLAS_STATUS_SUCCESS;  // has_algo false
  plan->algo = result.algo;
  plan->algo_workspace = result.workspaceSize;
  plan->has_algo = true;
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

// Two classes of bf16 NN products (f32 compute, any C) on cc 9.0 where the heuristic's first
// choice measured behind another algorithm it ranks; H100, CUDA 13.0, 32 MiB workspace, each
// algorithm timed after 100 ms of its own warm-up (the power cap) in interleaved rounds, against
// cublasGemmEx / cublasGemmStridedBatchedEx (docs/notes/gemm.md; listings in
// docs/notes/history/runs/cublaslt-algos-h100-*.txt):
// - single, m, n >= 8192, 1024 <= k < 1536: the 128 x 160 algorithm. bf16 8192 x 8192 x 1024:
//   1.093 / 1.107 (32 MiB and 1 MiB heuristic listings; the first 1.013 / 1.007), bf16 C 1.101 /
//   1.083 (1.052 / 1.044); a helper's probe 1.190 x the first; two tuned bench runs picked it.
// - strided batches of at least 256 products with 256 <= m, n, k < 512: the 128 x 64 algorithm.
//   bf16 512 x 256^3: 1.028 (the first 1.000; 5 rounds, spreads under 0.2 %), bf16 C 1.010
//   (1.000).
// Measured at those shapes only; other problems keep the heuristic's first.
int gemm_cublaslt_rule_tile(const GemmProblem& p, const DeviceDesc& dev) {
  const bool nn = p.trans_a == GPUOPT_TRANS_N && p.trans_b == GPUOPT_TRANS_N;
  if (dev.cc != 90 || p.a_type != GPUOPT_DTYPE_BF16 || p.compute != GPUOPT_COMPUTE_F32 || !nn)
    return CUBLASLT_MATMUL_TILE_UNDEFINED;
  const bool long_short_k = p.batch <= 1 && p.m >= 8192 && p.n >= 8192 && p.k >= 1024 && p.k < 1536;
  if (long_short_k) return CUBLASLT_MATMUL_TILE_128x160;
  auto in_256s = [](std::int64_t v) { return v >= 256 && v < 512; };
  const bool small_batched = p.batch >= 256 && in_256s(p.m) && in_256s(p.n) && in_256s(p.k);
  return small_batched ? CUBLASLT_MATMUL_TILE_128x64 : CUBLASLT_MATMUL_TILE_UNDEFINED;
}

const char* gemm_can_cublaslt(const GemmProblem& p, const DeviceDesc&) {
  if (p.k == 0) return "k = 0 (C = beta * C only): cuBLASLt multiplies k >= 1 (cublas scales C)";
  if (p.batch > INT_MAX) return "batch_count above 2^31 - 1 (cuBLASLt's batch count is 32-bit)";
  return nullptr;
}

gpuopt_status_t gemm_launch_cublaslt(const GemmProblem& p, const ExecEnv& env) {
  const auto lt = reinterpret_cast<cublasLtHandle_t>(env.blas);
  // A configuration names a rank; without one the rule picks (its tile, or rank 0).
  const int tile = env.config < 0 ? gemm_cublaslt_rule_tile(p, *env.device) : 0;
  const int rank = env.config >= 0 && env.config < kCublasLtAlgos ? env.config : (tile ? -1 : 0);
  const LtKey key = lt_key(p, *env.device, env.blas_workspace_bytes, rank >= 0 ? rank : -tile);
  LtPlanCache& cache = lt_plan_cache();
  std::shared_ptr<const LtPlan> plan = cache.find(key);
  if (!plan) {
    auto made = std::make_shared<LtPlan>();
    const cublasStatus_t st = make_plan(lt, p, env.blas_workspace_bytes, rank, tile, made.get());
    if (st != CUBLAS_STATUS_SUCCESS)
      return blas_fail(st, env.fn, "cublaslt gemm: planning (descriptors, heuristic)");
    plan = cache.insert(key, std::move(made));
  }
  if (!plan->has_algo)
    return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn,
                "cublaslt gemm: cuBLASLt's heuristic has no algorithm for this problem (types, "
                "layouts, alignment of A, B, C %u, %u, %u bytes, %zu bytes of workspace)",
                plan->align_a, plan->align_b, plan->align_c, env.blas_workspace_bytes);
  if (plan->rank_missing) {
    // A forced configuration (or gpuopt_tune's candidate) must run what it names; a tuning
    // cache's runs the rung's own rule instead (a class spans problems the heuristic ranks apart).
    if (env.config_forced)
      return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn,
                  "cublaslt gemm: configuration algo%d: cuBLASLt's heuristic ranks %d "
                  "algorithm%s for this problem",
                  rank, plan->returned, plan->returned == 1 ? "" : "s");
    log(LogLevel::debug,
        "cublaslt gemm: tuned configuration algo%d is not among the heuristic's %d algorithms "
        "for this problem; runs algo0",
        rank, plan->returned);
  }
  const GemmScalars s(p);
  const cublasStatus_t st = cublasLtMatmul(
      lt, plan->op, s.alpha(), p.A, plan->a, p.B, plan->b, s.beta(), p.C, plan->c, p.C, plan->c,
      &plan->algo, env.blas_workspace, env.blas_workspace_bytes, env.stream);
  return st == CUBLAS_STATUS_SUCCESS ? GPUOPT_SUCCESS
                                     : blas_fail(st, env.fn, "cublaslt gemm: cublasLtMatmul");
}

}  // namespace gpuopt
