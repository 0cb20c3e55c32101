// sm90_tma_wgmma host side: what the variant can run, the TMA tensor maps and kernel parameters
// of a problem, and the launcher that hands them to the per-type instantiations.
#include "kernels/gemm/sm90_tma_wgmma.hpp"

#include <climits>
#include <cstdint>

#include "runtime/driver.hpp"
#include "runtime/error.hpp"

namespace gpuopt {
namespace sm90 {
namespace {

CUtensorMapDataType tma_type(gpuopt_dtype_t t) {
  switch (t) {
    case GPUOPT_DTYPE_BF16:
      return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case GPUOPT_DTYPE_F16:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    default:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  }
}

// Tensor map of one operand as stored: `inner` contiguous elements per line, `outer` lines at
// ld elements, `batch` matrices at stride elements; boxes of box_inner x box_outer x 1 landing
// 128-byte swizzled in shared memory. Out-of-range box elements read as zero.
bool encode(CUtensorMap* map, gpuopt_dtype_t type, const void* base, std::int64_t inner,
            std::int64_t outer, std::int64_t ld, std::int64_t batch, std::int64_t stride,
            int box_inner, int box_outer) {
  const DriverApi& drv = driver_api();
  if (!drv.cuTensorMapEncodeTiled) return false;
  const std::uint64_t e = dtype_size(type);
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(inner), static_cast<cuuint64_t>(outer),
                              static_cast<cuuint64_t>(batch)};
  // A single matrix still gets a rank-3 map; its unused batch stride is the matrix's extent.
  const cuuint64_t strides[2] = {
      static_cast<cuuint64_t>(ld) * e,
      batch > 1 ? static_cast<cuuint64_t>(stride) * e
                : static_cast<cuuint64_t>(ld) * e * static_cast<cuuint64_t>(outer)};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(box_inner), static_cast<cuuint32_t>(box_outer),
                             1};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  CUresult r = drv.cuTensorMapEncodeTiled(
      map, tma_type(type), 3, const_cast<void*>(base), dims, strides, box, elem_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS;
}

const char* check_types(const GemmProblem& p) {
  switch (p.a_type) {
    case GPUOPT_DTYPE_BF16:
    case GPUOPT_DTYPE_F16:
      if (p.compute != GPUOPT_COMPUTE_F32) return "16-bit inputs need compute F32";
      if (p.c_type != GPUOPT_DTYPE_F32 && p.c_type != p.a_type)
        return "16-bit inputs need c_type f32 or the input type";
      return nullptr;
    case GPUOPT_DTYPE_F32:
      if (p.compute != GPUOPT_COMPUTE_TF32)
        return "f32 runs only as tf32 here (exact f32 has no wgmma path)";
      if (p.c_type != GPUOPT_DTYPE_F32) return "tf32 needs c_type f32";
      // wgmma reads tf32 operands only K-major: op(A) = A^T stored k x m, op(B) = B stored k x n.
      if (p.trans_a != GPUOPT_TRANS_T || p.trans_b != GPUOPT_TRANS_N)
        return "tf32 wgmma needs both operands K-major (trans_a = T, trans_b = N only)";
      return nullptr;
    default:
      return "does not implement this dtype (bf16, f16, tf32 only)";
  }
}

const char* check_alignment(const GemmProblem& p) {
  const std::uint64_t e = dtype_size(p.a_type);
  const auto addr = reinterpret_cast<std::uintptr_t>(p.A) | reinterpret_cast<std::uintptr_t>(p.B);
  if (addr % 16) return "TMA needs A and B aligned to 16 bytes";
  if ((static_cast<std::uint64_t>(p.lda) * e) % 16 || (static_cast<std::uint64_t>(p.ldb) * e) % 16)
    return "TMA needs lda and ldb times the element size to be multiples of 16 bytes";
  if (p.batch > 1 && ((static_cast<std::uint64_t>(p.stride_a) * e) % 16 ||
                      (static_cast<std::uint64_t>(p.stride_b) * e) % 16))
    return "TMA needs batch strides of A and B times the element size to be multiples of 16 bytes";
  return nullptr;
}

}  // namespace

const char* make_plan(const GemmProblem& p, const DeviceDesc& dev, Plan* plan) {
  if (const char* why = check_types(p)) return why;
  if (p.k < 1) return "k == 0 (C = beta * C) is left to the other variants";
  if (p.m > INT_MAX || p.n > INT_MAX || p.k > INT_MAX) return "m, n, k must fit in int32 (TMA)";
  if (const char* why = check_alignment(p)) return why;
  if (dev.sm_count < 1) return "device multiprocessor count unknown";
  if (dev.smem_optin < static_cast<std::size_t>(kSmemBytes))
    return "needs 193 KiB of shared memory per block";
  if (!driver_api().cuTensorMapEncodeTiled) return "the driver lacks cuTensorMapEncodeTiled";

  const std::int64_t tiles_x = (p.n + kBlockM - 1) / kBlockM;
  const std::int64_t tiles_y = (p.m + kBlockN - 1) / kBlockN;
  // Clusters of 2 along the columns share (multicast) the Q tile; a single column tile has no
  // partner.
  const int cluster = tiles_x >= 2 ? kMaxCluster : 1;
  const std::int64_t units_x = (tiles_x + cluster - 1) / cluster;
  // The persistent loop steps u += clusters past total_units: keep that within int32.
  if (units_x * tiles_y > (INT_MAX / 2) / p.batch) return "too many tiles for the int32 scheduler";

  const std::int64_t e = static_cast<std::int64_t>(dtype_size(p.a_type));
  const int kk = static_cast<int>(kRowBytes / e);  // K elements per stage; also MN box width
  plan->cluster = cluster;
  plan->p_kmajor = p.trans_b == GPUOPT_TRANS_N;
  plan->q_kmajor = p.trans_a == GPUOPT_TRANS_T;
  // P(j, kk) = op(B)(kk, j): B stored k x n (N: K-major) or n x k (T: MN-major).
  const bool ok_p =
      plan->p_kmajor
          ? encode(&plan->map_p, p.a_type, p.B, p.k, p.n, p.ldb, p.batch, p.stride_b, kk, kBlockM)
          : encode(&plan->map_p, p.a_type, p.B, p.n, p.k, p.ldb, p.batch, p.stride_b, kk, kk);
  // Q(i, kk) = op(A)(i, kk): A stored k x m (T: K-major) or m x k (N: MN-major).
  const bool ok_q = plan->q_kmajor ? encode(&plan->map_q, p.a_type, p.A, p.k, p.m, p.lda, p.batch,
                                            p.stride_a, kk, kBlockN / cluster)
                                   : encode(&plan->map_q, p.a_type, p.A, p.m, p.k, p.lda, p.batch,
                                            p.stride_a, kk, kk);
  if (!ok_p || !ok_q) return "cuTensorMapEncodeTiled rejected the operands' extents or strides";

  Params& q = plan->params;
  q.m = static_cast<int>(p.m);
  q.n = static_cast<int>(p.n);
  q.k_blocks = static_cast<int>((p.k + kk - 1) / kk);
  q.units_x = static_cast<int>(units_x);
  q.tiles_y = static_cast<int>(tiles_y);
  q.units_per_batch = static_cast<int>(units_x * tiles_y);
  q.total_units = static_cast<int>(units_x * tiles_y * p.batch);
  q.alpha = static_cast<float>(p.alpha);
  q.beta = static_cast<float>(p.beta);
  q.C = p.C;
  q.ldc = p.ldc;
  q.stride_c = p.batch > 1 ? p.stride_c : 0;
  const std::uint64_t ec = dtype_size(p.c_type);
  q.pair_store = reinterpret_cast<std::uintptr_t>(p.C) % (2 * ec) == 0 && p.ldc % 2 == 0 &&
                 (p.batch == 1 || p.stride_c % 2 == 0);
  // Persistent: one CTA per multiprocessor at most (one fits), whole clusters.
  const int max_clusters = dev.sm_count / cluster;
  if (max_clusters < 1) return "fewer multiprocessors than a cluster";
  plan->grid = (q.total_units < max_clusters ? q.total_units : max_clusters) * cluster;
  return nullptr;
}

}  // namespace sm90

const char* gemm_can_sm90_tma_wgmma(const GemmProblem& p, const DeviceDesc& dev) {
  sm90::Plan plan;
  return sm90::make_plan(p, dev, &plan);
}

int gemm_pref_sm90_tma_wgmma(const GemmProblem&, const DeviceDesc&) { return 80; }

gpuopt_status_t gemm_launch_sm90_tma_wgmma(const GemmProblem& p, const ExecEnv& env) {
  sm90::Plan plan;
  if (const char* why = sm90::make_plan(p, *env.device, &plan))
    return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn, "gemm sm90_tma_wgmma: %s", why);
  switch (p.a_type) {
    case GPUOPT_DTYPE_BF16:
      return sm90::launch_bf16(plan, p, env);
    case GPUOPT_DTYPE_F16:
      return sm90::launch_f16(plan, p, env);
    case GPUOPT_DTYPE_F32:
      return sm90::launch_tf32(plan, p, env);
    default:
      return fail(GPUOPT_ERROR_INTERNAL, env.fn, "gemm sm90_tma_wgmma: unexpected dtype");
  }
}

}  // namespace gpuopt
